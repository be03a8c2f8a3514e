// constant-arrival-rate and ramping-arrival-rate (lib/executor/constant_arrival_rate.go,
// ramping_arrival_rate.go): iterations start on a schedule, not when a VU frees up. When no
// activated VU is idle at an iteration's start time the iteration is dropped (dropped_iterations
// +1) and, while maxVUs allows, one more VU is initialised in the background for later ones.

import { sleepUntil, type RunCtx } from '../host/ctx';
import type { ScenarioConfig } from '../options';
import { stagesDuration } from './plan';
import { durationContexts, type ActiveVU, type ScenarioRuntime } from './runtime';

type ConstantRate = Extract<ScenarioConfig, { executor: 'constant-arrival-rate' }>;
type RampingRate = Extract<ScenarioConfig, { executor: 'ramping-arrival-rate' }>;

const NS = 1e6;

/** Start offsets (ms) of constant-arrival-rate's iterations: 0, T, 2T... with T = timeUnit / rate. */
function* constantSchedule(c: ConstantRate): Generator<number> {
  const periodNs = Math.trunc((c.timeUnitMs * NS) / c.rate);
  for (let i = 0; ; i++) yield (i * periodNs) / NS;
}

/**
 * ramping-arrival-rate's cal(): the i-th iteration (from 1) starts when the integral of the
 * linearly interpolated rate reaches i, computed in float nanoseconds exactly as k6 does.
 */
export function* rampingSchedule(c: Pick<RampingRate, 'startRate' | 'timeUnitMs' | 'stages'>): Generator<number> {
  const timeUnit = c.timeUnitMs * NS;
  let stageStart = 0;
  let doneSoFar = 0;
  let endCount = 0;
  let from = c.startRate / timeUnit;
  let i = 1;
  for (const stage of c.stages) {
    const to = stage.target / timeUnit;
    const dur = stage.durationMs * NS;
    if (from !== to) {
      endCount += dur * ((to - from) / 2 + from);
      for (; i <= endCount; i++) {
        const under = dur * (from * from * dur + 2 * (i - doneSoFar) * (to - from));
        const x = (from * dur - (under >= 0 ? Math.sqrt(under) : 0)) / (from - to);
        yield (Math.trunc(x) + stageStart) / NS;
      }
    } else {
      endCount += dur * to;
      for (; i <= endCount; i++) yield (Math.trunc((i - doneSoFar) / to) + stageStart) / NS;
    }
    doneSoFar = endCount;
    from = to;
    stageStart += dur;
  }
}

/** The activated VUs of an arrival-rate scenario; an idle one picks up each scheduled iteration. */
class ArrivalPool {
  private readonly idle: ActiveVU[] = [];
  private readonly all: ActiveVU[] = [];
  private running = 0;
  private drained: (() => void) | null = null;

  constructor(
    private readonly rt: ScenarioRuntime,
    private readonly maxCtx: RunCtx,
  ) {}

  add(avu: ActiveVU): void {
    this.all.push(avu);
    this.idle.push(avu);
  }

  get size(): number {
    return this.all.length;
  }

  tryRunIteration(): boolean {
    const avu = this.idle.shift();
    if (!avu) return false;
    const { state } = this.rt.host;
    this.running++;
    state.activeVUs++;
    void this.rt.runIteration(this.maxCtx, avu).finally(() => {
      this.running--;
      state.activeVUs--;
      this.idle.push(avu);
      if (this.running === 0) this.drained?.();
    });
    return true;
  }

  async close(): Promise<void> {
    if (this.running > 0) await new Promise<void>((resolve) => (this.drained = resolve));
    for (const avu of this.all) {
      avu.ctx.cancel();
      avu.release();
    }
  }
}

async function runArrivalRate(
  rt: ScenarioRuntime,
  parent: RunCtx,
  durationMs: number,
  schedule: Iterable<number>,
  c: ConstantRate | RampingRate,
): Promise<void> {
  const { start, maxCtx, regCtx } = durationContexts(parent, durationMs, c.gracefulStopMs);
  rt.started(() => Math.min(1, (Date.now() - start) / durationMs));
  const pool = new ArrivalPool(rt, maxCtx);
  const activate = (vu: Awaited<ReturnType<typeof rt.pool.getPlannedVU>>) => pool.add(rt.activate(vu, maxCtx.child(), false));
  let remainingUnplanned = c.maxVUs - c.preAllocatedVUs;
  let allocation: Promise<void> | null = null;
  try {
    const preallocated = await Promise.all(Array.from({ length: c.preAllocatedVUs }, () => rt.pool.getPlannedVU(false)));
    preallocated.forEach(activate);
    for (const offsetMs of schedule) {
      // k6 races the iteration timer against the duration's context for a start exactly at the
      // end (Go picks either); the double never starts one there, so counts are deterministic.
      if (offsetMs >= durationMs || (await sleepUntil(start + offsetMs, regCtx))) break;
      if (pool.tryRunIteration()) continue;
      rt.emitDropped(1);
      if (remainingUnplanned === 0) {
        rt.warnOnce(`Insufficient VUs, reached ${c.maxVUs} active VUs and cannot initialize more`);
        continue;
      }
      // One VU is initialised at a time; requests while one is on its way are not queued.
      if (allocation) continue;
      remainingUnplanned--;
      allocation = rt.pool.getUnplannedVU().then(
        (vu) => {
          allocation = null;
          activate(vu);
        },
        (err: Error) => {
          allocation = null;
          rt.host.log('error', `Error while allocating unplanned VU: ${err.message}`, { scenario: c.name });
        },
      );
    }
  } finally {
    // Like k6, wait for a VU being initialised so it is activated and returned with the others.
    await allocation;
    await pool.close();
    maxCtx.cancel();
  }
}

export function runConstantArrivalRate(rt: ScenarioRuntime, parent: RunCtx): Promise<void> {
  const c = rt.config as ConstantRate;
  return runArrivalRate(rt, parent, c.durationMs, constantSchedule(c), c);
}

export function runRampingArrivalRate(rt: ScenarioRuntime, parent: RunCtx): Promise<void> {
  const c = rt.config as RampingRate;
  return runArrivalRate(rt, parent, stagesDuration(c.stages), rampingSchedule(c), c);
}
