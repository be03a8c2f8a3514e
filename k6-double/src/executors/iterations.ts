// shared-iterations, per-vu-iterations and constant-vus (lib/executor/shared_iterations.go,
// per_vu_iterations.go, constant_vus.go): a fixed set of VUs looping until their work or the
// regular duration runs out; iterations still running at duration + gracefulStop are interrupted.

import type { RunCtx } from '../host/ctx';
import type { ScenarioConfig } from '../options';
import { durationContexts, withPlannedVUs, type ScenarioRuntime } from './runtime';

type Config<T extends ScenarioConfig['executor']> = ScenarioConfig & { executor: T };

export async function runSharedIterations(rt: ScenarioRuntime, parent: RunCtx): Promise<void> {
  const c = rt.config as Config<'shared-iterations'>;
  const { maxCtx, regCtx } = durationContexts(parent, c.maxDurationMs, c.gracefulStopMs);
  let attempted = 0;
  let done = 0;
  rt.started(() => done / c.iterations);
  try {
    await withPlannedVUs(rt, c.vus, maxCtx, async (avu) => {
      while (!regCtx.done) {
        if (++attempted > c.iterations) return;
        await rt.runIteration(maxCtx, avu);
        done++;
      }
    });
  } finally {
    maxCtx.cancel();
  }
  if (attempted < c.iterations) rt.emitDropped(c.iterations - attempted);
}

export async function runPerVUIterations(rt: ScenarioRuntime, parent: RunCtx): Promise<void> {
  const c = rt.config as Config<'per-vu-iterations'>;
  const { maxCtx, regCtx } = durationContexts(parent, c.maxDurationMs, c.gracefulStopMs);
  let done = 0;
  const total = c.vus * c.iterations;
  rt.started(() => done / total);
  try {
    await withPlannedVUs(rt, c.vus, maxCtx, async (avu) => {
      for (let i = 0; i < c.iterations; i++) {
        if (regCtx.done) {
          rt.emitDropped(c.iterations - i);
          return;
        }
        await rt.runIteration(maxCtx, avu);
        done++;
      }
    });
  } finally {
    maxCtx.cancel();
  }
}

export async function runConstantVUs(rt: ScenarioRuntime, parent: RunCtx): Promise<void> {
  const c = rt.config as Config<'constant-vus'>;
  const { start, maxCtx, regCtx } = durationContexts(parent, c.durationMs, c.gracefulStopMs);
  rt.started(() => Math.min(1, (Date.now() - start) / c.durationMs));
  try {
    await withPlannedVUs(rt, c.vus, maxCtx, async (avu) => {
      while (!regCtx.done) await rt.runIteration(maxCtx, avu);
    });
  } finally {
    maxCtx.cancel();
  }
}
