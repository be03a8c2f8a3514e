// Where drafts die: for each run whose server counted its verify steps by draft position (per
// request in vLLM's metrics.speculative_decoding, else its per-position /metrics counter over the
// steady window), the share of steps that accepted each draft position. One chart per cell, one
// line per variant; the acceptance length beside it, each named by its source.
import { ACCEPTANCE_SOURCES, type AcceptanceByPosition } from '../figures/draft-acceptance';
import { fmtCi, ciBounds } from '../render/report-format';
import type { RunFigures } from '../figures/run-figures';
import { esc } from '../render/svg/common';
import { cellLabel, variantColors } from '../render/svg/report-charts';
import { lineChart, type Series } from '../render/svg/line';
import type { ReportSection } from './section';

interface Row {
  variant: string;
  cellId: string;
  where: string;
  length: RunFigures['acceptance'];
  positions: AcceptanceByPosition;
}

const pct = (x: number) => `${(x * 100).toFixed(0)} %`;
const lengthText = (a: RunFigures['acceptance']) =>
  a === null ? 'acceptance length not measured' : `acceptance length ${a.value.toFixed(2)}${fmtCi(a.ci, 2)} (${a.source})`;

export const acceptance: ReportSection<Row[]> = {
  key: 'acceptanceByPosition',
  jsonKey: 'acceptance_by_position',
  slot: 'details',
  build: ({ runs, where, plan }) => {
    const rows: Row[] = [];
    for (const x of runs) {
      if (x.acceptanceByPosition === null) continue;
      const run = plan.runs.find((r) => r.scenario === x.scenario);
      rows.push({ variant: x.variant, cellId: x.cellId, where: run ? where(run) : x.cellId, length: x.acceptance, positions: x.acceptanceByPosition });
    }
    return rows.length > 0 ? rows : null;
  },
  text: (rows) => [
    '',
    'Acceptance by draft position (share of verify steps that accepted it):',
    ...rows.map(
      (r) =>
        `  ${r.variant} ${r.where}: ${r.positions.byPosition.map((p, i) => `${i + 1}: ${pct(p)}`).join(', ') || 'no draft accepted'} — ` +
        `${r.positions.steps} steps (${r.positions.source}), ${lengthText(r.length)}`,
    ),
  ],
  markdown: (rows) => {
    const depth = Math.max(...rows.map((r) => r.positions.byPosition.length));
    const head = ['variant', 'cell', 'source', 'steps', 'acceptance length', ...Array.from({ length: depth }, (_, i) => `pos ${i + 1}`)];
    const lines = [
      '### Acceptance by draft position',
      '',
      'The share of verify steps that accepted each draft position; source: `vllm-metrics` (each reply’s ' +
        '`metrics.speculative_decoding`) or `server-metrics` (the per-position counter of its /metrics over ' +
        'the steady window).',
      '',
      `| ${head.join(' | ')} |`,
      `|${head.map(() => '---').join('|')}|`,
    ];
    for (const r of rows) {
      const cells = Array.from({ length: depth }, (_, i) => (i < r.positions.byPosition.length ? pct(r.positions.byPosition[i] as number) : '0 %'));
      lines.push(
        `| ${r.variant} | ${r.cellId} | ${r.positions.source} | ${r.positions.steps} | ` +
          `${r.length ? `${r.length.value.toFixed(2)}${fmtCi(r.length.ci, 2)}` : '–'} | ${cells.join(' | ')} |`,
      );
    }
    return [...lines, ''];
  },
  html: (rows, report) => {
    const colors = variantColors(report);
    const charts: string[] = [];
    for (const cellId of [...new Set(rows.map((r) => r.cellId))]) {
      const series: Series[] = rows
        .filter((r) => r.cellId === cellId)
        .map((r) => ({
          name: `${r.variant}: ${lengthText(r.length)}`,
          color: colors.get(r.variant) ?? '#7F7F7F',
          points: r.positions.byPosition.map((y, i) => ({ x: i + 1, y })),
        }));
      charts.push(
        lineChart(series, {
          title: `Acceptance by draft position, ${cellLabel(report, cellId)}`,
          xLabel: 'draft position',
          yLabel: 'share of verify steps accepting it',
          xScale: 'linear',
          yScale: 'linear',
          yFmt: (v) => `${Math.round(v * 100)} %`,
        }),
      );
    }
    return (
      `<section class="acceptance"><h2>Acceptance by draft position</h2>` +
      `<p>Where drafts die: the share of verify steps that accepted each draft position (a step accepts position i only if it accepted every one before it). ` +
      `Sources: ${[...new Set(rows.map((r) => r.positions.source))].map((src) => `<b>${src}</b>, ${esc(ACCEPTANCE_SOURCES[src])}`).join('; ')}.</p>` +
      charts.join('') +
      `</section>`
    );
  },
  json: (rows) =>
    rows.map((r) => ({
      variant: r.variant,
      cell: r.cellId,
      source: r.positions.source,
      verify_steps: r.positions.steps,
      steps_by_accepted_drafts: r.positions.histogram,
      accepted_share_by_position: r.positions.byPosition,
      acceptance_length: r.length?.value ?? null,
      acceptance_length_ci95: ciBounds(r.length?.ci),
      acceptance_length_source: r.length?.source ?? null,
    })),
};
