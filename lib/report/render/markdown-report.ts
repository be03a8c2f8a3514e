// report.md: the same content as the html report, as tables for a PR comment or a wiki.
import { TRANSPORTS } from '../../transports';
import { NOT_MEASURED, fmt, fmtCi, fmtFailed, draftLines, fmtItl, fmtMs, itlRuleLines, loadLabel, mdTable, runLabel } from './report-format';
import type { Report } from '../report-types';
import { sectionsMarkdown } from '../sections/index';

export function renderMarkdown(r: Report): string {
  const out: string[] = [];
  out.push(`# ${r.benchmark} — ${r.runId}`, '');
  out.push(`Generated ${r.generatedAt}, transport \`${r.transport}\`.`, '');
  out.push(
    mdTable(
      ['variant', 'engine', 'URL', 'dialect', 'model', 'server metrics'],
      r.variants.map((v) => [v.variant, v.engineLabel, v.url, v.dialect, v.model || '–', v.serverMetrics ?? NOT_MEASURED]),
    ),
    '',
  );
  if (r.preflightFailures.length) {
    out.push(
      '**Preflight failed, no load was sent:**',
      '',
      ...r.preflightFailures.map((f) => `- ${f.variant}: ${f.headline}${f.message ? `. ${f.message}` : ''}`),
      '',
    );
  }
  if (r.notMeasured.length) {
    out.push('**Not measured:**', '', ...r.notMeasured.map((n) => `- ${n}`), '');
  }
  out.push(...sectionsMarkdown(r, 'conclusions'));
  out.push('## Per cell and variant', '');
  const sse = TRANSPORTS[r.transport].timesEvents;
  const head = ['ISL', 'OSL', 'load', 'variant', 'requests', 'failed', 'output tok/s [95% CI]', 'req/s', 'goodput req/s', 'e2e p50', 'e2e p90', 'e2e p99'];
  if (sse) head.push('TTFT p50', 'TTFT p99', 'TTST p50', 'ITL p50', 'ITL p99', 'TPOT p50');
  head.push('accept. length', 'server TTFT mean', 'server ITL mean');
  out.push(
    mdTable(
      head,
      r.runs.map((x) => {
        const row = [
          String(x.isl),
          String(x.osl),
          loadLabel(x.load),
          runLabel(x),
          String(x.requests.total),
          fmtFailed(x.requests),
          x.throughput === null ? '–' : `${fmt(x.throughput)}${fmtCi(x.throughputCi, 0)}`,
          fmt(x.requestRate, 2),
          fmt(x.goodput, 2),
          fmtMs(x.e2e?.p50),
          fmtMs(x.e2e?.p90),
          fmtMs(x.e2e?.p99),
        ];
        if (sse) row.push(fmtMs(x.ttft?.p50), fmtMs(x.ttft?.p99), fmtMs(x.ttst?.p50), fmtItl(x, 'p50'), fmtItl(x, 'p99'), fmtMs(x.tpot?.p50));
        row.push(
          x.acceptance ? `${x.acceptance.value.toFixed(2)}${fmtCi(x.acceptance.ci, 2)} (${x.acceptance.source})` : '–',
          fmtMs(x.server?.ttftMeanMs),
          fmtMs(x.server?.itlMeanMs),
        );
        return row;
      }),
    ),
    '',
  );
  const rules = itlRuleLines(r.runs);
  if (rules.length) out.push('**How ITL was measured:**', '', ...rules.map((l) => `- ${l}`), '');
  const drafts = draftLines(r.runs);
  if (drafts.length) out.push('**Speculative drafts:**', '', ...drafts.map((l) => `- ${l}`), '');
  out.push(...sectionsMarkdown(r, 'checks'), ...sectionsMarkdown(r, 'details'), ...sectionsMarkdown(r, 'outcomes'));
  if (r.warnings.length) out.push('## Warnings', '', ...r.warnings.map((w) => `- ${w}`), '');
  out.push(
    '## Settings',
    '',
    mdTable(
      ['setting', 'value'],
      Object.entries(r.settings)
        .filter(([, v]) => v !== null)
        .map(([k, v]) => [k, String(v)]),
    ),
    '',
  );
  return out.join('\n');
}
