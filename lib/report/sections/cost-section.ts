// Cost per token: what each run's measured throughput costs at GPU_HOUR_COST × GPUS (per variant
// <PREFIX>_GPU_HOUR_COST, <PREFIX>_GPUS), in dollars per million output tokens and, where the
// server counted prompt tokens, per million input tokens. Nothing set: the section says nothing
// and summary.json's cost is null; never a cost of 0.
import type { RunFigures } from '../figures/run-figures';
import { hourly, perMillion, type Price } from '../figures/token-price';
import { fmt, loadLabel, mdTable, ciBounds } from '../render/report-format';
import { htmlSection, clientTable, legendNote } from '../render/html-parts';
import type { ReportSection } from './section';

export interface CostRow {
  variant: string;
  cellId: string;
  cell: string;
  /** Dollars per GPU-hour and GPUs (null: GPUS unset, counted 1); null cost: not set for this variant. */
  gpuHourCost: number | null;
  gpus: number | null;
  output: Price | null;
  input: Price | null;
  /** Why a price is null; null when both are given. */
  why: string | null;
}

const NO_INPUT = 'input: the server counted no prompt tokens';

function rowOf(x: RunFigures, gpuHourCost: number | null, gpus: number | null): CostRow {
  const base = { variant: x.variant, cellId: x.cellId, cell: `${x.isl}/${x.osl} ${loadLabel(x.load)}`, gpuHourCost, gpus };
  if (gpuHourCost === null) return { ...base, output: null, input: null, why: 'GPU_HOUR_COST not set for this variant' };
  if (x.throughput === null) return { ...base, output: null, input: null, why: 'throughput not measured' };
  const perHour = hourly(gpuHourCost, gpus);
  // Input tokens/s: the output rate times the run's input-to-output token ratio (same requests).
  const ratio = x.tokens.input > 0 && x.tokens.output > 0 ? x.tokens.input / x.tokens.output : null;
  const ci = x.throughputCi;
  const input = ratio === null ? null : perMillion(perHour, x.throughput * ratio, ci && { lo: ci.lo * ratio, hi: ci.hi * ratio });
  return { ...base, output: perMillion(perHour, x.throughput, ci), input, why: input === null ? NO_INPUT : null };
}

const usd = (v: number) => `$${v < 0.01 ? v.toPrecision(2) : fmt(v, 2)}`;
const price = (p: Price | null) => (p === null ? '–' : `${usd(p.value)}${p.ci ? ` [${fmt(p.ci.lo, 2)}, ${fmt(p.ci.hi, 2)}]` : ''}`);
const deployment = (r: CostRow) => (r.gpuHourCost === null ? '–' : `$${fmt(r.gpuHourCost, 2)}/GPU-h × ${r.gpus ?? 1}${r.gpus === null ? ' (GPUS unset)' : ''}`);
const HEAD = ['cell', 'variant', 'deployment', '$ / 1M output tokens [95% CI]', '$ / 1M input tokens [95% CI]', 'not measured'];
const cells = (r: CostRow) => [r.cell, r.variant, deployment(r), price(r.output), price(r.input), r.why ?? ''];
const HOW =
  'Dollars per million tokens = GPU_HOUR_COST × GPUS ÷ (measured tokens/s × 3600) × 1e6, all of the ' +
  'deployment’s time charged to the kind of token priced; the interval is the throughput’s. Energy is ' +
  'in “Energy per token” (GPU_METRICS_URL).';

export const cost: ReportSection<CostRow[]> = {
  key: 'cost',
  jsonKey: 'cost',
  slot: 'details',
  build({ cfg, runs }) {
    const of = new Map(cfg.variants.map((v) => [v.variant, v.cost]));
    if (![...of.values()].some((c) => (c?.gpuHourCost ?? null) !== null) || runs.length === 0) return null;
    return runs.map((x) => rowOf(x, of.get(x.variant)?.gpuHourCost ?? null, of.get(x.variant)?.gpus ?? null));
  },
  text: (rows) => [
    '',
    'Cost per million tokens (USD, at the measured throughput; GPU_HOUR_COST × GPUS):',
    ...rows.map(
      (r) =>
        `  ${r.variant} ${r.cellId}: ${r.output === null ? `not measured (${r.why})` : `${price(r.output)} per 1M output tokens`}` +
        `${r.input === null ? '' : `, ${price(r.input)} per 1M input tokens`} (${deployment(r)})`,
    ),
  ],
  markdown: (rows) => ['## Cost per token', '', HOW, '', mdTable(HEAD, rows.map(cells)), ''],
  html(rows) {
    const table = clientTable({ head: HEAD, rows: rows.map(cells), numeric: (j) => j >= 3 && j <= 4 });
    return htmlSection('Cost per token', legendNote(HOW) + table);
  },
  json: (rows) => ({
    unit: 'USD per million tokens',
    ci_level: 0.95,
    runs: rows.map((r) => ({
      variant: r.variant,
      cell: r.cellId,
      gpu_hour_cost_usd: r.gpuHourCost,
      gpus: r.gpus ?? 1,
      gpus_set: r.gpus !== null,
      output_usd_per_million_tokens: r.output?.value ?? null,
      output_usd_per_million_tokens_ci: ciBounds(r.output?.ci),
      input_usd_per_million_tokens: r.input?.value ?? null,
      input_usd_per_million_tokens_ci: ciBounds(r.input?.ci),
      not_measured: r.why,
    })),
  }),
};
