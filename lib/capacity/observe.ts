// What one load step measured against each SLO: the p99 (or the share of requests within every
// per-request SLO) with a 95 % interval, pooled over the step's runs. The p99's interval comes
// from order statistics (distribution-free): with n samples the true p99 lies between the sample
// quantiles at ranks 0.99 ∓ 1.96·√(0.99·0.01/n) with about 95 % confidence. The ranks are read off
// each run's fixed quantile grid (PARTIAL=true), which also pools several runs at one load exactly
// as `npm run merge` pools instances. Pure.
import { mergedQuantiles, type TrendValues } from '../stats/quantile-merge';
import type { Criterion, CriterionKey } from './settings';

const Z95 = 1.96;
/** An open upper bound (the largest sample) settles a pass only this far under the limit. */
const OPEN_MARGIN = 0.9;
const P = 0.99;

export interface QuantileInterval {
  n: number;
  value: number;
  lo: number;
  hi: number;
  /** Too few samples (under about 370) for a 95 % upper bound: hi is the largest sample, and the true p99 may be above it. */
  upperOpen: boolean;
}

/** The p99 of pooled trends with its order-statistic interval; null without samples. */
export function p99Interval(parts: readonly TrendValues[]): QuantileInterval | null {
  const live = parts.filter((v) => (v.count ?? 0) > 0);
  const n = live.reduce((a, v) => a + v.count, 0);
  if (n === 0) return null;
  const half = Z95 * Math.sqrt((P * (1 - P)) / n);
  // Ranks of the bounding order statistics (j/n and k/n), one sample of slack each way.
  const loRank = Math.max(0, P - half - 1 / n);
  const hiRank = P + half + 1 / n;
  const upperOpen = hiRank >= 1;
  const [value, lo, hi] = mergedQuantiles(live, [P, loRank, Math.min(1, hiRank)]);
  return { n, value, lo, hi, upperOpen };
}

/** Wilson score interval of a share k/n. */
export function shareInterval(k: number, n: number): { lo: number; hi: number } {
  if (n === 0) return { lo: 0, hi: 1 };
  const p = k / n;
  const z2 = Z95 * Z95;
  const c = (p + z2 / (2 * n)) / (1 + z2 / n);
  const h = (Z95 * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n))) / (1 + z2 / n);
  return { lo: Math.max(0, c - h), hi: Math.min(1, c + h) };
}

/**
 * One criterion at one load. Every criterion is "value ≤ limit": a p99 in ms, or for attainment
 * the share of requests that missed (1 − attainment ≤ 1 − bar), so the search treats all alike.
 */
export interface Measure {
  key: CriterionKey;
  limit: number;
  n: number;
  value: number;
  lo: number;
  hi: number;
  upperOpen: boolean;
  /** Whether the interval lies on one side of the limit: the decision needs no more samples. */
  clear: boolean;
  pass: boolean;
}

/** What one run at a load contributes: its latency trends (with the quantile grid) and request counts. */
export interface RunSample {
  ttft: TrendValues | null;
  itl: TrendValues | null;
  e2e: TrendValues | null;
  ok: number;
  failed: number;
  /** Successful requests whose latencies were judged (LATENCY_WINDOW=steady: those sent after the ramp-up). */
  judged: number;
  /** Of those, the ones within every per-request SLO (llm_slo_good). */
  good: number;
}

export function measure(c: Criterion, runs: readonly RunSample[]): Measure | null {
  if (c.key === 'attainment') {
    const judged = runs.reduce((a, r) => a + r.judged, 0);
    if (judged === 0) return null;
    const missed = judged - runs.reduce((a, r) => a + r.good, 0);
    const ci = shareInterval(missed, judged);
    return finish(c.key, 1 - c.limit, { n: judged, value: missed / judged, lo: ci.lo, hi: ci.hi, upperOpen: false });
  }
  const q = p99Interval(runs.map((r) => r[c.key as 'ttft' | 'itl' | 'e2e']).filter((t): t is TrendValues => t !== null));
  return q === null ? null : finish(c.key, c.limit, q);
}

function finish(key: CriterionKey, limit: number, q: QuantileInterval): Measure {
  // With too few samples for an upper bound, the largest sample stands in for it (shown as "≥"):
  // it settles a load only when it is at least 10 % under the limit, so loads far below the
  // answer are not run for minutes, while those near it (which set the interval) get their samples.
  const clear = q.lo > limit || (q.upperOpen ? q.hi <= OPEN_MARGIN * limit : q.hi <= limit);
  return { key, limit, ...q, clear, pass: q.value <= limit };
}

/** Shown value of a measure: attainment as the share that met every SLO. */
export function shown(m: Pick<Measure, 'key' | 'value'>): number {
  return m.key === 'attainment' ? 1 - m.value : m.value;
}
