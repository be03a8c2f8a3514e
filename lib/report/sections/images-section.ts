// IMAGES: per run of a cell with images, the image tokens per request and the TTFT the images
// cost. No server's reply says which of its prompt tokens were images (OpenAI-style usage gives
// one prompt_tokens), so both are differences against the run of the same variant, ISL, OSL and
// load without images: the server's mean prompt count with the images minus without, and the
// TTFT (p50 and mean) with minus without. Where a side is missing, the figure is not measured,
// with the reason; nothing is assumed.
import type { Run } from '../../plan/matrix';
import { subKey } from '../../plan/summary-keys';
import { loadLabel, mdTable } from '../render/report-format';
import { htmlSection, clientTable, legendNote } from '../render/html-parts';
import type { RunFigures, SummaryMetrics } from '../figures/run-figures';
import type { ReportSection } from './section';

export interface ImagesRow {
  variant: string;
  cellId: string;
  cell: string;
  /** "1x336x336". */
  images: string;
  /** The run of the same variant and cell without images; null when the plan has none. */
  baselineCell: string | null;
  /** The server's mean prompt_tokens per request with the images, and over how many replies; null when none said. */
  promptTokens: { mean: number; requests: number } | null;
  baselinePromptTokens: { mean: number; requests: number } | null;
  imageTokens: number | null;
  imageTokensWhy: string | null;
  ttftP50Ms: number | null;
  baselineTtftP50Ms: number | null;
  ttftCostP50Ms: number | null;
  ttftCostMeanMs: number | null;
  ttftWhy: string | null;
}

function prompts(m: SummaryMetrics, scenario: string): ImagesRow['promptTokens'] {
  const v = m[subKey('promptLength', scenario)]?.values;
  return v && v.count > 0 ? { mean: v.avg, requests: v.count } : null;
}

const sameCell = (a: RunFigures, b: RunFigures) =>
  a.variant === b.variant && a.isl === b.isl && a.osl === b.osl && a.repeat === b.repeat && loadLabel(a.load) === loadLabel(b.load);

function rowOf(x: RunFigures, runs: RunFigures[], byScenario: Map<string, Run>, m: SummaryMetrics): ImagesRow | null {
  const spec = byScenario.get(x.scenario)?.cell.images;
  if (spec === undefined) return null;
  const base = runs.find((y) => y !== x && byScenario.get(y.scenario)?.cell.images === undefined && sameCell(x, y)) ?? null;
  const p = prompts(m, x.scenario);
  const bp = base ? prompts(m, base.scenario) : null;
  const noBase = 'no run without images at this ISL, OSL and load (list 0 in IMAGES beside the sizes)';
  const noCount = (which: string) => `the server's replies ${which} gave no prompt_tokens`;
  const imageTokensWhy = base === null ? noBase : p === null ? noCount('with images') : bp === null ? noCount('without images') : null;
  const [t, bt] = [x.ttft, base?.ttft ?? null];
  const noTtft = 'no TTFT was measured (the transport times no first token, or no request succeeded)';
  const ttftWhy = base === null ? noBase : t === null || bt === null ? noTtft : null;
  return {
    variant: x.variant,
    cellId: x.cellId,
    cell: `${x.isl}/${x.osl} ${loadLabel(x.load)}`,
    images: `${spec.count}x${spec.width}x${spec.height}`,
    baselineCell: base?.cellId ?? null,
    promptTokens: p,
    baselinePromptTokens: bp,
    imageTokens: imageTokensWhy === null && p && bp ? p.mean - bp.mean : null,
    imageTokensWhy,
    ttftP50Ms: t?.p50 ?? null,
    baselineTtftP50Ms: bt?.p50 ?? null,
    ttftCostP50Ms: ttftWhy === null && t && bt ? t.p50 - bt.p50 : null,
    ttftCostMeanMs: ttftWhy === null && t && bt ? t.avg - bt.avg : null,
    ttftWhy,
  };
}

