// Energy per output token, from GPU telemetry (GPU_METRICS_URL, per variant <PREFIX>_GPU_METRICS_URL):
// per run, the GPUs' joules over the steady slices (the probe's llm_gpu_energy, summed over the
// exporter's GPUs) divided by the output tokens of the same slices (llm_window_output_tokens, by
// the time each token arrived: the tokens the throughput counts); with the mean power, utilisation
// and memory, and an interval from the per-slice ratios (batch means, as the throughput's). A run
// without telemetry has null figures and says why: never 0.
import type { BenchConfig } from '../../config/config-types';
import type { Plan, Run } from '../../plan/matrix';
import { probeScenario } from '../../plan/matrix';
import { subKey } from '../../plan/summary-keys';
import { GPU_ENERGY_SOURCES, GPU_EXPORTERS, GPU_NOT_MEASURED, GPU_PROFILES, type GpuEnergySource, type GpuExporter } from '../../server-metrics/gpu';
import type { Interval } from '../../stats/bootstrap';
import { tMeanInterval } from '../../stats/t-interval';
import { fmt, loadLabel, mdTable, ciBounds } from '../render/report-format';
import { htmlSection, clientTable, legendNote } from '../render/html-parts';
import type { RunFigures, SummaryMetrics } from '../figures/run-figures';
import type { ReportSection } from './section';

export interface EnergyRow {
  variant: string;
  cellId: string;
  cell: string;
  exporter: GpuExporter | null;
  source: GpuEnergySource | null;
  gpus: number | null;
  /** Joules over the steady slices, all GPUs. */
  joules: number | null;
  /** Output tokens over the same slices. */
  tokens: number | null;
  jPerToken: number | null;
  ci: Interval | null;
  /** J/token of each steady slice with tokens: what a comparison of two runs reads. */
  slices: number[] | null;
  /** Why there is no interval, when there is a value. */
  ciWhy: string | null;
  meanPowerW: number | null;
  utilizationPct: number | null;
  memoryUsedMiB: number | null;
  /** Why the figures are null; null when measured. */
  why: string | null;
}

export interface Energy {
  /** Some variant set GPU_METRICS_URL: the renderings say something. */
  any: boolean;
  rows: EnergyRow[];
}

const count = (m: SummaryMetrics, key: string): number | null => {
  const v = m[key]?.values;
  return v === undefined ? null : (v.count ?? 0);
};
const single = (m: SummaryMetrics, key: string): number | null => {
  const v = m[key]?.values;
  return v && v.count ? v.avg : null;
};

/** The reason of a variant without telemetry (npm run compare tells it from a failed probe). */
export const ENERGY_NO_URL = 'GPU_METRICS_URL not set for this variant';

function whyNot(m: SummaryMetrics, plan: Plan, probe: string, url: string | null): string {
  if (url === null) return ENERGY_NO_URL;
  if (plan.requests !== null) return 'REQUESTS runs have no steady window to scrape the GPUs over';
  for (const reason of Object.keys(GPU_NOT_MEASURED) as Array<keyof typeof GPU_NOT_MEASURED>)
    if ((count(m, subKey('gpuNotMeasured', probe, { gpu_reason: reason })) ?? 0) > 0) return GPU_NOT_MEASURED[reason];
  return 'the GPU probe recorded nothing for this run (see the k6 log)';
}

function rowOf(x: RunFigures, run: Run, m: SummaryMetrics, plan: Plan, url: string | null): EnergyRow {
  const probe = probeScenario(run);
  const base: EnergyRow = {
    variant: x.variant,
    cellId: x.cellId,
    cell: `${x.isl}/${x.osl} ${loadLabel(x.load)}`,
    exporter: null,
    source: null,
    gpus: null,
    joules: null,
    tokens: null,
    jPerToken: null,
    ci: null,
    slices: null,
    ciWhy: null,
    meanPowerW: null,
    utilizationPct: null,
    memoryUsedMiB: null,
    why: null,
  };
  let found: [GpuExporter, GpuEnergySource, number] | null = null;
  for (const e of GPU_EXPORTERS)
    for (const s of GPU_ENERGY_SOURCES) {
      const n = count(m, subKey('gpuCount', probe, { gpu_exporter: e, gpu_energy_source: s })) ?? 0;
      if (n > 0) found = [e, s, n];
    }
  if (url === null || found === null || plan.requests !== null) return { ...base, why: whyNot(m, plan, probe, url) };
  // The steady slices the throughput is over (a stopped run: those it measured whole).
  const first = plan.slices > 1 ? 1 : 0;
  let joules = 0;
  let tokens = 0;
  const ratios: number[] = [];
  for (let i = 0; i < x.slices.length; i++) {
    const slice = String(first + i);
    const j = count(m, subKey('gpuEnergy', probe, { slice }));
    const t = count(m, subKey('windowTokens', run.scenario, { slice })) ?? 0;
    if (j === null) return { ...base, why: `no GPU energy for steady slice ${slice}` };
    joules += j;
    tokens += t;
    if (t > 0) ratios.push(j / t);
  }
  const [exporter, source, gpus] = found;
  const measured = {
    ...base,
    exporter,
    source,
    gpus,
    joules,
    tokens,
    meanPowerW: single(m, subKey('gpuPower', probe)),
    utilizationPct: single(m, subKey('gpuUtilization', probe)),
    memoryUsedMiB: single(m, subKey('gpuMemoryUsed', probe)),
  };
  if (tokens === 0) return { ...measured, why: 'no output tokens arrived in the steady window' };
  const ci = tMeanInterval(ratios, 0.95);
  return {
    ...measured,
    jPerToken: joules / tokens,
    ci,
    slices: ratios,
    ciWhy: ci !== null ? null : `one steady slice with tokens (SLICES=${plan.slices}): no interval`,
  };
}

