// ramping-vus (lib/executor/ramping_vus.go, vu_handle.go): one handle per VU slot. The raw steps
// start handles and gracefully stop them (finish the current iteration, then give the VU back);
// the graceful steps, gracefulRampDown later, hard-stop whatever is still running in a slot that
// is no longer allowed. At the end of the stages every handle stops gracefully, and gracefulStop
// later everything still running is interrupted.

import { sleepUntil, type RunCtx } from '../host/ctx';
import type { ScenarioConfig } from '../options';
import { rampingGracefulSteps, rampingRawSteps, type Step } from './plan';
import { durationContexts, type ActiveVU, type ScenarioRuntime } from './runtime';

type RampingVUs = Extract<ScenarioConfig, { executor: 'ramping-vus' }>;

class VUHandle {
  private wanted = false;
  private loop: Promise<void> | null = null;
  private current: ActiveVU | null = null;

  constructor(
    private readonly rt: ScenarioRuntime,
    private readonly maxCtx: RunCtx,
  ) {}

  start(): void {
    this.wanted = true;
    this.loop ??= this.run().finally(() => (this.loop = null));
  }

  /** The running iteration may finish; no new one starts. */
  gracefulStop(): void {
    this.wanted = false;
  }

  /** Interrupts the running iteration. */
  hardStop(): void {
    this.wanted = false;
    this.current?.ctx.cancel();
  }

  idle(): Promise<void> {
    return this.loop ?? Promise.resolve();
  }

  private async run(): Promise<void> {
    if (this.maxCtx.done) return;
    const vu = await this.rt.pool.getPlannedVU(true);
    const avu = this.rt.activate(vu, this.maxCtx.child(), true);
    this.current = avu;
    try {
      // A start() that arrives while the last iteration is finishing keeps the same VU going.
      while (this.wanted && !avu.ctx.done) await this.rt.runIteration(avu.ctx, avu);
    } finally {
      this.current = null;
      avu.ctx.cancel();
      avu.release();
    }
  }
}

export async function runRampingVUs(rt: ScenarioRuntime, parent: RunCtx): Promise<void> {
  const c = rt.config as RampingVUs;
  const raw = rampingRawSteps(c.startVUs, c.stages, true);
  const graceful = rampingGracefulSteps(c);
  const regularMs = raw[raw.length - 1]!.offsetMs;
  const maxMs = graceful[graceful.length - 1]!.offsetMs;
  const { start, maxCtx } = durationContexts(parent, regularMs, maxMs - regularMs);
  rt.started(() => Math.min(1, (Date.now() - start) / regularMs));
  const handles = Array.from({ length: Math.max(...graceful.map((s) => s.vus)) }, () => new VUHandle(rt, maxCtx));

  let scheduled = 0;
  const onRaw = (s: Step) => {
    for (; scheduled < s.vus; scheduled++) handles[scheduled]!.start();
    for (; s.vus < scheduled; scheduled--) handles[scheduled - 1]!.gracefulStop();
  };
  let allowed = 0;
  const onGraceful = (s: Step) => {
    for (; s.vus < allowed; allowed--) handles[allowed - 1]!.hardStop();
    allowed = s.vus;
  };

  try {
    // The two step lists merged by time, as iterateSteps does; the graceful steps left after the
    // last raw step keep running in the background until maxCtx ends.
    let i = 0;
    let j = 0;
    while (i < raw.length) {
      const r = raw[i]!;
      const g = graceful[j];
      if (g && g.offsetMs < r.offsetMs) {
        if (await sleepUntil(start + g.offsetMs, maxCtx)) break;
        onGraceful(g);
        j++;
      } else {
        if (await sleepUntil(start + r.offsetMs, maxCtx)) break;
        onRaw(r);
        i++;
      }
    }
    void (async () => {
      for (; j < graceful.length; j++) {
        if (await sleepUntil(start + graceful[j]!.offsetMs, maxCtx)) return;
        onGraceful(graceful[j]!);
      }
    })();
    await Promise.all(handles.map((h) => h.idle()));
  } finally {
    maxCtx.cancel();
  }
}
