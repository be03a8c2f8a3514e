// handleSummary for a user's script: summary.json, report.md and report.html as the benchmarks
// write them (lib/report renders them), and the compact text for stdout.
import { stamp } from '../config/load';
import { renderHtml } from '../report/render/html-report';
import { summaryJson } from '../report/render/summary-json';
import { renderMarkdown } from '../report/render/markdown-report';
import type { SummaryMetrics } from '../report/figures/run-figures';
import type { Report } from '../report/build-report';
import { renderText } from '../report/render/text-report';
import { testId, testScenarios } from '../k6/library';
import { scenariosOf, type ScenarioOptions } from './plan';
import { libraryReport } from './report';
import { state } from './state';
import type { LlmClient } from './client';

export interface SummaryOptions {
  /** The report's title. Default 'k6 script'. */
  title?: string;
  /** The run's id in the reports. Default: the testid tag, else llm-<UTC stamp>. */
  runId?: string;
  /** Folder of the files; it must exist (k6 creates none). Default '.' (where k6 runs). */
  dir?: string;
  /** File names in `dir`; null leaves a file out. Defaults summary.json, report.md, report.html. */
  files?: { json?: string | null; markdown?: string | null; html?: string | null };
  /** Print the compact report on stdout. Default true. */
  stdout?: boolean;
  /** The clients to report on. Default: every client the script created. */
  clients?: readonly LlmClient[];
}

/** k6's summary data, as far as the report reads it. */
export interface SummaryData {
  metrics: SummaryMetrics;
  setup_data?: unknown;
  state?: { testRunDurationMs?: number };
  [key: string]: unknown;
}

/** The report object itself (for a script that renders or checks it its own way). */
export function llmReport(data: SummaryData, o: SummaryOptions = {}): Report {
  const names = o.clients ? new Set(o.clients.map((c) => c.name)) : null;
  const clients = state.clients.filter((c) => names === null || names.has(c.name));
  const scenarios: Record<string, ScenarioOptions> = (testScenarios() as Record<string, ScenarioOptions> | null) ?? scenariosOf(state.options ?? {});
  const now = new Date();
  return libraryReport({
    title: o.title ?? 'k6 script',
    runId: o.runId ?? testId() ?? `llm-${stamp(now)}`,
    clients,
    scenarios,
    slices: state.slices,
    data,
    now,
  });
}

/**
 * The files handleSummary returns: `export function handleSummary(data) { return llmSummary(data); }`.
 * Merge them with your own outputs if you have some (k6 then prints only what you return on stdout).
 */
export function llmSummary(data: SummaryData, o: SummaryOptions = {}): Record<string, string> {
  const report = llmReport(data, o);
  const dir = (o.dir ?? '.').replace(/\/+$/, '') || '.';
  const f = o.files ?? {};
  const path = (name: string) => (dir === '.' ? name : `${dir}/${name}`);
  const out: Record<string, string> = {};
  const json = f.json === undefined ? 'summary.json' : f.json;
  const md = f.markdown === undefined ? 'report.md' : f.markdown;
  const html = f.html === undefined ? 'report.html' : f.html;
  if (json) out[path(json)] = summaryJson(report);
  if (md) out[path(md)] = renderMarkdown(report);
  if (html) out[path(html)] = renderHtml(report);
  if (o.stdout !== false) out.stdout = renderText(report, Object.keys(out));
  return out;
}