const jt = (v: number) => (v < 0.1 ? v.toPrecision(2) : fmt(v, v < 10 ? 3 : 1));
const how = (r: EnergyRow) =>
  r.exporter === null ? '' : `${GPU_PROFILES[r.exporter].label}, ${r.source === 'energy-counter' ? 'energy counter' : 'no energy counter: power × time'}`;
const value = (r: EnergyRow) =>
  r.jPerToken === null ? `not measured (${r.why})` : `${jt(r.jPerToken)} J/token${r.ci ? ` [${jt(r.ci.lo)}, ${jt(r.ci.hi)}]` : ''}`;
const power = (r: EnergyRow) => (r.meanPowerW === null ? '–' : `${fmt(r.meanPowerW, 0)} W`);
const util = (r: EnergyRow) => (r.utilizationPct === null ? '–' : `${fmt(r.utilizationPct, 0)}%`);
const mem = (r: EnergyRow) => (r.memoryUsedMiB === null ? '–' : `${fmt(r.memoryUsedMiB / 1024, 1)} GiB`);

const HEAD = ['cell', 'variant', 'J / output token [95% CI]', 'mean power', 'GPU util', 'memory used', 'GPUs', 'source'];
const cells = (r: EnergyRow) => [r.cell, r.variant, value(r), power(r), util(r), mem(r), r.gpus === null ? '–' : String(r.gpus), how(r)];
const HOW =
  "Joules per output token = the GPUs' energy over the steady slices (the exporter's energy counter " +
  'difference, summed over its GPUs; power × time where the exporter has no counter) ÷ the output ' +
  'tokens that arrived in those slices (the tokens the throughput counts); the interval is over the ' +
  'per-slice ratios. Without GPU telemetry the energy is not measured.';

export const energy: ReportSection<Energy> = {
  key: 'energy',
  jsonKey: 'energy',
  slot: 'details',
  build({ cfg, plan, data, runs }) {
    if (runs.length === 0) return null;
    const urls = new Map((cfg as BenchConfig).variants.map((v) => [v.variant, v.gpuMetricsUrl ?? null]));
    const rows = runs.flatMap((x) => {
      const run = plan.runs.find((r) => r.scenario === x.scenario);
      return run ? [rowOf(x, run, data.metrics, plan, urls.get(x.variant) ?? null)] : [];
    });
    return { any: [...urls.values()].some((u) => u !== null), rows };
  },
  text: (e) =>
    e.any
      ? [
          '',
          'Energy per output token (GPU_METRICS_URL):',
          ...e.rows.map(
            (r) =>
              `  ${r.variant} ${r.cellId}: ${value(r)}` +
              (r.jPerToken === null ? '' : `, ${power(r)} mean over ${r.gpus} GPU(s), ${util(r)} utilisation, ${mem(r)} used (${how(r)})`),
          ),
        ]
      : [],
  markdown: (e) => (e.any ? ['## Energy per token', '', HOW, '', mdTable(HEAD, e.rows.map(cells)), ''] : []),
  html(e) {
    if (!e.any) return '';
    const table = clientTable({ head: HEAD, rows: e.rows.map(cells), numeric: (j) => j >= 2 && j <= 6 });
    return htmlSection('Energy per token', legendNote(HOW) + table);
  },
  json: (e) => ({
    unit: 'J per output token',
    ci_level: 0.95,
    runs: e.rows.map((r) => ({
      variant: r.variant,
      cell: r.cellId,
      j_per_output_token: r.jPerToken,
      j_per_output_token_ci: ciBounds(r.ci),
      j_per_output_token_slices: r.slices,
      ci_not_measured: r.ciWhy,
      joules: r.joules,
      output_tokens: r.tokens,
      mean_power_w: r.meanPowerW,
      gpu_utilization_pct: r.utilizationPct,
      gpu_memory_used_mib: r.memoryUsedMiB,
      gpus: r.gpus,
      exporter: r.exporter,
      energy_source: r.source,
      not_measured: r.why,
    })),
  }),
};
