// N deployments against a baseline, cell by cell: the speedup of each in output throughput (the
// verdict: batch means over the steady slices, Welch's t on the log ratio) and in mean e2e (a
// percentile bootstrap, shown beside it), with Bonferroni-adjusted simultaneous intervals so that a
// cell's verdicts hold together at 95 %; a ranking that only orders what the intervals separate; and per variant, the concurrency
// beyond which its gain over the baseline is no longer significant (the crossover).
import { bootstrapDraws, bootstrapRatio, pooledMean, ratioSample, seedOf, type Interval } from '../../stats/bootstrap';
import { ratioOfMeans } from '../../stats/t-interval';
import type { Load } from '../../plan/matrix';
import type { RunFigures } from './run-figures';

/** Family-wise confidence per cell. */
export const FAMILY_LEVEL = 0.95;
/** Fewer steady slices than this on either side: too few independent samples for an interval. */
export const MIN_SLICES = 5;

export type Standing = 'faster' | 'slower' | 'same' | 'too_few_samples' | 'not_measured';

export interface Speedup {
  /** The same statistic the interval resamples, so the interval is about this number. */
  value: number;
  ci: Interval | null;
}

export interface VersusEntry {
  cellId: string;
  isl: number;
  osl: number;
  load: Load;
  variant: string;
  baseline: string;
  /** Output throughput of the variant ÷ that of the baseline: > 1 means it generates faster. */
  throughput: Speedup | null;
  /** Mean e2e of the baseline ÷ that of the variant: > 1 means it answers faster. */
  latency: Speedup | null;
  standing: Standing;
  /** Why there is no verdict, when standing is too_few_samples or not_measured. */
  why: string | null;
}

export interface Crossover {
  variant: string;
  isl: number;
  osl: number;
  /**
   * holds: significant gain at every level; ends / reverses: at `to` the gain is gone / the variant is slower;
   * never: no gain at the lowest level; unknown: too few samples.
   */
  kind: 'holds' | 'ends' | 'reverses' | 'never' | 'unknown';
  /** The two concurrencies that bracket the crossover (last with a gain, first without). */
  from: number | null;
  to: number | null;
  text: string;
}

export interface Versus {
  baseline: string;
  variants: string[];
  /** Confidence of each interval: 1 − 0.05 / (variants compared per cell). */
  intervalLevel: number;
  method: string;
  entries: VersusEntry[];
  /** Per cell: tiers of variants (the baseline included), best first; a tier holds what the intervals do not separate. */
  rankings: Array<{ cellId: string; tiers: string[][] }>;
  crossovers: Crossover[];
}

type Slice = [number, number, number];
const meanE2e = pooledMean(1, 2);

/** Why two runs' slices cannot carry an interval, or null when they can. */
function tooFew(a: RunFigures, b: RunFigures, sliceMs: number): string | null {
  const n = Math.min(a.slices.length, b.slices.length);
  if (n < MIN_SLICES) return `${n} steady slice(s) on one side, fewer than ${MIN_SLICES}: raise DURATION or SLICES`;
  const e2e = Math.max(a.e2e?.avg ?? 0, b.e2e?.avg ?? 0);
  if (e2e > sliceMs)
    return (
      `slices of ${(sliceMs / 1000).toFixed(1)} s are shorter than a request (${(e2e / 1000).toFixed(1)} s ` +
      `mean e2e), so they are not independent: raise DURATION or lower SLICES`
    );
  return null;
}

/**
 * A run's bootstrap draws of its mean e2e (Σe2e ÷ Σrequests over the slices in which a request
 * finished), seeded by its cell and variant: a baseline's are drawn once per cell and shared.
 */
function e2eDraws(run: RunFigures): Float64Array | null {
  const withReqs = run.slices.filter((x) => x[2] > 0);
  return bootstrapDraws(ratioSample(withReqs, 1, 2, seedOf(`${run.cellId}/${run.variant}`)));
}

/** A speedup and its interval (bootstrapRatio) from the same statistic, or null when the statistic is undefined. */
function speedup(value: number, num: Float64Array | null, den: Float64Array | null, level: number): Speedup | null {
  if (!Number.isFinite(value) || !(value > 0)) return null;
  return { value, ci: bootstrapRatio(num, den, { level }) };
}

