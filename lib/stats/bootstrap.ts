// Percentile bootstrap intervals for ratios of two independent samples (batch means of time
// slices). Seeded, so the same data always gives the same interval.

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

/** Resamples per bootstrap distribution. */
export const BOOTSTRAP_REPS = 2000;

/**
 * The items of a ratio estimator Σnum ÷ Σden (den null: the mean of num), resampled whole (a
 * slice's e2e sum and its request count stay together), and the seed of their resamples.
 */
export interface RatioSample {
  num: ArrayLike<number>;
  den: ArrayLike<number> | null;
  seed: number;
}

/** The sample of items[i][num] ÷ items[i][den] (den null: the mean of items[i][num]). */
export function ratioSample(items: ReadonlyArray<readonly number[]>, num: number, den: number | null, seed: number): RatioSample {
  return { num: items.map((x) => x[num]), den: den === null ? null : items.map((x) => x[den]), seed };
}

/**
 * A sample's bootstrap distribution (BOOTSTRAP_REPS resamples), null below two items. The same seed
 * gives the same draws, so a baseline drawn once stands in for itself in each bootstrapRatio with it.
 */
export function bootstrapDraws(s: RatioSample, reps = BOOTSTRAP_REPS): Float64Array | null {
  return s.num.length < 2 ? null : resampledMeans(s.num, s.den, reps, s.seed);
}

/**
 * The percentile interval of a's estimator ÷ b's, each resampled independently: the one bootstrap
 * of every report and comparison (docs/definitions.md). A side may be its draws already made
 * (bootstrapDraws); null when a side has fewer than two items or most resamples had no ratio.
 */
export function bootstrapRatio(
  a: RatioSample | Float64Array | null,
  b: RatioSample | Float64Array | null,
  opts: { reps?: number; level?: number } = {},
): Interval | null {
  const drawn = (s: RatioSample | Float64Array | null) => (s === null || s instanceof Float64Array ? s : bootstrapDraws(s, opts.reps));
  const da = drawn(a);
  const db = drawn(b);
  const dist = da && db ? ratioDistribution(da, db) : null;
  return dist === null ? null : percentileInterval(dist, opts.level ?? 0.95);
}

/** A seed from a name (FNV-1a), so that one run's resamples are the same in every report of it. */
export function seedOf(name: string): number {
  let h = 2166136261;
  for (let i = 0; i < name.length; i++) h = Math.imul(h ^ name.charCodeAt(i), 16777619);
  return h >>> 0;
}

/** Interval for the mean of one sample (e.g. a variant's slice throughputs). */
export function bootstrapMean(xs: number[], opts: { reps?: number; seed?: number; level?: number } = {}): Interval | null {
  if (xs.length < 2) return null;
  return percentileInterval(resampledMeans(xs, null, opts.reps ?? 1000, opts.seed ?? 54321).sort(), opts.level ?? 0.95);
}
