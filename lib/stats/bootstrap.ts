// Percentile bootstrap intervals for ratios of two independent samples (batch means of time
// slices). Seeded, so the same data always gives the same interval.
import { mulberry32 } from './rng';

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
export function quantileSorted(sorted: ArrayLike<number>, q: number): number {
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
export function bootstrapRatios<T>(a: T[], b: T[], stat: (xs: T[]) => number, opts: { reps?: number; seed?: number } = {}): Float64Array | null {
  if (a.length < 2 || b.length < 2) return null;
  const reps = opts.reps ?? 2000;
  const rng = mulberry32(opts.seed ?? 12345);
  const ratios = new Float64Array(reps);
  let n = 0;
  const ra = new Array<T>(a.length);
  const rb = new Array<T>(b.length);
  for (let r = 0; r < reps; r++) {
    for (let i = 0; i < a.length; i++) ra[i] = a[Math.floor(rng() * a.length)];
    for (let i = 0; i < b.length; i++) rb[i] = b[Math.floor(rng() * b.length)];
    const den = stat(rb);
    if (den > 0) ratios[n++] = stat(ra) / den;
  }
  if (n < reps / 2) return null;
  // A typed array sorts numerically in the engine itself: a comparator called 20,000 times per
  // interval is most of handleSummary's time on k6's engine.
  return ratios.subarray(0, n).sort();
}

/**
 * The bootstrap distribution of Σnum / Σden (den null: the mean of num) over `reps` resamples of
 * the items, unsorted. One tight loop drawing with a 32-bit LCG inline (its high bits pick the
 * item): on k6's engine a closure call per draw, or mulberry32's Math.imul, costs several times the
 * rest, and a 6 × 48 comparison draws millions of times. The same seed gives the same resamples,
 * so a baseline's distribution can be drawn once and shared by every variant compared with it.
 */
export function resampledMeans(num: ArrayLike<number>, den: ArrayLike<number> | null, reps: number, seed: number): Float64Array {
  const n = num.length;
  const out = new Float64Array(reps);
  const scale = n / 4294967296;
  let a = seed >>> 0;
  for (let r = 0; r < reps; r++) {
    let s = 0;
    let w = 0;
    for (let i = 0; i < n; i++) {
      // Numerical Recipes' constants; the product stays below 2^53, so it is exact in a double.
      a = (a * 1664525 + 1013904223) >>> 0;
      const k = Math.floor(a * scale);
      s += num[k];
      w += den === null ? 1 : den[k];
    }
    out[r] = w > 0 ? s / w : NaN;
  }
  return out;
}

/** Pairs two independent bootstrap distributions into one of their ratio, sorted; null when most pairs have none. */
export function ratioDistribution(num: Float64Array, den: Float64Array): Float64Array | null {
  const out = new Float64Array(Math.min(num.length, den.length));
  let n = 0;
  for (let i = 0; i < out.length; i++) {
    const d = den[i];
    const v = num[i] / d;
    if (d > 0 && Number.isFinite(v)) out[n++] = v;
  }
  if (n < out.length / 2) return null;
  return out.subarray(0, n).sort();
}

/** The percentile interval of a sorted bootstrap distribution at a confidence level. */
export function percentileInterval(sorted: ArrayLike<number>, level: number): Interval {
  const tail = (1 - level) / 2;
  return { lo: quantileSorted(sorted, tail), hi: quantileSorted(sorted, 1 - tail) };
}

/** Interval for stat(a) / stat(b) (see bootstrapRatios). */
export function bootstrapRatio<T>(a: T[], b: T[], stat: (xs: T[]) => number, opts: { reps?: number; seed?: number; level?: number } = {}): Interval | null {
  const ratios = bootstrapRatios(a, b, stat, opts);
  return ratios === null ? null : percentileInterval(ratios, opts.level ?? 0.95);
}

/** Interval for the mean of one sample (e.g. a variant's slice throughputs). */
export function bootstrapMean(xs: number[], opts: { reps?: number; seed?: number; level?: number } = {}): Interval | null {
  if (xs.length < 2) return null;
  return percentileInterval(resampledMeans(xs, null, opts.reps ?? 1000, opts.seed ?? 54321).sort(), opts.level ?? 0.95);
}
