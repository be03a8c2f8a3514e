// The SLOs: each k6 threshold the run declared (SLO_* variables) and whether it held.
import { KEEP, VARIANT_UP } from '../../plan/summary-keys';
import { htmlSection } from '../render/html-parts';
import type { SummaryMetrics } from '../figures/run-figures';
import { esc } from '../render/svg/common';
import type { Threshold } from '../report-types';
import type { ReportSection } from './section';

/** The real thresholds (SLOs): the always-true declarations that keep sub-metrics are left out. */
function thresholds(m: SummaryMetrics): Threshold[] {
  const keep = new Set<string>(Object.values(KEEP));
  const out: Threshold[] = [];
  for (const [name, metric] of Object.entries(m)) {
    if (!metric.thresholds) continue;
    const v = metric.values;
    const samples = (v.count ?? 0) + (v.passes ?? 0) + (v.fails ?? 0);
    for (const [expression, t] of Object.entries(metric.thresholds)) {
      if (keep.has(expression)) continue;
      // "No variant went down" holds without a sample: that is its point.
      out.push({ metric: name, expression, ok: samples > 0 || expression === VARIANT_UP ? t.ok : null });
    }
  }
  // k6 hands the metrics over in no fixed order: sorted, every report of a run lists them alike.
  return out.sort((a, b) => (a.metric === b.metric ? a.expression.localeCompare(b.expression) : a.metric.localeCompare(b.metric)));
}

export const slos: ReportSection<Threshold[]> = {
  key: 'thresholds',
  jsonKey: 'thresholds',
  slot: 'outcomes',
  build: ({ data }) => thresholds(data.metrics),
  text: (ts) =>
    ts.length > 0
      ? [
          '',
          'SLOs:',
          ...ts.map((t) => `  ${t.ok === null ? '–' : t.ok ? '✓' : '✗'} ${t.metric} ${t.expression}${t.ok === null ? ' (not evaluated: no samples)' : ''}`),
        ]
      : [],
  markdown: (ts) =>
    ts.length
      ? ['## SLOs', '', ...ts.map((t) => `- ${t.ok === null ? '➖ not evaluated (no samples):' : t.ok ? '✅' : '❌'} \`${t.metric}\` \`${t.expression}\``), '']
      : [],
  html(ts) {
    if (ts.length === 0) return '';
    const rows = ts.map(
      (t) =>
        `<tr><td class="${t.ok === null ? 'na' : t.ok ? 'ok' : 'bad'}">${t.ok === null ? '– not evaluated (no samples)' : t.ok ? '✓ met' : '✗ missed'}` +
        `</td><td><code>${esc(t.metric)}</code></td><td><code>${esc(t.expression)}</code></td></tr>`,
    );
    return htmlSection(
      'SLOs',
      `<table class="slo"><thead><tr><th>outcome</th><th>metric</th><th>threshold</th></tr></thead><tbody>${rows.join('')}</tbody></table>`,
    );
  },
  json: (ts) => ts,
};
