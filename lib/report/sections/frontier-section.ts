// The throughput–interactivity frontier: per run, interactivity (output tokens/s per user,
// 1000 ÷ TPOT p50 in ms: the median request's decode rate, TTFT left out, stalls not averaged in)
// against throughput per GPU (output tokens/s ÷ GPUS; per deployment when GPUS is unset); each
// variant's Pareto frontier over its cells, and which variant gives the most throughput where.
import type { RunFigures } from '../figures/run-figures';
import { fmt, loadLabel } from '../render/report-format';
import { htmlSection } from '../render/html-parts';
import { dominance, dominanceSentence, paretoFront } from '../figures/pareto';
import { esc } from '../render/svg/common';
import { variantColors } from '../render/svg/report-charts';
import { lineChart, type Series } from '../render/svg/line';
import type { ReportSection } from './section';

export interface FrontierPoint {
  cellId: string;
  cell: string;
  /** Output tokens/s per user: 1000 ÷ TPOT p50 (ms). */
  x: number;
  /** Output tokens/s ÷ GPUS. */
  y: number;
}

export interface Frontier {
  /** 'per GPU', 'per deployment' (GPUS unset), or per GPU with the variants counted per deployment named. */
  per: string;
  variants: Array<{ variant: string; gpus: number | null; points: FrontierPoint[]; frontier: FrontierPoint[] }>;
  /** Which variant leads where; null when fewer than two variants have two points. */
  sentence: string | null;
  /** Why no point was drawn (no TPOT, no throughput); null when some were. */
  why: string | null;
}

function pointOf(x: RunFigures, gpus: number | null): FrontierPoint | null {
  if (x.throughput === null || x.tpot === null || !(x.tpot.p50 > 0)) return null;
  return { cellId: x.cellId, cell: `${x.isl}/${x.osl} ${loadLabel(x.load)}`, x: 1000 / x.tpot.p50, y: x.throughput / (gpus ?? 1) };
}

function perOf(gpus: Array<[string, number | null]>): string {
  const unset = gpus.filter(([, g]) => g === null).map(([v]) => v);
  if (unset.length === 0) return 'per GPU';
  return unset.length === gpus.length ? 'per deployment' : `per GPU (per deployment for ${unset.join(', ')}: GPUS unset)`;
}

const unitY = (f: Frontier) => `tok/s ${f.per.startsWith('per GPU (') ? 'per GPU' : f.per}`;
const pt = (p: FrontierPoint, f: Frontier) => `${p.cell} (${fmt(p.x)} tok/s per user, ${fmt(p.y)} ${unitY(f)})`;
const HOW = (f: Frontier) =>
  `Interactivity: output tokens/s per user, 1000 ÷ TPOT p50 (ms). Throughput: output tokens/s ${f.per}. ` +
  `A variant's frontier: its runs no other of its runs beats on both.`;

function chart(f: Frontier, colors: Map<string, string>): string {
  const series: Series[] = f.variants.flatMap((v) => {
    const color = colors.get(v.variant) ?? '#7F7F7F';
    return [
      { name: `${v.variant} frontier`, color, points: v.frontier.map((p) => ({ x: p.x, y: p.y })) },
      { name: `${v.variant} runs`, color, hollow: true, line: false, points: v.points.map((p) => ({ x: p.x, y: p.y })) },
    ];
  });
  return lineChart(series, { title: 'Throughput vs interactivity', xLabel: 'output tok/s per user', yLabel: `output ${unitY(f)}`, xScale: 'auto' });
}

export const frontier: ReportSection<Frontier> = {
  key: 'frontier',
  jsonKey: 'frontier',
  slot: 'details',
  build({ cfg, complete }) {
    if (complete.runs.every((x) => x.throughput === null)) return null;
    const gpus = new Map(cfg.variants.map((v) => [v.variant, v.cost?.gpus ?? null]));
    const names = [...new Set([...cfg.variants.map((v) => v.variant), ...complete.runs.map((x) => x.variant)])];
    const variants = names.map((variant) => {
      const points = complete.runs
        .filter((x) => x.variant === variant)
        .map((x) => pointOf(x, gpus.get(variant) ?? null))
        .filter((p): p is FrontierPoint => p !== null);
      return { variant, gpus: gpus.get(variant) ?? null, points, frontier: paretoFront(points) };
    });
    const f: Frontier = { per: perOf(names.map((v) => [v, gpus.get(v) ?? null])), variants, sentence: null, why: null };
    if (variants.every((v) => v.points.length === 0)) f.why = 'not measured: interactivity needs TPOT (TRANSPORT=sse) and throughput in the same run';
    else if (variants.filter((v) => v.points.length >= 2).length >= 2) {
      const s = dominanceSentence(dominance(variants.filter((v) => v.frontier.length > 0)), 'tok/s per user', (v) => fmt(v));
      f.sentence = `${s[0].toUpperCase()}${s.slice(1)}`;
    }
    return f;
  },
  text: (f) => [
    '',
    `Throughput–interactivity frontier (x: output tok/s per user = 1000 / TPOT p50 ms; y: output ${unitY(f)}):`,
    ...(f.why !== null ? [`  ${f.why}`] : f.variants.map((v) => `  ${v.variant}: ${v.frontier.map((p) => pt(p, f)).join(', ') || 'no run measured'}`)),
    ...(f.sentence === null ? [] : [`  ${f.sentence}`]),
  ],
  markdown: (f) => [
    '## Throughput–interactivity frontier',
    '',
    f.why ?? HOW(f),
    '',
    ...(f.why !== null ? [] : f.variants.map((v) => `- **${v.variant}** frontier: ${v.frontier.map((p) => pt(p, f)).join(', ') || 'no run measured'}`)),
    ...(f.sentence === null ? [] : ['', f.sentence]),
    '',
  ],
  html: (f, r) =>
    htmlSection(
      'Throughput–interactivity frontier',
      `<p class="legend-note">${esc(f.why ?? HOW(f))}</p>${f.sentence === null ? '' : `<div class="box callout">${esc(f.sentence)}</div>`}` +
        (f.why === null ? `<div class="figs">${chart(f, variantColors(r))}</div>` : ''),
    ),
  json: (f) => ({
    x: 'output tokens/s per user (1000 / TPOT p50 ms)',
    y: `output tokens/s ${f.per}`,
    not_measured: f.why,
    dominance: f.sentence,
    variants: f.variants.map((v) => ({
      variant: v.variant,
      gpus: v.gpus ?? 1,
      gpus_set: v.gpus !== null,
      points: v.points.map((p) => ({ cell: p.cellId, tokens_per_s_per_user: p.x, tokens_per_s_per_gpu: p.y })),
      frontier: v.frontier.map((p) => p.cellId),
    })),
  }),
};
