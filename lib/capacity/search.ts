// The search over load: bracket (double from CAPACITY_START until an SLO breaks), then refine
// between the highest load that met every SLO and the lowest that did not, placing each next load
// where the measured p99s cross their limits (regula falsi on the worst margin, kept away from the
// bracket's ends so it always shrinks). Pure: the driver runs the steps, this decides the next one.
import type { Measure } from './observe';
import type { CapacitySettings, CriterionKey } from './settings';

export interface StepPoint {
  /** 1-based order in which the loads were measured, across the variant's search. */
  step: number;
  load: number;
  /** One per criterion measured at this load. */
  measures: Measure[];
  /** Every criterion met (by its point estimate). */
  pass: boolean;
  /** k6 runs pooled at this load, their load time and request counts. */
  runs: number;
  loadMs: number;
  requests: { ok: number; failed: number };
  /** Any criterion decided on fewer samples than CAPACITY_MIN_SAMPLES while its interval still crossed the limit (CAPACITY_STEP_MAX ran out). */
  undecided: boolean;
}

export type StopKind = 'converged' | 'max-load' | 'floor' | 'time' | 'error' | 'degraded';

export type Next = { load: number; phase: 'bracket' | 'refine' | 'bound' | 'confirm' } | { stop: StopKind; reason: string };

const byLoad = (a: StepPoint, b: StepPoint) => a.load - b.load;

/** The bracket: the highest passing load below the lowest failing one. */
export function bracket(points: readonly StepPoint[]): { pass: StepPoint | null; fail: StepPoint | null } {
  const sorted = [...points].sort(byLoad);
  const fail = sorted.find((p) => !p.pass) ?? null;
  const below = fail === null ? sorted : sorted.filter((p) => p.load < fail.load);
  const pass = below.filter((p) => p.pass).pop() ?? null;
  return { pass, fail };
}

function fmtLoad(s: CapacitySettings, x: number): string {
  return `${s.loop.integer ? String(x) : String(Number(x.toPrecision(3)))} ${s.loop.unit}`;
}

/** Whether the latest step contradicts an earlier one beyond noise: a failure at a load an earlier step passed above. */
export function degradation(s: CapacitySettings, points: readonly StepPoint[]): string | null {
  const last = points[points.length - 1];
  if (!last || last.pass) return null;
  for (const earlier of points.slice(0, -1)) {
    if (!earlier.pass || earlier.load < last.load) continue;
    for (const m of last.measures) {
      const before = earlier.measures.find((e) => e.key === m.key);
      // Beyond noise: the lower bound now is above the earlier upper bound (or its largest sample).
      if (before && m.lo > m.limit && m.lo > before.hi) {
        return (
          `the variant degraded during the search: ${label(m.key)} at ${fmtLoad(s, last.load)} is ${fmtMeasure(m)} ` +
          `(step ${last.step}), but was ${fmtMeasure(before)} at a higher load, ${fmtLoad(s, earlier.load)} (step ` +
          `${earlier.step})`
        );
      }
    }
  }
  return null;
}

export function label(key: CriterionKey): string {
  return key === 'attainment' ? 'SLO attainment' : `p99 ${key === 'ttft' ? 'TTFT' : key === 'itl' ? 'ITL' : 'e2e'}`;
}

function fmtMeasure(m: Measure): string {
  return m.key === 'attainment' ? `${((1 - m.value) * 100).toFixed(1)} %` : `${m.value.toFixed(1)} ms`;
}

/** Where the worst criterion's margin (log of value ÷ limit) crosses zero between a passing and a failing step. */
function crossingBetween(p: StepPoint, f: StepPoint): number {
  let best = Infinity;
  for (const mf of f.measures) {
    if (mf.value <= mf.limit) continue;
    const mp = p.measures.find((m) => m.key === mf.key);
    if (!mp) continue;
    const margin = (v: number) => Math.log(Math.max(v, 1e-9) / mf.limit);
    const a = margin(mp.value);
    const b = margin(mf.value);
    const x = b > a ? p.load + ((f.load - p.load) * -a) / (b - a) : (p.load + f.load) / 2;
    best = Math.min(best, x);
  }
  return Number.isFinite(best) ? best : (p.load + f.load) / 2;
}

/** The next load to measure, or why the search is over. */
export function nextLoad(s: CapacitySettings, points: readonly StepPoint[]): Next {
  if (points.length === 0) return { load: s.start, phase: 'bracket' };
  const worse = degradation(s, points);
  if (worse) return { stop: 'degraded', reason: worse };
  const { pass, fail } = bracket(points);
  const min = s.loop.integer ? 1 : s.start / 64;
  if (fail === null) {
    const top = (pass as StepPoint).load;
    if (top >= s.maxLoad)
      return { stop: 'max-load', reason: `every SLO was met up to CAPACITY_MAX_LOAD (${fmtLoad(s, s.maxLoad)}): the capacity is at least that` };
    const up = Math.min(s.maxLoad, s.loop.integer ? Math.max(top + 1, Math.round(top * 2)) : top * 2);
    return { load: up, phase: 'bracket' };
  }
  if (pass === null) {
    if (fail.load <= min)
      return { stop: 'floor', reason: `an SLO was broken even at ${fmtLoad(s, fail.load)}, the lowest load tried: the variant cannot meet these SLOs` };
    const down = s.loop.integer ? Math.max(1, Math.floor(fail.load / 2)) : Math.max(min, fail.load / 2);
    return { load: down, phase: 'bracket' };
  }
  const width = fail.load - pass.load;
  if ((s.loop.integer && width <= 1) || width <= s.precision * pass.load) {
    // The interval's high end needs a load whose p99 is over the limit beyond its own interval;
    // a bracket whose failing end is only just over gives none, so measure one load higher.
    const clearFail = points.some((p) => p.measures.some((m) => m.lo > m.limit));
    const top = Math.max(...points.map((p) => p.load));
    if (!clearFail && top < s.maxLoad) {
      const up = Math.min(s.maxLoad, s.loop.integer ? Math.max(top + 1, Math.round(top * 1.5)) : Number((top * 1.5).toPrecision(4)));
      return { load: up, phase: 'bound' };
    }
    // Measure the answer's load once more, last: a variant that drifted during the search fails it
    // now (and is named degraded), where a steady one passes again.
    const repeats = points.filter((p) => p.load === pass.load).length;
    if (repeats < 2) return { load: pass.load, phase: 'confirm' };
    return {
      stop: 'converged',
      reason:
        `the last passing (${fmtLoad(s, pass.load)}, confirmed at the end) and first failing (${fmtLoad(s, fail.load)}) ` +
        `loads are within CAPACITY_PRECISION`,
    };
  }
  // Regula falsi, clamped into the middle 60 % of the bracket so it shrinks every step.
  const lo = pass.load + 0.2 * width;
  const hi = fail.load - 0.2 * width;
  let x = Math.min(hi, Math.max(lo, crossingBetween(pass, fail)));
  if (s.loop.integer) x = Math.min(fail.load - 1, Math.max(pass.load + 1, Math.round(x)));
  else x = Number(x.toPrecision(4));
  return { load: x, phase: 'refine' };
}
