// The files a rebuild writes: summary.json, report.md and report.html as handleSummary writes them,
// summary.json adding where the figures came from and, for a partial run, how far each run got.
import { renderHtml } from '../report/render/html-report';
import { summaryJson } from '../report/render/summary-json';
import { renderMarkdown } from '../report/render/markdown-report';
import type { Rebuilt } from './rebuild';

export const REBUILT_FORMAT = 'k6-llm-bench-rebuilt/1';

/** summary.json of a rebuilt report: handleSummary's fields, then `rebuilt_from` and each record's `run_state`. */
export function rebuiltSummaryJson(r: Rebuilt, recordName: string): string {
  const o = JSON.parse(summaryJson(r.report)) as { records: Array<Record<string, unknown>> } & Record<string, unknown>;
  for (const rec of o.records) rec.run_state = r.progress.runs.find((p) => p.scenario === rec.scenario)?.state ?? null;
  o.rebuilt_from = {
    format: REBUILT_FORMAT,
    raw_record: recordName,
    ending: r.progress.ending,
    stopped_at_ms: r.progress.ending === 'finished' ? null : r.progress.stoppedAtMs,
    setup_recorded: r.setupRecorded,
    trend_percentiles: "every recorded value, k6's rule (linear between the two values around p·(n−1))",
  };
  return JSON.stringify(o, null, 2);
}

/** The three report files under `base` (a path without extension). */
export function rebuiltFiles(r: Rebuilt, recordName: string, base: string): Record<string, string> {
  return {
    [`${base}.summary.json`]: rebuiltSummaryJson(r, recordName),
    [`${base}.report.md`]: renderMarkdown(r.report),
    [`${base}.report.html`]: renderHtml(r.report),
  };
}
