// Executor dispatch and the one-line descriptions k6 prints under "scenarios:".

import type { RunCtx } from '../host/ctx';
import type { ExecutorType, ScenarioConfig } from '../options';
import { formatGoDuration as d } from '../shared/duration';
import { runConstantArrivalRate, runRampingArrivalRate } from './arrival-rate';
import { runConstantVUs, runPerVUIterations, runSharedIterations } from './iterations';
import { executionRequirements, stagesDuration } from './plan';
import { runRampingVUs } from './ramping-vus';
import type { ScenarioRuntime } from './runtime';

const RUNNERS: Record<ExecutorType, (rt: ScenarioRuntime, parent: RunCtx) => Promise<void>> = {
  'shared-iterations': runSharedIterations,
  'per-vu-iterations': runPerVUIterations,
  'constant-vus': runConstantVUs,
  'ramping-vus': runRampingVUs,
  'constant-arrival-rate': runConstantArrivalRate,
  'ramping-arrival-rate': runRampingArrivalRate,
};

export function runExecutor(rt: ScenarioRuntime, parent: RunCtx): Promise<void> {
  return RUNNERS[rt.config.executor](rt, parent);
}

export function describeScenario(c: ScenarioConfig): string {
  const facts: string[] = [];
  const extra = (...f: string[]) => {
    facts.push(...f);
    if (c.exec !== 'default') facts.push(`exec: ${c.exec}`);
    if (c.startTimeMs > 0) facts.push(`startTime: ${d(c.startTimeMs)}`);
    if (c.gracefulStopMs > 0) facts.push(`gracefulStop: ${d(c.gracefulStopMs)}`);
    return facts.length > 0 ? ` (${facts.join(', ')})` : '';
  };
  const maxVUs = (pre: number, max: number) => `maxVUs: ${pre}${max > pre ? `-${max}` : ''}`;
  switch (c.executor) {
    case 'shared-iterations':
      return `${c.iterations} iterations shared among ${c.vus} VUs${extra(`maxDuration: ${d(c.maxDurationMs)}`)}`;
    case 'per-vu-iterations':
      return `${c.iterations} iterations for each of ${c.vus} VUs${extra(`maxDuration: ${d(c.maxDurationMs)}`)}`;
    case 'constant-vus':
      return `${c.vus} looping VUs for ${d(c.durationMs)}${extra()}`;
    case 'ramping-vus': {
      const max = Math.max(...executionRequirements(c).map((s) => s.vus));
      return `Up to ${max} looping VUs for ${d(stagesDuration(c.stages))} over ${c.stages.length} stages${extra(
        `gracefulRampDown: ${d(c.gracefulRampDownMs)}`,
      )}`;
    }
    case 'constant-arrival-rate':
      return `${((c.rate * 1000) / c.timeUnitMs).toFixed(2)} iterations/s for ${d(c.durationMs)}${extra(maxVUs(c.preAllocatedVUs, c.maxVUs))}`;
    case 'ramping-arrival-rate': {
      const peak = Math.max(c.startRate, ...c.stages.map((s) => s.target));
      return `Up to ${((peak * 1000) / c.timeUnitMs).toFixed(2)} iterations/s for ${d(stagesDuration(c.stages))} over ${
        c.stages.length
      } stages${extra(maxVUs(c.preAllocatedVUs, c.maxVUs))}`;
    }
  }
}
