// The capacity report: per variant its capacity with an interval, the goodput there, the search
// path (every load measured, each p99 against its SLO) and the step that broke each SLO; for two
// variants the ratio at equal SLO. One model, rendered for the terminal, report.md and summary.json
// here and report.html in html.ts. Pure.
import type { GpuCost } from '../config/config-types';
import { display } from '../report/figures/ab-comparison';
import { hourly, perMillion, type Price } from '../report/figures/token-price';
import { fmt, fmtMs, table } from '../report/render/report-format';
import { capacityOf, capacityRatio, type Capacity, type CapacityRatio } from './estimate';
import { label } from './search';
import type { PointDetail, VariantSearch } from './runner';
import { ENERGY_NO_URL } from '../report/sections/energy-section';
import type { Interval } from '../stats/bootstrap';
import type { CapacitySettings, Criterion } from './settings';

export const CAPACITY_FORMAT = 'k6-llm-bench-capacity/1';

export interface VariantCapacity extends VariantSearch {
  capacity: Capacity;
  /** Requests per second within every per-request SLO at the highest load that met every SLO. */
  goodputAtCapacity: number | null;
  cost: CapacityCost;
  energy: CapacityEnergy;
}

/** Joules per output token at the capacity step, from the GPU telemetry its runs scraped (GPU_METRICS_URL). */
export interface CapacityEnergy {
  load: number | null;
  step: number | null;
  jPerToken: number | null;
  ci: Interval | null;
  /** Why there is none; null when measured. */
  notMeasured: string | null;
}

/** Energy per output token at a variant's capacity step; never 0: unmeasured is null with the reason. */
export function capacityEnergy(capacity: Capacity, points: readonly PointDetail[]): CapacityEnergy {
  const best = capacity.bestPassing === null ? null : (points.find((p) => p.load === capacity.bestPassing) ?? null);
  const out: CapacityEnergy = { load: best?.load ?? null, step: best?.step ?? null, jPerToken: null, ci: null, notMeasured: null };
  if (best === null) return { ...out, notMeasured: 'no load met every SLO' };
  if ((best.jPerToken ?? null) === null) return { ...out, notMeasured: best.energyWhy ?? ENERGY_NO_URL };
  return { ...out, jPerToken: best.jPerToken as number, ci: best.jPerTokenCi ?? null };
}

const jt = (v: number) => (v < 0.1 ? v.toPrecision(2) : fmt(v, v < 10 ? 3 : 1));

/** "DFlash: 0.412 [0.401, 0.425] J/token at 51 streams; …"; null when no variant's steps scraped GPU telemetry. */
export function energyLine(s: CapacitySettings, r: CapacityReport): string | null {
  if (!r.variants.some((v) => v.energy.jPerToken !== null || (v.energy.notMeasured !== ENERGY_NO_URL && v.energy.notMeasured !== 'no load met every SLO')))
    return null;
  const each = r.variants.map((v) => {
    const e = v.energy;
    if (e.jPerToken === null) return `${display(v.variant)}: not measured (${e.notMeasured})`;
    const ci = e.ci ? ` [${jt(e.ci.lo)}, ${jt(e.ci.hi)}]` : '';
    return (
      `${display(v.variant)}: ${jt(e.jPerToken)}${ci} J/token at ${num(s, e.load as number)} ${s.loop.short}` +
      `${v.capacity.atLeast !== null ? ' (capacity at least that)' : ''}`
    );
  });
  return (
    `Energy per output token at SLO capacity (${sloText(s.criteria)}; the GPUs' joules over the capacity ` +
    `step's steady slices ÷ its output tokens, 95% interval over the slices): ${each.join('; ')}.`
  );
}

