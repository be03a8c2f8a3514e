// Log-spaced buckets for latencies counted instead of kept (ITL_SAMPLES=histogram): a k6 Trend keeps
// every value it is given, so per-token samples grow k6's memory for as long as a test runs, while
// a count per bucket is fixed in size and adds up exactly across VUs, slices and k6 instances.
//
// Bucket i ≥ 2 holds (FROM_MS·γ^(i−2), FROM_MS·γ^(i−1)]; bucket 0 holds 0 (a held-then-flushed
// stream's tokens), bucket 1 everything in (0, FROM_MS], the last everything above TO_MS. A
// quantile is read as its bucket's geometric middle, so it is within RELATIVE_ERROR of a value that
// lies in that bucket (k6's own percentile interpolates between two neighbours; that adds nothing
// beyond the bucket's width).

/** Each bucket's upper bound is this many times its lower one. */
export const GROWTH = 1.05;
/** The smallest bound, ms: ITL below 50 µs is below what a k6 clock reading resolves anyway. */
export const FROM_MS = 0.05;
/** The largest bound, ms: an ITL over a minute is a stalled stream, counted in the last bucket. */
export const TO_MS = 60_000;
/** A quantile read from the buckets is within this fraction of the true one (bucket's geometric middle). */
export const RELATIVE_ERROR = Math.sqrt(GROWTH) - 1;

const LOG_GROWTH = Math.log(GROWTH);
const SPANS = Math.ceil(Math.log(TO_MS / FROM_MS) / LOG_GROWTH);
/** Buckets: zero, up to FROM_MS, SPANS log-spaced ones, above TO_MS. */
export const BUCKETS = SPANS + 3;

/** The bucket a value falls in. */
export function bucketOf(ms: number): number {
  // A whole number of ms (the ITL of one token per event: two clock readings apart) from a table:
  // two native calls less per token on k6's engine.
  if (ms < WHOLE_MS && WHOLE[ms] !== undefined) return WHOLE[ms];
  return computedBucketOf(ms);
}

function computedBucketOf(ms: number): number {
  if (!(ms > 0)) return 0;
  if (ms <= FROM_MS) return 1;
  const i = Math.ceil(Math.log(ms / FROM_MS) / LOG_GROWTH - 1e-9);
  return i > SPANS ? BUCKETS - 1 : i + 1;
}

/** [lower, upper] bound of bucket i, ms (upper is Infinity for the last). */
export function boundsOf(i: number): [number, number] {
  if (i === 0) return [0, 0];
  if (i === 1) return [0, FROM_MS];
  if (i === BUCKETS - 1) return [FROM_MS * GROWTH ** SPANS, Infinity];
  return [FROM_MS * GROWTH ** (i - 2), FROM_MS * GROWTH ** (i - 1)];
}

/** A bucket's tag value: its upper bound in ms, four significant digits ("+Inf" for the last). */
export function labelOf(i: number): string {
  const hi = boundsOf(i)[1];
  return hi === Infinity ? '+Inf' : String(Number(hi.toPrecision(4)));
}

/** The value a quantile in bucket i is read as. */
function middleOf(i: number): number {
  const [lo, hi] = boundsOf(i);
  if (i === 0) return 0;
  if (i === 1) return FROM_MS;
  if (hi === Infinity) return lo;
  return Math.sqrt(lo * hi);
}

export interface BucketFigures {
  count: number;
  /** The mean of the bucket middles: within RELATIVE_ERROR of the true mean. */
  avg: number;
  p50: number;
  p90: number;
  p99: number;
  /** The largest bucket with a count, read as its upper bound (its lower one for the last). */
  max: number;
}

/**
 * Quantiles of the counts (index = bucket): the value of rank ⌈q·n⌉, read as its bucket's middle.
 * null when nothing was counted.
 */
export function figuresOf(counts: ArrayLike<number>): BucketFigures | null {
  let n = 0;
  let top = -1;
  let sum = 0;
  for (let i = 0; i < counts.length; i++) {
    n += counts[i];
    if (counts[i] > 0) {
      top = i;
      sum += counts[i] * middleOf(i);
    }
  }
  if (n === 0) return null;
  const q = (p: number) => {
    const rank = Math.max(1, Math.ceil(p * n));
    let seen = 0;
    for (let i = 0; i < counts.length; i++) {
      seen += counts[i];
      if (seen >= rank) return middleOf(i);
    }
    return middleOf(top);
  };
  const [lo, hi] = boundsOf(top);
  return { count: n, avg: sum / n, p50: q(0.5), p90: q(0.9), p99: q(0.99), max: hi === Infinity ? lo : hi };
}

/** Whole ms below this are looked up (1 KB of numbers per VU); index = ms. */
const WHOLE_MS = 256;
const WHOLE: readonly number[] = Array.from({ length: WHOLE_MS }, (_, ms) => computedBucketOf(ms));
