// The capacity of one variant from its measured steps, with a 95 % interval, and the A/B ratio of
// two capacities. For each criterion the capacity is where its p99 first crosses the limit,
// interpolated between the last load under it and the first over it; the interval comes from the
// same crossing of the p99's interval bounds (the upper bound of the p99 crosses first, giving the
// low end). The variant's capacity is the lowest over its criteria: every SLO must hold. Pure.
import type { Measure } from './observe';
import type { StepPoint } from './search';
import type { CapacitySettings, CriterionKey } from './settings';

export interface Crossing {
  /** Interpolated load where the curve meets the limit; null when it never crossed (censored above) or crossed at the first load (censored below). */
  at: number | null;
  /** The curve stayed under the limit at every load measured: the crossing is above the highest. */
  above: boolean;
}

export interface CriterionCapacity {
  key: CriterionKey;
  value: Crossing;
  /** From the p99's upper bound: a lower bound on the capacity. */
  low: Crossing;
  /** From the p99's lower bound: an upper bound. */
  high: Crossing;
  /** The load at which this criterion first failed (its point estimate over the limit); null if never. */
  brokeAt: number | null;
  brokeStep: number | null;
}

export interface Capacity {
  /** The highest load meeting every SLO (continuous for a rate, whole streams for a closed loop); null when censored. */
  value: number | null;
  /** Interpolated crossing before rounding to whole streams: what ratios and truth comparisons use. */
  crossing: number | null;
  /** The interval's ends, interpolated like crossing (not rounded: reports round them down to whole streams). */
  lo: number | null;
  /** null: no upper bound (the curve's lower bound never crossed within the loads measured). */
  hi: number | null;
  /** Censoring: every SLO met at the highest load measured (capacity ≥ that), or broken at the lowest (< that). */
  atLeast: number | null;
  below: number | null;
  /** The criterion that limits the capacity. */
  limitedBy: CriterionKey | null;
  criteria: CriterionCapacity[];
  /** Highest measured load that met every SLO. */
  bestPassing: number | null;
}

type Pick3 = (m: Measure) => number;

function crossing(points: readonly StepPoint[], key: CriterionKey, y: Pick3): Crossing {
  const pts = points
    .map((p) => ({ x: p.load, m: p.measures.find((m) => m.key === key) }))
    .filter((p): p is { x: number; m: Measure } => p.m !== undefined)
    .sort((a, b) => a.x - b.x);
  const i = pts.findIndex((p) => y(p.m) > p.m.limit);
  if (i < 0) return { at: null, above: pts.length > 0 };
  if (i === 0) return { at: null, above: false };
  const a = pts[i - 1];
  const b = pts[i];
  const ya = Math.log(Math.max(y(a.m), 1e-9) / a.m.limit);
  const yb = Math.log(Math.max(y(b.m), 1e-9) / b.m.limit);
  const at = yb > ya ? a.x + ((b.x - a.x) * -ya) / (yb - ya) : a.x;
  return { at: Math.min(b.x, Math.max(a.x, at)), above: false };
}

function minKnown(xs: Array<number | null>): number | null {
  const known = xs.filter((x): x is number => x !== null);
  return known.length ? Math.min(...known) : null;
}

/**
 * One point per load, sorted by load: a load measured again (the search's confirm step) is judged
 * by its latest measurement, as the search itself judges it, so that the estimate never puts the
 * capacity at a load whose last measurement broke an SLO.
 */
function latestPerLoad(points: readonly StepPoint[]): StepPoint[] {
  const byLoad = new Map<number, StepPoint>();
  for (const p of points) {
    const seen = byLoad.get(p.load);
    if (seen === undefined || p.step > seen.step) byLoad.set(p.load, p);
  }
  return [...byLoad.values()].sort((a, b) => a.load - b.load);
}

export function capacityOf(s: CapacitySettings, points: readonly StepPoint[]): Capacity {
  const sorted = latestPerLoad(points);
  const criteria: CriterionCapacity[] = s.criteria.map((c) => {
    const broke = sorted.find((p) => p.measures.some((m) => m.key === c.key && m.value > m.limit)) ?? null;
    return {
      key: c.key,
      value: crossing(sorted, c.key, (m) => m.value),
      low: crossing(sorted, c.key, (m) => m.hi),
      high: crossing(sorted, c.key, (m) => m.lo),
      brokeAt: broke ? broke.load : null,
      brokeStep: broke ? broke.step : null,
    };
  });
  const passing = sorted.filter((p) => p.pass);
  const bestPassing = passing.length ? passing[passing.length - 1].load : null;
  const highest = sorted.length ? sorted[sorted.length - 1].load : null;
  const lowest = sorted.length ? sorted[0].load : null;
  const allAbove = criteria.every((c) => c.value.above);
  const anyBelow = criteria.some((c) => c.value.at === null && !c.value.above);
  if (sorted.length === 0 || allAbove || anyBelow) {
    return {
      value: null,
      crossing: null,
      lo: allAbove ? minKnown(criteria.map((c) => c.low.at)) : null,
      hi: null,
      atLeast: allAbove ? highest : null,
      below: anyBelow ? lowest : null,
      limitedBy: null,
      criteria,
      bestPassing,
    };
  }
  const crossingAt = minKnown(criteria.map((c) => c.value.at)) as number;
  const limitedBy = criteria.find((c) => c.value.at === crossingAt)?.key ?? null;
  // Low end: where the first upper bound crosses (the lowest load measured if one already did there).
  const lows = criteria.map((c) => (c.low.at !== null ? c.low.at : c.low.above ? null : (lowest as number)));
  const lo = Math.min(crossingAt, minKnown(lows) ?? crossingAt);
  // High end: where the first lower bound crosses; unknown when no lower bound crossed at all.
  const highs = criteria.map((c) => (c.high.at !== null ? c.high.at : c.high.above ? null : (lowest as number)));
  const hiKnown = minKnown(highs);
  const hi = hiKnown === null ? null : Math.max(crossingAt, hiKnown);
  const whole = (x: number) => (s.loop.integer ? Math.floor(x + 1e-9) : x);
  return { value: whole(crossingAt), crossing: crossingAt, lo, hi, atLeast: null, below: null, limitedBy, criteria, bestPassing };
}

export interface CapacityRatio {
  value: number;
  lo: number;
  /** null: the divisor's lower bound is unknown or zero, so the ratio has no upper bound. */
  hi: number | null;
}

/**
 * a ÷ b with the interval from the ends of the two intervals (low ÷ high, high ÷ low): both are
 * 95 % intervals of independent searches, so the ratio's holds with at least 90 % and is stated
 * as conservative.
 */
export function capacityRatio(a: Capacity, b: Capacity): CapacityRatio | null {
  if (a.crossing === null || b.crossing === null || b.crossing <= 0) return null;
  const lo = a.lo !== null && b.hi !== null && b.hi > 0 ? a.lo / b.hi : 0;
  const hi = a.hi !== null && b.lo !== null && b.lo > 0 ? a.hi / b.lo : null;
  return { value: a.crossing / b.crossing, lo, hi };
}