/** Dollars per million output tokens at the capacity step (the highest load that met every SLO), from the throughput measured there. */
export interface CapacityCost {
  /** The load priced and its step; null: no load met every SLO. */
  load: number | null;
  step: number | null;
  /** Output tokens/s measured at that load, with its 95% interval. */
  throughput: number | null;
  gpuHourCost: number | null;
  /** GPUs per deployment; null: GPUS unset (counted 1). */
  gpus: number | null;
  usdPerMillionOutputTokens: Price | null;
  /** Every SLO held at the highest load measured: the capacity, and so the tokens it buys, is at least this (the cost at most). */
  capacityAtLeast: boolean;
  /** Why there is no price; null when there is one. */
  notMeasured: string | null;
}

/** Prices a variant's capacity step at its GPU cost; never 0: what is unset or unmeasured is null with the reason. */
export function capacityCost(v: VariantSearch, capacity: Capacity, cost: GpuCost | undefined): CapacityCost {
  const best = capacity.bestPassing === null ? null : (v.points.find((p) => p.load === capacity.bestPassing) ?? null);
  const gpuHourCost = cost?.gpuHourCost ?? null;
  const out: CapacityCost = {
    load: best?.load ?? null,
    step: best?.step ?? null,
    throughput: best?.throughput ?? null,
    gpuHourCost,
    gpus: cost?.gpus ?? null,
    usdPerMillionOutputTokens: null,
    capacityAtLeast: capacity.atLeast !== null,
    notMeasured: null,
  };
  if (gpuHourCost === null) return { ...out, notMeasured: 'GPU_HOUR_COST not set for this variant' };
  if (best === null) return { ...out, notMeasured: 'no load met every SLO' };
  const price = perMillion(hourly(gpuHourCost, out.gpus), best.throughput, best.throughputCi);
  return price === null
    ? { ...out, notMeasured: `output throughput not measured at ${best.load} (step ${best.step})` }
    : { ...out, usdPerMillionOutputTokens: price };
}

export interface CapacityReport {
  format: typeof CAPACITY_FORMAT;
  runId: string;
  generatedAt: string;
  durationMs: number;
  transport: string;
  loop: { name: string; unit: string; short: string; variable: string };
  workload: Record<string, string>;
  criteria: Criterion[];
  settings: Record<string, string | number>;
  variants: VariantCapacity[];
  ratio: { a: string; b: string; ratio: CapacityRatio } | null;
  /** One sentence: the answer. */
  headline: string;
  warnings: string[];
}

export function sloText(criteria: readonly Criterion[]): string {
  const parts = criteria.map((c) =>
    c.key === 'attainment' ? `at least ${fmt(c.limit * 100, 1)} % of requests within them` : `${label(c.key)} ≤ ${fmtMs(c.limit)}`,
  );
  return parts.length <= 1 ? parts.join('') : `${parts.slice(0, -1).join(', ')} and ${parts[parts.length - 1]}`;
}

function num(s: CapacitySettings, x: number): string {
  return s.loop.integer ? String(Math.round(x)) : fmt(x, x < 10 ? 2 : 1);
}

/** A capacity or an end of its interval: whole streams meeting the SLOs (rounded down) for a closed loop. */
function cap(s: CapacitySettings, x: number): string {
  return s.loop.integer ? String(Math.floor(x + 1e-9)) : fmt(x, x < 10 ? 2 : 1);
}

export function capacityText(s: CapacitySettings, c: Capacity): string {
  if (c.atLeast !== null) return `≥ ${num(s, c.atLeast)} ${s.loop.unit} (every SLO met at the highest load measured)`;
  if (c.below !== null) return `< ${num(s, c.below)} ${s.loop.unit} (an SLO broken at the lowest load measured)`;
  if (c.value === null) return 'not measured';
  const hi = c.hi === null ? '?' : cap(s, c.hi);
  return `${cap(s, c.value)} [${c.lo === null ? '?' : cap(s, c.lo)}, ${hi}] ${s.loop.unit}`;
}

export function ratioText(r: CapacityRatio): string {
  return `${fmt(r.value, 2)}× [${fmt(r.lo, 2)}, ${r.hi === null ? '?' : fmt(r.hi, 2)}]`;
}

const usd = (v: number) => `$${v < 0.01 ? v.toPrecision(2) : fmt(v, 2)}`;

