// Intervals across repeated runs (REPEATS): each repeat of a comparison gives one ratio of means,
// and the repeats, not the slices within one, are the independent samples. A within-run interval
// measures slice-to-slice noise only; the drift between runs (another moment on the same GPUs,
// the server's state, a neighbour) is in the spread of the repeats' means, so a verdict that must
// hold across runs rests on a t interval over those means (as AIPerf's multi-run confidence
// intervals do). Pure arithmetic, cheap on k6's engine.
//
// Contract:
// - pairedRatio(ratios, level): the R repeats' ratios A÷B, each from one repeat where A and B ran
//   side by side (so they share that repeat's drift: paired). The estimate is the geometric mean,
//   exp(mean log r); the interval exp(mean ± t(level, R−1)·sd/√R) on the logs, so it is
//   multiplicative and always holds its estimate. Null with fewer than 2 ratios or one not > 0.
// - R = 2 has 1 degree of freedom: t(0.975, 1) = 12.7, so the interval is wide; allowed.
// - unpairedRatio(a, b, level): runs of two separate tests (`npm run compare`), no pairing: Welch's
//   t on the log ratio of the two sets of repeat means (ratioOfMeans), degrees of freedom from
//   Welch–Satterthwaite over R_a − 1 and R_b − 1.
import type { Interval } from './bootstrap';
import { ratioOfMeans, tQuantile } from './t-interval';

export interface AcrossRuns {
  /** Geometric mean of the repeats' ratios (paired) or ratio of the repeat means' means (unpaired). */
  value: number;
  ci: Interval;
  /** How many repeats it was drawn from (the fewer side's, unpaired). */
  repeats: number;
  /** Degrees of freedom of t (R − 1 paired; Welch–Satterthwaite unpaired). */
  df: number;
}

/** Run-to-run spread of per-repeat figures: the range and the standard deviation of their logs (≈ relative sd). */
export interface Spread {
  min: number;
  max: number;
  /** Sample sd of ln(x): 0.02 is about ±2 % from repeat to repeat; null with fewer than 2. */
  sdLog: number | null;
}

function logStats(xs: readonly number[]): { m: number; sd: number } {
  const logs = xs.map(Math.log);
  const m = logs.reduce((s, x) => s + x, 0) / logs.length;
  const v = logs.reduce((s, x) => s + (x - m) ** 2, 0) / (logs.length - 1);
  return { m, sd: Math.sqrt(v) };
}

/** The across-run interval of R paired ratios (see the contract above); null with fewer than 2 or a ratio not > 0. */
export function pairedRatio(ratios: readonly number[], level: number): AcrossRuns | null {
  if (ratios.length < 2 || !ratios.every((r) => Number.isFinite(r) && r > 0)) return null;
  const { m, sd } = logStats(ratios);
  const df = ratios.length - 1;
  const h = tQuantile(1 - (1 - level) / 2, df) * (sd / Math.sqrt(ratios.length));
  const value = Math.exp(m);
  return { value, ci: { lo: Math.exp(m - h), hi: Math.exp(m + h) }, repeats: ratios.length, df };
}

/** mean(a) ÷ mean(b) over two tests' repeat means, Welch's t on the log ratio; null with fewer than 2 a side. */
export function unpairedRatio(a: readonly number[], b: readonly number[], level: number): AcrossRuns | null {
  const r = ratioOfMeans(a, b, level);
  if (r === null) return null;
  // The same Welch–Satterthwaite degrees of freedom ratioOfMeans used, for the record.
  const rel = (xs: readonly number[]) => {
    const m = xs.reduce((s, x) => s + x, 0) / xs.length;
    return xs.reduce((s, x) => s + (x - m) ** 2, 0) / (xs.length - 1) / (xs.length * m * m);
  };
  const ua = rel(a);
  const ub = rel(b);
  const df = ua + ub === 0 ? Infinity : (ua + ub) ** 2 / ((ua * ua) / (a.length - 1) + (ub * ub) / (b.length - 1));
  return { value: r.value, ci: r.ci, repeats: Math.min(a.length, b.length), df };
}

/** The spread of per-repeat figures (ratios or means); null when none is > 0. */
export function spreadOf(xs: readonly number[]): Spread | null {
  const ok = xs.filter((x) => Number.isFinite(x) && x > 0);
  if (ok.length === 0) return null;
  return { min: Math.min(...ok), max: Math.max(...ok), sdLog: ok.length < 2 ? null : logStats(ok).sd };
}