/** One variant's run against the baseline's run of the same cell (`baseDrawn`: the baseline's distributions, when already drawn). */
export function versusOne(v: RunFigures, base: RunFigures, sliceMs: number, level: number, baseDrawn?: Float64Array | null): VersusEntry {
  const head = { cellId: v.cellId, isl: v.isl, osl: v.osl, load: v.load, variant: v.variant, baseline: base.variant };
  if (v.throughput === null || base.throughput === null)
    return { ...head, throughput: null, latency: null, standing: 'not_measured', why: 'throughput was not measured for both' };
  const mine = e2eDraws(v);
  const theirs = baseDrawn === undefined ? e2eDraws(base) : baseDrawn;
  const throughput = ratioOfMeans(
    v.slices.map((x) => x[0]),
    base.slices.map((x) => x[0]),
    level,
  );
  const withReqs = (xs: Slice[]) => xs.filter((x) => x[2] > 0);
  const latency = speedup(meanE2e(withReqs(base.slices)) / meanE2e(withReqs(v.slices)), theirs, mine, level);
  const few = tooFew(v, base, sliceMs);
  if (few !== null || throughput === null || throughput.ci === null) {
    return { ...head, throughput, latency, standing: 'too_few_samples', why: few ?? 'no interval could be drawn' };
  }
  const { lo, hi } = throughput.ci;
  if (!(lo <= throughput.value && throughput.value <= hi)) {
    return {
      ...head,
      throughput,
      latency,
      standing: 'too_few_samples',
      why: 'the interval does not contain its own estimate: the slices are too few or too uneven',
    };
  }
  const standing: Standing = lo > 1 ? 'faster' : hi < 1 ? 'slower' : 'same';
  return { ...head, throughput, latency, standing, why: null };
}

/** Every variant against the baseline in every cell, the rankings and the crossovers. */
export function versus(runs: RunFigures[], cells: ReadonlyArray<{ id: string }>, variants: string[], baseline: string, sliceMs: number): Versus {
  const others = variants.filter((v) => v !== baseline);
  const level = 1 - (1 - FAMILY_LEVEL) / Math.max(1, others.length);
  const entries: VersusEntry[] = [];
  const rankings: Versus['rankings'] = [];
  for (const cell of cells) {
    const base = runs.find((r) => r.cellId === cell.id && r.variant === baseline);
    if (!base) continue;
    const here: VersusEntry[] = [];
    const baseDrawn = e2eDraws(base);
    for (const v of others) {
      const run = runs.find((r) => r.cellId === cell.id && r.variant === v);
      if (run) here.push(versusOne(run, base, sliceMs, level, baseDrawn));
    }
    entries.push(...here);
    rankings.push({ cellId: cell.id, tiers: rank(baseline, here) });
  }
  return {
    baseline,
    variants,
    intervalLevel: level,
    method:
      `each variant against ${baseline}, cell by cell: ratio of mean output throughput over steady slices (batch ` +
      `means, Welch's t on the log ratio); ${(level * 100).toFixed(1)} % intervals (Bonferroni over ${others.length} ` +
      `comparison(s) per cell, so a cell's verdicts hold together at ${FAMILY_LEVEL * 100} %); fewer than ${MIN_SLICES} ` +
      `slices a side, or slices shorter than a request: too few samples, no verdict`,
    entries,
    rankings,
    crossovers: others.flatMap((v) =>
      crossovers(
        v,
        entries.filter((e) => e.variant === v),
      ),
    ),
  };
}

/**
 * Tiers, best first. Every interval is against the same baseline (1.00×, no interval of its own), so
 * two variants are told apart only when their intervals do not overlap; the rest share a tier.
 */
export function rank(baseline: string, entries: VersusEntry[]): string[][] {
  const items = [
    { name: baseline, value: 1, lo: 1, hi: 1 },
    ...entries
      .filter((e) => e.throughput !== null)
      .map((e) => {
        const t = e.throughput as Speedup;
        const sure = e.standing !== 'too_few_samples' && e.standing !== 'not_measured' && t.ci !== null;
        return { name: e.variant, value: t.value, lo: sure ? (t.ci as Interval).lo : -Infinity, hi: sure ? (t.ci as Interval).hi : Infinity };
      }),
  ].sort((x, y) => y.value - x.value);
  const tiers: Array<typeof items> = [];
  for (const it of items) {
    const tier = tiers[tiers.length - 1];
    if (tier && tier.some((m) => !(it.hi < m.lo))) tier.push(it);
    else tiers.push([it]);
  }
  return tiers.map((t) => t.map((x) => x.name));
}