/** "DFlash: $0.41 [0.39, 0.44] / Mtok at 51 streams; MTP: not measured (GPU_HOUR_COST not set for this variant)"; null when no variant has a cost set. */
export function costLine(s: CapacitySettings, r: CapacityReport): string | null {
  if (!r.variants.some((v) => v.cost.gpuHourCost !== null)) return null;
  const each = r.variants.map((v) => {
    const c = v.cost;
    const p = c.usdPerMillionOutputTokens;
    if (p === null) return `${display(v.variant)}: not measured (${c.notMeasured})`;
    const ci = p.ci ? ` [${fmt(p.ci.lo, 2)}, ${fmt(p.ci.hi, 2)}]` : '';
    return (
      `${display(v.variant)}: ${usd(p.value)}${ci} / Mtok at ${num(s, c.load as number)} ${s.loop.short}` +
      `${c.capacityAtLeast ? ' (capacity at least that: the cost at capacity at most this)' : ''}`
    );
  });
  return (
    `Dollars per million output tokens at SLO capacity (${sloText(s.criteria)}; GPU_HOUR_COST × GPUS ÷ the ` +
    `throughput measured there, 95% interval from its): ${each.join('; ')}.`
  );
}

export function buildCapacityReport(
  s: CapacitySettings,
  searches: VariantSearch[],
  meta: {
    runId: string;
    now: Date;
    durationMs: number;
    transport: string;
    workload: Record<string, string>;
    warnings?: string[];
    /** GPU_HOUR_COST and GPUS per variant (config's gpuCost); absent: none set. */
    costs?: Record<string, GpuCost>;
  },
): CapacityReport {
  const variants: VariantCapacity[] = searches.map((v) => {
    const capacity = capacityOf(s, v.points);
    const best = capacity.bestPassing === null ? null : (v.points.find((p) => p.load === capacity.bestPassing) ?? null);
    return {
      ...v,
      capacity,
      goodputAtCapacity: best?.goodput ?? null,
      cost: capacityCost(v, capacity, meta.costs?.[v.variant]),
      energy: capacityEnergy(capacity, v.points),
    };
  });
  const warnings = [...(meta.warnings ?? [])];
  for (const v of variants) {
    const undecided = v.points.filter((p) => p.undecided).map((p) => num(s, p.load));
    if (undecided.length)
      warnings.push(
        `${display(v.variant)}: at ${undecided.join(', ')} ${s.loop.short} a p99 was decided on fewer than CAPACITY_MIN_SAMPLES=${s.minSamples} ` +
          `samples (CAPACITY_STEP_MAX or CAPACITY_MAX_TIME ran out); its interval is wide.`,
      );
    const limited = v.points.filter((p) => p.clientLimited.length).map((p) => num(s, p.load));
    if (limited.length)
      warnings.push(
        `${display(v.variant)}: the load generator may have set the numbers at ${limited.join(', ')} ${s.loop.short} ` +
          `(client-limited): use fewer VUs per k6 instance.`,
      );
    const dropped = v.points.filter((p) => p.dropped > 0).map((p) => `${num(s, p.load)} (${p.dropped})`);
    if (dropped.length)
      warnings.push(`${display(v.variant)}: k6 dropped iterations at ${dropped.join(', ')} req/s: the offered rate was not fully sent; raise MAX_VUS.`);
    if (v.stop && v.stop.kind !== 'converged' && v.stop.kind !== 'max-load') warnings.push(`${display(v.variant)}: the search ended early: ${v.stop.reason}.`);
  }
  let ratio: CapacityReport['ratio'] = null;
  if (variants.length === 2) {
    const r = capacityRatio(variants[0].capacity, variants[1].capacity);
    if (r) ratio = { a: variants[0].variant, b: variants[1].variant, ratio: r };
  }
  const each = variants.map((v) => `${display(v.variant)} ${capacityText(s, v.capacity)}`).join(', ');
  const headline = `At ${sloText(s.criteria)}: ${each}${ratio ? `: ${display(ratio.a)} ÷ ${display(ratio.b)} = ${ratioText(ratio.ratio)}` : ''}.`;
  return {
    format: CAPACITY_FORMAT,
    runId: meta.runId,
    generatedAt: meta.now.toISOString(),
    durationMs: meta.durationMs,
    transport: meta.transport,
    loop: { name: s.loop.name, unit: s.loop.unit, short: s.loop.short, variable: s.loop.variable },
    workload: meta.workload,
    criteria: s.criteria,
    settings: {
      CAPACITY_LOOP: s.loop.name,
      CAPACITY_START: s.start,
      CAPACITY_MAX_LOAD: s.maxLoad,
      CAPACITY_MAX_TIME_ms: s.maxTimeMs,
      CAPACITY_STEP_ms: s.stepMs,
      CAPACITY_STEP_MAX_ms: s.stepMaxMs,
      CAPACITY_MIN_SAMPLES: s.minSamples,
      CAPACITY_PRECISION: s.precision,
      SLO_ERROR_RATE: s.errorRate,
    },
    variants,
    ratio,
    headline,
    warnings,
  };
}

