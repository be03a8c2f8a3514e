// The search loop for one or two variants, over an injected step executor and clock so it runs the
// same under tests (fakes) and on real k6. Each load gets a first run of
// CAPACITY_STEP; while an SLO's p99 interval still crosses its limit on fewer than
// CAPACITY_MIN_SAMPLES samples, it runs again (sized from the sample rate so far) and pools,
// up to CAPACITY_STEP_MAX. Two variants alternate load by load (A B, B A …), so drift over the
// search hits both alike. A failed run, a breached error rate or a degraded variant ends that
// variant's search with the reason; what was measured is kept.
import type { Interval } from '../stats/bootstrap';
import { measure, type Measure } from './observe';
import { nextLoad, type StepPoint, type StopKind } from './search';
import type { CapacitySettings } from './settings';
import type { StepRun } from './step-run';

export interface StepRequest {
  variant: string;
  load: number;
  durationMs: number;
  /** First run against this variant: warm-up requests go only there. */
  first: boolean;
  /** 1-based k6 run number for this variant, for file names. */
  run: number;
}

export type StepOutcome = { run: StepRun } | { error: string };

export interface RunnerPorts {
  runStep(req: StepRequest): Promise<StepOutcome>;
  /** ms since the search began. */
  elapsedMs(): number;
  /** Progress lines for the terminal. */
  log(line: string): void;
  /** Estimated wall time a run adds beyond its load time (preflight, warm-up, graceful stop). */
  overheadMs: number;
}

export interface PointDetail extends StepPoint {
  goodput: number | null;
  throughput: number | null;
  /** Its 95% interval: a single run's own; pooled runs' ends averaged like the throughput (no narrower than the pooled mean's); null when a run has none. */
  throughputCi?: Interval | null;
  /**
   * J per output token over the runs' steady slices (Σ joules ÷ Σ tokens), its interval pooled as the
   * throughput's; null: not measured, `energyWhy` says why.
   */
  jPerToken?: number | null;
  jPerTokenCi?: Interval | null;
  energyWhy?: string | null;
  dropped: number;
  clientLimited: string[];
  errors: Record<string, number>;
}

export interface VariantSearch {
  variant: string;
  points: PointDetail[];
  stop: { kind: StopKind; reason: string } | null;
  runs: number;
}

function pooled(s: CapacitySettings, runs: StepRun[]): Measure[] {
  return s.criteria.map((c) => measure(c, runs)).filter((m): m is Measure => m !== null);
}

function weighted(runs: StepRun[], f: (r: StepRun) => number | null): number | null {
  let num = 0;
  let den = 0;
  for (const r of runs) {
    const v = f(r);
    if (v === null) continue;
    num += v * r.loadMs;
    den += r.loadMs;
  }
  return den > 0 ? num / den : null;
}

function pooledCi(runs: StepRun[], ci: (r: StepRun) => Interval | null | undefined = (r) => r.throughputCi): Interval | null {
  if (runs.some((r) => (ci(r) ?? null) === null)) return null;
  const lo = weighted(runs, (r) => ci(r)?.lo ?? null);
  const hi = weighted(runs, (r) => ci(r)?.hi ?? null);
  return lo === null || hi === null ? null : { lo, hi };
}

/** A load's energy per output token over its runs; every run must have measured it. */
function pooledEnergy(runs: StepRun[]): Pick<PointDetail, 'jPerToken' | 'jPerTokenCi' | 'energyWhy'> {
  const missing = runs.find((r) => (r.energy ?? null) === null);
  if (missing || runs.length === 0) return { jPerToken: null, jPerTokenCi: null, energyWhy: missing?.energyWhy ?? 'no run' };
  const sum = (f: (r: StepRun) => number) => runs.reduce((a, r) => a + f(r), 0);
  const tokens = sum((r) => r.energy!.tokens);
  return { jPerToken: sum((r) => r.energy!.joules) / tokens, jPerTokenCi: pooledCi(runs, (r) => r.energy?.ci), energyWhy: null };
}

function fmtLoad(s: CapacitySettings, x: number): string {
  return s.loop.integer ? `${x}` : `${Number(x.toPrecision(3))}`;
}

export function describeMeasure(m: Measure): string {
  if (m.key === 'attainment') return `attainment ${((1 - m.value) * 100).toFixed(1)}% (bar ${((1 - m.limit) * 100).toFixed(1)}%, n=${m.n})`;
  const name = m.key === 'ttft' ? 'TTFT' : m.key === 'itl' ? 'ITL' : 'e2e';
  const hi = m.upperOpen ? `≥${m.hi.toFixed(1)}` : m.hi.toFixed(1);
  return `p99 ${name} ${m.value.toFixed(1)} [${m.lo.toFixed(1)}, ${hi}] ms vs ${m.limit} (n=${m.n})`;
}