/** Per input and output length: up to which concurrency the variant's gain holds. */
export function crossovers(variant: string, mine: VersusEntry[]): Crossover[] {
  const groups = new Map<string, VersusEntry[]>();
  for (const e of mine) {
    if (e.load.kind !== 'vus') continue;
    const k = `${e.isl}/${e.osl}`;
    groups.set(k, [...(groups.get(k) ?? []), e]);
  }
  const out: Crossover[] = [];
  for (const list of groups.values()) {
    if (list.length < 2) continue;
    const levels = [...list].sort((a, b) => vus(a) - vus(b));
    const { isl, osl } = levels[0];
    const at = `at ISL ${isl}, OSL ${osl}`;
    const c = (e: VersusEntry) => `c=${vus(e)}`;
    const first = levels[0];
    if (first.standing !== 'faster') {
      const kind = first.standing === 'too_few_samples' || first.standing === 'not_measured' ? 'unknown' : 'never';
      out.push({
        variant,
        isl,
        osl,
        kind,
        from: null,
        to: vus(first),
        text: kind === 'unknown' ? `${variant} ${at}: cannot tell at ${c(first)} (${first.why})` : `${variant} ${at}: no significant gain even at ${c(first)}`,
      });
      continue;
    }
    let prev = first;
    let found: Crossover | null = null;
    for (const e of levels.slice(1)) {
      if (e.standing === 'faster') {
        prev = e;
        continue;
      }
      if (e.standing === 'too_few_samples' || e.standing === 'not_measured') {
        found = {
          variant,
          isl,
          osl,
          kind: 'unknown',
          from: vus(prev),
          to: vus(e),
          text: `${variant} ${at}: faster up to ${c(prev)}; cannot tell at ${c(e)} (${e.why})`,
        };
      } else {
        const kind = e.standing === 'slower' ? 'reverses' : 'ends';
        found = {
          variant,
          isl,
          osl,
          kind,
          from: vus(prev),
          to: vus(e),
          text:
            `${variant} ${at}: faster up to ${c(prev)}; ${kind === 'reverses' ? 'slower than the baseline' : 'no significant gain'} ` +
            `from ${c(e)} (crossover between ${c(prev)} and ${c(e)})`,
        };
      }
      break;
    }
    out.push(
      found ?? {
        variant,
        isl,
        osl,
        kind: 'holds',
        from: vus(prev),
        to: null,
        text: `${variant} ${at}: faster at every concurrency measured, up to ${c(prev)}`,
      },
    );
  }
  return out;
}

const vus = (e: VersusEntry) => (e.load.kind === 'vus' ? e.load.vus : 0);

const x2 = (v: number) => `${v.toFixed(2)}×`;

/** One entry as a sentence: "dflash 1.79× [1.62, 1.97] vs none: faster" or why there is no verdict. */
export function entryVerdict(e: VersusEntry, display: (v: string) => string = (v) => v, where = ''): string {
  const t = e.throughput;
  const ratio = t ? `${x2(t.value)}${t.ci ? ` [${t.ci.lo.toFixed(2)}, ${t.ci.hi.toFixed(2)}]` : ''}` : 'n/a';
  const head = `${display(e.variant)} vs ${display(e.baseline)}${where ? ` ${where}` : ''}: ${ratio} the throughput`;
  switch (e.standing) {
    case 'faster':
      return `${head}, faster`;
    case 'slower':
      return `${head}, slower`;
    case 'same':
      return `${head}, no significant difference`;
    default:
      return `${head}; ${e.standing === 'too_few_samples' ? 'too few samples' : 'not measured'}: ${e.why}`;
  }
}

/** The marker of a standing in a matrix cell. */
export const MARK: Record<Standing, string> = { faster: '▲', slower: '▼', same: '·', too_few_samples: '?', not_measured: '–' };