/** The search path as rows: one per load measured, in the order measured. */
export function pathRows(s: CapacitySettings, r: CapacityReport): string[][] {
  const rows: string[][] = [];
  for (const v of r.variants) {
    for (const p of v.points) {
      const cells = s.criteria.map((c) => {
        const m = p.measures.find((x) => x.key === c.key);
        if (!m) return '–';
        const mark = m.pass ? '' : ' ✗';
        return c.key === 'attainment'
          ? `${fmt((1 - m.value) * 100, 1)} %${mark}`
          : `${fmt(m.value, 1)} [${fmt(m.lo, 1)}, ${m.upperOpen ? '≥' : ''}${fmt(m.hi, 1)}]${mark}`;
      });
      rows.push([
        display(v.variant),
        String(p.step),
        num(s, p.load),
        p.pass ? 'yes' : 'no',
        ...cells,
        String(p.requests.ok),
        String(p.requests.failed),
        fmt(p.goodput, 2),
        `${Math.round(p.loadMs / 1000)} s/${p.runs}`,
      ]);
    }
  }
  return rows;
}

export function pathHead(s: CapacitySettings): string[] {
  return [
    'variant',
    'step',
    s.loop.short,
    'meets SLOs',
    ...s.criteria.map((c) => (c.key === 'attainment' ? 'attainment' : `${label(c.key)} ms [95%]`)),
    'ok',
    'failed',
    'goodput req/s',
    'load time/runs',
  ];
}

function brokeLines(s: CapacitySettings, r: CapacityReport): string[] {
  const out: string[] = [];
  for (const v of r.variants) {
    for (const c of v.capacity.criteria) {
      const crit = s.criteria.find((x) => x.key === c.key) as Criterion;
      out.push(
        c.brokeAt === null
          ? `${display(v.variant)}: ${label(c.key)} (${crit.variable}) held at every load measured`
          : `${display(v.variant)}: ${label(c.key)} (${crit.variable}) first broke at ${num(s, c.brokeAt)} ${s.loop.short} (step ${c.brokeStep})`,
      );
    }
  }
  return out;
}

function variantLines(s: CapacitySettings, r: CapacityReport): string[] {
  return r.variants.map((v) => {
    const lim = v.capacity.limitedBy ? `, limited by ${label(v.capacity.limitedBy)}` : '';
    const gp =
      v.goodputAtCapacity === null ? '' : `; goodput ${fmt(v.goodputAtCapacity, 2)} req/s at ${num(s, v.capacity.bestPassing as number)} ${s.loop.short}`;
    return (
      `${display(v.variant)}: ${capacityText(s, v.capacity)}${lim}${gp}; ${v.points.length} loads, ${v.runs} ` +
      `k6 runs; ${v.stop ? v.stop.reason : 'not finished'}`
    );
  });
}

