// The compact stdout summary: one line per cell and variant, then the conclusions.
import { TRANSPORTS } from '../../transports';
import { NOT_MEASURED, fmt, fmtCi, fmtFailed, draftLines, fmtItl, fmtMs, itlRuleLines, loadLabel, table, runLabel } from './report-format';
import type { Report } from '../report-types';
import { sectionsText } from '../sections/index';

export function renderText(r: Report, files: string[]): string {
  const out: string[] = [];
  out.push(`k6-llm-bench · ${r.benchmark} · run ${r.runId} · transport ${r.transport}`);
  for (const v of r.variants) {
    out.push(
      `  ${v.variant}: ${v.engineLabel} at ${v.url} — dialect ${v.dialect}${v.model ? `, model ${v.model}` : ''}` +
        `${v.serverMetrics ? `, server metrics ${v.serverMetrics}` : ''}`,
    );
  }
  if (r.preflightFailures.length > 0) {
    out.push('', 'PREFLIGHT FAILED, no load was sent:');
    for (const f of r.preflightFailures) {
      const text = f.message ?? `${f.headline} (full diagnosis in the "test aborted" line)`;
      // The diagnosis names its variant already ("dflash: GET /health …"): not twice.
      out.push(`  ✗ ${text.startsWith(`${f.variant}: `) ? text : `${f.variant}: ${text}`}`);
    }
    if (files.length > 0) out.push('', `Reports: ${files.join(', ')}`);
    return out.join('\n') + '\n';
  }
  for (const n of r.notMeasured) out.push(`  ${NOT_MEASURED}: ${n}`);
  out.push('');
  const sse = TRANSPORTS[r.transport].timesEvents;
  const head = ['cell', 'variant', 'reqs', 'fail', 'out tok/s [95% CI]', 'req/s', 'e2e p50', 'e2e p99'];
  if (sse) head.push('TTFT p50', 'TTFT p99', 'TTST p50', 'ITL p50', 'TPOT p50');
  head.push('accept len');
  const rows = r.runs.map((x) => {
    const row = [
      `${x.isl}/${x.osl} ${loadLabel(x.load)}`,
      runLabel(x),
      String(x.requests.total),
      fmtFailed(x.requests),
      x.throughput === null ? '–' : `${fmt(x.throughput)}${fmtCi(x.throughputCi, 0)}`,
      fmt(x.requestRate, 2),
      fmtMs(x.e2e?.p50),
      fmtMs(x.e2e?.p99),
    ];
    if (sse) row.push(fmtMs(x.ttft?.p50), fmtMs(x.ttft?.p99), fmtMs(x.ttst?.p50), fmtItl(x, 'p50'), fmtMs(x.tpot?.p50));
    row.push(x.acceptance ? `${x.acceptance.value.toFixed(2)}${fmtCi(x.acceptance.ci, 2)}${x.acceptance.source === 'server-metrics' ? '*' : ''}` : '–');
    return row;
  });
  out.push(table(head, rows));
  if (r.runs.some((x) => x.acceptance?.source === 'server-metrics'))
    out.push("  * acceptance length from the server's /metrics counters over the steady window");
  for (const line of [...itlRuleLines(r.runs), ...draftLines(r.runs)]) out.push(`  ${line}`);
  out.push(...sectionsText(r, 'checks'), ...sectionsText(r, 'conclusions'), ...sectionsText(r, 'details'), ...sectionsText(r, 'outcomes'));
  if (r.warnings.length > 0) {
    out.push('', 'Warnings:');
    for (const w of r.warnings) out.push(`  ! ${w}`);
  }
  if (files.length > 0) out.push('', `Reports: ${files.join(', ')}`);
  return out.join('\n') + '\n';
}