const num = (v: number | null, d = 1) => (v === null ? '–' : v.toFixed(d));
const signed = (v: number | null) => (v !== null && v >= 0 ? `+${num(v)}` : num(v));
const HEAD = ['cell', 'variant', 'images', 'prompt tokens (with / without)', 'image tokens / request', 'TTFT p50 (with / without)', 'TTFT cost p50 / mean'];
const cells = (r: ImagesRow) => [
  r.cell,
  r.variant,
  r.images,
  `${num(r.promptTokens?.mean ?? null)} / ${num(r.baselinePromptTokens?.mean ?? null)}`,
  r.imageTokens === null ? 'not measured' : num(r.imageTokens),
  `${num(r.ttftP50Ms)} / ${num(r.baselineTtftP50Ms)} ms`,
  r.ttftCostP50Ms === null ? 'not measured' : `${num(r.ttftCostP50Ms)} / ${num(r.ttftCostMeanMs)} ms`,
];
const LEGEND =
  "No reply says which prompt tokens were images: image tokens per request are the server's mean " +
  "prompt_tokens with the images minus the same cell's without, and the TTFT cost is the TTFT with " +
  'minus without.';
const why = (rows: ImagesRow[]) =>
  rows.flatMap((r) => [
    ...(r.imageTokensWhy ? [`${r.variant} ${r.cellId}: image tokens not measured: ${r.imageTokensWhy}.`] : []),
    ...(r.ttftWhy ? [`${r.variant} ${r.cellId}: TTFT cost not measured: ${r.ttftWhy}.`] : []),
  ]);

export const images: ReportSection<ImagesRow[]> = {
  key: 'images',
  jsonKey: 'images',
  slot: 'details',
  build({ runs, plan, data }) {
    const byScenario = new Map(plan.runs.map((r) => [r.scenario, r]));
    const rows = runs.map((x) => rowOf(x, runs, byScenario, data.metrics)).filter((r): r is ImagesRow => r !== null);
    return rows.length > 0 ? rows : null;
  },
  text: (rows) => [
    '',
    'Images (IMAGES):',
    ...rows.map(
      (r) =>
        `  ${r.variant} ${r.cellId}: ${r.images}, ${r.imageTokens === null ? 'image tokens not measured' : `${num(r.imageTokens)} image tokens per request`}` +
        `, ` +
        (`${r.ttftCostP50Ms === null ? 'TTFT cost not measured' : `TTFT ${signed(r.ttftCostP50Ms)} ms p50 (${signed(r.ttftCostMeanMs)} ms mean)`}` +
          ` against ${r.baselineCell ?? 'no cell without images'}`),
    ),
    ...why(rows).map((l) => `  ${l}`),
  ],
  markdown: (rows) => ['## Images', '', LEGEND, '', mdTable(HEAD, rows.map(cells)), '', ...why(rows).map((l) => `- ${l}`), ...(why(rows).length ? [''] : [])],
  html: (rows) =>
    htmlSection('Images', legendNote(LEGEND) + clientTable({ head: HEAD, rows: rows.map(cells), numeric: (j) => j >= 3 }) + why(rows).map(legendNote).join('')),
  json: (rows) =>
    rows.map((r) => ({
      variant: r.variant,
      cell: r.cellId,
      images: r.images,
      baseline_cell: r.baselineCell,
      prompt_tokens_mean: r.promptTokens?.mean ?? null,
      baseline_prompt_tokens_mean: r.baselinePromptTokens?.mean ?? null,
      image_tokens_per_request: r.imageTokens,
      image_tokens_not_measured: r.imageTokensWhy,
      ttft_p50_ms: r.ttftP50Ms,
      baseline_ttft_p50_ms: r.baselineTtftP50Ms,
      ttft_cost_p50_ms: r.ttftCostP50Ms,
      ttft_cost_mean_ms: r.ttftCostMeanMs,
      ttft_cost_not_measured: r.ttftWhy,
    })),
};