export function renderCapacityText(s: CapacitySettings, r: CapacityReport, files: string[] = []): string {
  const lines = [
    `\ncapacity (${r.loop.name} loop, ${r.loop.unit}) · run ${r.runId} · ${Math.round(r.durationMs / 1000)} s`,
    '',
    r.headline,
    '',
    ...variantLines(s, r),
    '',
  ];
  const cost = costLine(s, r);
  if (cost) lines.push(cost, '');
  const energy = energyLine(s, r);
  if (energy) lines.push(energy, '');
  lines.push(table(pathHead(s), pathRows(s, r), 1), '');
  lines.push(...brokeLines(s, r));
  if (r.ratio)
    lines.push(
      '',
      `ratio at equal SLO: ${display(r.ratio.a)} ÷ ${display(r.ratio.b)} = ${ratioText(r.ratio.ratio)} (interval ` +
        `from the ends of both intervals: conservative)`,
    );
  if (r.warnings.length) lines.push('', 'warnings:', ...r.warnings.map((w) => `  ! ${w}`));
  if (files.length) lines.push('', ...files.map((f) => `  → ${f}`));
  return lines.join('\n') + '\n';
}

export function renderCapacityMarkdown(s: CapacitySettings, r: CapacityReport): string {
  const md = (head: string[], rows: string[][]) =>
    [`| ${head.join(' | ')} |`, `|${head.map(() => '---').join('|')}|`, ...rows.map((x) => `| ${x.join(' | ')} |`)].join('\n');
  const out = [
    `# Capacity under SLOs — ${r.runId}`,
    '',
    `${r.loop.name} loop (${r.loop.unit}) · transport ${r.transport} · generated ${r.generatedAt} · ${Math.round(r.durationMs / 1000)} s`,
    '',
    `**${r.headline}**`,
    '',
    ...variantLines(s, r).map((l) => `- ${l}`),
    '',
    ...(costLine(s, r) === null ? [] : ['## Cost at SLO capacity', '', costLine(s, r) as string, '']),
    ...(energyLine(s, r) === null ? [] : ['## Energy at SLO capacity', '', energyLine(s, r) as string, '']),
    '## Search path',
    '',
    md(pathHead(s), pathRows(s, r)),
    '',
    'p99 intervals are 95 % order-statistic intervals (≥: too few samples for an upper bound; the sample maximum is shown).',
    '',
    '## Where each SLO broke',
    '',
    ...brokeLines(s, r).map((l) => `- ${l}`),
  ];
  if (r.ratio)
    out.push(
      '',
      '## At equal SLO',
      '',
      `${display(r.ratio.a)} ÷ ${display(r.ratio.b)} = ${ratioText(r.ratio.ratio)}: the interval divides the ` +
        `ends of both capacity intervals, so it is conservative (at least 90 % coverage).`,
    );
  out.push(
    '',
    '## Workload and settings',
    '',
    md(['variable', 'value'], [...Object.entries(r.workload), ...Object.entries(r.settings).map(([k, v]) => [k, String(v)])]),
  );
  if (r.warnings.length) out.push('', '## Warnings', '', ...r.warnings.map((w) => `- ${w}`));
  return out.join('\n') + '\n';
}

/** summary.json keys renamed (old path → new); the old key is written beside the new one one release more. */
const RENAMED: Record<string, string> = { targets: 'variants', 'workload.targets': 'workload.variants' };

/** summary.json: the model, with the renamed keys' old names beside the new ones and `renamed_keys` saying so. */
export function capacityJson(r: CapacityReport): string {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(r)) {
    if (k === 'workload' && 'variants' in r.workload) {
      const w: Record<string, string> = {};
      for (const [wk, wv] of Object.entries(r.workload)) {
        w[wk] = wv;
        if (wk === 'variants') w.targets = wv;
      }
      out.workload = w;
    } else out[k] = v;
    if (k === 'variants') out.targets = v;
  }
  out.renamed_keys = Object.fromEntries(Object.entries(RENAMED).map(([old, now]) => [old, `renamed ${now}; the old key is written until the next release`]));
  return JSON.stringify(out, null, 2);
}
