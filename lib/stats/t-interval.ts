// Intervals from batch means with Student's t: the textbook method for a steady-state simulation
// output (and a load test is one). With the few slices a cell has (5 to 10), a percentile bootstrap
// is too narrow — it treats the sample's spread as the population's and uses normal tails — so
// identical servers are called different more often than the level says; t's wider tails and the
// unbiased variance do not. Pure arithmetic, cheap on k6's engine.
import type { Interval } from './bootstrap';

/** The standard normal quantile (Acklam's rational approximation, relative error below 1.2e-9). */
export function normalQuantile(p: number): number {
  const a = [-39.69683028665376, 220.9460984245205, -275.9285104469687, 138.357751867269, -30.66479806614716, 2.506628277459239];
  const b = [-54.47609879822406, 161.5858368580409, -155.6989798598866, 66.80131188771972, -13.28068155288572];
  const c = [-0.007784894002430293, -0.3223964580411365, -2.400758277161838, -2.549732539343734, 4.374664141464968, 2.938163982698783];
  const d = [0.007784695709041462, 0.3224671290700398, 2.445134137142996, 3.754408661907416];
  const lo = 0.02425;
  if (p < lo) {
    const q = Math.sqrt(-2 * Math.log(p));
    return (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) / ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
  }
  if (p > 1 - lo) return -normalQuantile(1 - p);
  const q = p - 0.5;
  const r = q * q;
  return ((((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q) / (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
}

/**
 * Student's t quantile for p > 0.5 and df degrees of freedom (Hill's algorithm 396, accurate to
 * about 1e-6 for df ≥ 1; exact forms for df 1 and 2).
 */
export function tQuantile(p: number, df: number): number {
  if (p < 0.5) return -tQuantile(1 - p, df);
  if (!Number.isFinite(df) || df > 1e7) return normalQuantile(p);
  const P = 2 * (1 - p);
  if (df === 1) return Math.tan((Math.PI * (1 - P)) / 2);
  if (df === 2) return Math.sqrt(2 / (P * (2 - P)) - 2);
  const n = df;
  const a = 1 / (n - 0.5);
  const b = 48 / (a * a);
  let c = (((20700 * a) / b - 98) * a - 16) * a + 96.36;
  const d = ((94.5 / (b + c) - 3) / b + 1) * Math.sqrt((a * Math.PI) / 2) * n;
  let x = d * P;
  let y = Math.pow(x, 2 / n);
  if (y > 0.05 + a) {
    x = normalQuantile(P / 2);
    y = x * x;
    if (n < 5) c += 0.3 * (n - 4.5) * (x + 0.6);
    c = (((0.05 * d * x - 5) * x - 7) * x - 2) * x + b + c;
    y = (((((0.4 * y + 6.3) * y + 36) * y + 94.5) / c - y - 3) / b + 1) * x;
    y = a * y * y;
    y = y > 0.002 ? Math.exp(y) - 1 : 0.5 * y * y + y;
  } else {
    y = (((1 / (((n + 6) / (n * y) - 0.089 * d - 0.822) * (n + 2) * 3) + 0.5 / (n + 4)) * y - 1) * (n + 1)) / (n + 2) + 1 / y;
  }
  return Math.sqrt(n * y);
}

function meanVar(xs: ArrayLike<number>): { m: number; v: number; n: number } {
  const n = xs.length;
  let m = 0;
  for (let i = 0; i < n; i++) m += xs[i];
  m /= n;
  let v = 0;
  for (let i = 0; i < n; i++) v += (xs[i] - m) * (xs[i] - m);
  return { m, v: n > 1 ? v / (n - 1) : NaN, n };
}

/** The t interval of a mean of batch means; null with fewer than 2. */
export function tMeanInterval(xs: ArrayLike<number>, level: number): Interval | null {
  const { m, v, n } = meanVar(xs);
  if (n < 2) return null;
  const h = tQuantile(1 - (1 - level) / 2, n - 1) * Math.sqrt(v / n);
  return { lo: m - h, hi: m + h };
}

/**
 * mean(a) ÷ mean(b) with its interval: Welch's t on the log of the ratio (delta method, Welch–
 * Satterthwaite degrees of freedom), so the interval is multiplicative and always holds the
 * estimate. Null when a mean is not positive or a side has fewer than 2 batches.
 */
export function ratioOfMeans(a: ArrayLike<number>, b: ArrayLike<number>, level: number): { value: number; ci: Interval } | null {
  const A = meanVar(a);
  const B = meanVar(b);
  if (A.n < 2 || B.n < 2 || !(A.m > 0) || !(B.m > 0)) return null;
  const value = A.m / B.m;
  const ua = A.v / (A.n * A.m * A.m);
  const ub = B.v / (B.n * B.m * B.m);
  const se = Math.sqrt(ua + ub);
  if (se === 0) return { value, ci: { lo: value, hi: value } };
  const df = (ua + ub) ** 2 / ((ua * ua) / (A.n - 1) + (ub * ub) / (B.n - 1));
  const h = tQuantile(1 - (1 - level) / 2, df) * se;
  return { value, ci: { lo: value * Math.exp(-h), hi: value * Math.exp(h) } };
}

/**
 * Σnum ÷ Σden over batches (a ratio estimator, e.g. tokens committed per verify step over time
 * slices) with its t interval: the batches' residuals num_k − R·den_k give the standard error
 * (delta method), n − 1 degrees of freedom. Batches with den 0 are left out. Null when Σden is 0;
 * the interval is null with fewer than 2 batches left.
 */
export function ratioEstimate(num: ArrayLike<number>, den: ArrayLike<number>, level: number): { value: number; ci: Interval | null } | null {
  let sn = 0;
  let sd = 0;
  let n = 0;
  for (let k = 0; k < den.length; k++) {
    if (!(den[k] > 0)) continue;
    sn += num[k];
    sd += den[k];
    n++;
  }
  if (sd <= 0) return null;
  const r = sn / sd;
  if (n < 2) return { value: r, ci: null };
  let ss = 0;
  for (let k = 0; k < den.length; k++) {
    if (!(den[k] > 0)) continue;
    const e = num[k] - r * den[k];
    ss += e * e;
  }
  const meanDen = sd / n;
  const se = Math.sqrt(ss / (n - 1) / n) / meanDen;
  const h = tQuantile(1 - (1 - level) / 2, n - 1) * se;
  return { value: r, ci: { lo: r - h, hi: r + h } };
}
