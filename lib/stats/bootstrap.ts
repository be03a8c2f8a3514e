// Percentile bootstrap intervals for ratios of two independent samples (batch means of time
// slices). Seeded, so the same data always gives the same interval.
import { mulberry32 } from '../workload/rng';

export interface Interval {
  lo: number;
  hi: number;
}

export function mean(xs: number[]): number {
  let s = 0;
  for (const x of xs) s += x;
  return s / xs.length;
}

/**
 * The ratio estimator Σx[num] / Σx[den] over tuples (e.g. slices of [tokens/s, Σe2e, requests]):
 * a mean weighted by each item's count, as a `stat` for bootstrapRatio.
 */
export function pooledMean(num: number, den: number): (xs: ReadonlyArray<readonly number[]>) => number {
  return (xs) => {
    let e = 0;
    let r = 0;
    for (const x of xs) {
      e += x[num];
      r += x[den];
    }
    return r > 0 ? e / r : NaN;
  };
}

/** Linear-interpolated quantile of a sorted array (q in [0, 1]). */
export function quantileSorted(sorted: number[], q: number): number {
  if (sorted.length === 0) return NaN;
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo);
}

/**
 * The bootstrap distribution of stat(a) / stat(b), resampling a and b independently with
 * replacement, sorted; null when either has fewer than 2 items or most resamples had no ratio.
 * `stat` gets the resampled items; items may be tuples, e.g. [sum, count] for a ratio estimator.
 */
export function bootstrapRatios<T>(a: T[], b: T[], stat: (xs: T[]) => number, opts: { reps?: number; seed?: number } = {}): number[] | null {
  if (a.length < 2 || b.length < 2) return null;
  const reps = opts.reps ?? 2000;
  const rng = mulberry32(opts.seed ?? 12345);
  const ratios: number[] = [];
  const ra = new Array<T>(a.length);
  const rb = new Array<T>(b.length);
  for (let r = 0; r < reps; r++) {
    for (let i = 0; i < a.length; i++) ra[i] = a[Math.floor(rng() * a.length)];
    for (let i = 0; i < b.length; i++) rb[i] = b[Math.floor(rng() * b.length)];
    const den = stat(rb);
    if (den > 0) ratios.push(stat(ra) / den);
  }
  if (ratios.length < reps / 2) return null;
  return ratios.sort((x, y) => x - y);
}

/** The percentile interval of a sorted bootstrap distribution at a confidence level. */
export function percentileInterval(sorted: number[], level: number): Interval {
  const tail = (1 - level) / 2;
  return { lo: quantileSorted(sorted, tail), hi: quantileSorted(sorted, 1 - tail) };
}

/** Interval for stat(a) / stat(b) (see bootstrapRatios). */
export function bootstrapRatio<T>(
  a: T[],
  b: T[],
  stat: (xs: T[]) => number,
  opts: { reps?: number; seed?: number; level?: number } = {},
): Interval | null {
  const ratios = bootstrapRatios(a, b, stat, opts);
  return ratios === null ? null : percentileInterval(ratios, opts.level ?? 0.95);
}

/** Interval for the mean of one sample (e.g. a target's slice throughputs). */
export function bootstrapMean(xs: number[], opts: { reps?: number; seed?: number; level?: number } = {}): Interval | null {
  if (xs.length < 2) return null;
  const reps = opts.reps ?? 2000;
  const rng = mulberry32(opts.seed ?? 54321);
  const level = opts.level ?? 0.95;
  const means: number[] = [];
  for (let r = 0; r < reps; r++) {
    let s = 0;
    for (let i = 0; i < xs.length; i++) s += xs[Math.floor(rng() * xs.length)];
    means.push(s / xs.length);
  }
  means.sort((x, y) => x - y);
  const tail = (1 - level) / 2;
  return { lo: quantileSorted(means, tail), hi: quantileSorted(means, 1 - tail) };
}