/** Measures one load (one or more runs, pooled); returns the point or why the variant's search ends. */
async function measureLoad(
  s: CapacitySettings,
  ports: RunnerPorts,
  search: VariantSearch,
  load: number,
  step: number,
): Promise<PointDetail | { stop: StopKind; reason: string }> {
  const runs: StepRun[] = [];
  let loadMs = 0;
  let duration = s.stepMs;
  for (;;) {
    if (ports.elapsedMs() + duration + ports.overheadMs > s.maxTimeMs) {
      if (runs.length === 0) return { stop: 'time', reason: `CAPACITY_MAX_TIME would be exceeded by the next run (${fmtLoad(s, load)} ${s.loop.unit})` };
      break;
    }
    search.runs++;
    const out = await ports.runStep({ variant: search.variant, load, durationMs: duration, first: search.runs === 1, run: search.runs });
    if ('error' in out) return { stop: 'error', reason: out.error };
    const r = out.run;
    if (r.preflight) return { stop: 'error', reason: `preflight at ${fmtLoad(s, load)} ${s.loop.unit}: ${r.preflight}` };
    if (r.variantDown) return { stop: 'error', reason: `the variant went down at ${fmtLoad(s, load)} ${s.loop.unit} (nothing listening)` };
    const sent = r.ok + r.failed;
    if (sent > 0 && r.failed / sent > s.errorRate) {
      const classes = Object.entries(r.errors)
        .filter(([, n]) => n > 0)
        .map(([c, n]) => `${c} ${n}`)
        .join(', ');
      return {
        stop: 'error',
        reason: `${r.failed} of ${sent} requests failed at ${fmtLoad(s, load)} ${s.loop.unit} (${classes || 'errors'}), above SLO_ERROR_RATE=${s.errorRate}`,
      };
    }
    runs.push(r);
    loadMs += r.loadMs;
    const ms = pooled(s, runs);
    if (ms.length === 0 && runs.reduce((a, x) => a + x.ok, 0) === 0)
      return { stop: 'error', reason: `no request completed at ${fmtLoad(s, load)} ${s.loop.unit} in ${Math.round(loadMs / 1000)} s` };
    // More samples only where they can change the decision, and only up to the step's budget.
    const short = ms.filter((m) => !m.clear && m.n < s.minSamples);
    const left = s.stepMaxMs - loadMs;
    if (short.length === 0 || left < 1000) break;
    const perMs = Math.min(...short.map((m) => m.n / loadMs));
    const need = Math.max(...short.map((m) => s.minSamples - m.n));
    duration = Math.min(left, Math.max(1000, Math.ceil(((need / Math.max(perMs, 1e-9)) * 1.15) / 1000) * 1000));
    ports.log(
      `  ${search.variant} @ ${fmtLoad(s, load)}: ${short.map(describeMeasure).join('; ')}: not yet clear of the SLO, ` +
        `running ${Math.round(duration / 1000)} s more`,
    );
  }
  const measures = pooled(s, runs);
  const missing = s.criteria.filter((c) => !measures.some((m) => m.key === c.key));
  if (missing.length)
    return {
      stop: 'error',
      reason:
        `${missing.map((c) => c.variable).join(', ')}: not measured at ${fmtLoad(s, load)} ${s.loop.unit} (does ` +
        `the transport time events? TTFT and ITL need TRANSPORT=sse)`,
    };
  return {
    step,
    load,
    measures,
    pass: measures.every((m) => m.pass),
    runs: runs.length,
    loadMs,
    requests: { ok: runs.reduce((a, r) => a + r.ok, 0), failed: runs.reduce((a, r) => a + r.failed, 0) },
    undecided: measures.some((m) => !m.clear && m.n < s.minSamples),
    goodput: weighted(runs, (r) => r.goodput),
    throughput: weighted(runs, (r) => r.throughput),
    throughputCi: pooledCi(runs),
    ...pooledEnergy(runs),
    dropped: runs.reduce((a, r) => a + r.dropped, 0),
    clientLimited: [...new Set(runs.flatMap((r) => r.clientLimited))],
    errors: runs.reduce<Record<string, number>>((acc, r) => {
      for (const [k, n] of Object.entries(r.errors)) acc[k] = (acc[k] ?? 0) + n;
      return acc;
    }, {}),
  };
}

/** Runs the searches of all variants, alternating, until each has converged or stopped. */
export async function runSearch(s: CapacitySettings, variants: readonly string[], ports: RunnerPorts): Promise<VariantSearch[]> {
  const searches: VariantSearch[] = variants.map((variant) => ({ variant, points: [], stop: null, runs: 0 }));
  for (let round = 0; searches.some((search) => search.stop === null); round++) {
    const order = round % 2 === 0 ? searches : [...searches].reverse();
    for (const search of order) {
      if (search.stop !== null) continue;
      const next = nextLoad(s, search.points);
      if ('stop' in next) {
        search.stop = { kind: next.stop, reason: next.reason };
        ports.log(`${search.variant}: search over: ${next.reason}`);
        continue;
      }
      const got = await measureLoad(s, ports, search, next.load, search.points.length + 1);
      if ('stop' in got) {
        search.stop = { kind: got.stop, reason: got.reason };
        ports.log(`${search.variant}: search stopped: ${got.reason}`);
        continue;
      }
      search.points.push(got);
      const flags = [
        got.undecided ? `decided on fewer than CAPACITY_MIN_SAMPLES=${s.minSamples} samples` : '',
        got.clientLimited.length ? 'client-limited' : '',
      ].filter(Boolean);
      ports.log(
        `${search.variant} step ${got.step} (${next.phase}) @ ${fmtLoad(s, got.load)} ${s.loop.short}: ${got.pass ? 'meets every SLO' : 'SLO broken'}` +
          ` · ${got.measures.map(describeMeasure).join(' · ')}${flags.length ? ` · ${flags.join(', ')}` : ''}`,
      );
    }
  }
  return searches;
}
