// Execution requirements: how many VUs each executor needs over time (GetExecutionRequirements in
// lib/executor/*.go) and the whole test's plan (lib.ScenarioConfigs.GetFullExecutionRequirements).
// The plan sizes the VU pool: max planned VUs are initialised before the test starts, and up to
// (max possible - max planned) more may be initialised mid-test by arrival-rate executors.
// Time offsets are in ms; ramping-vus arithmetic is done in integer nanoseconds like Go's.

import type { ScenarioConfig, Stage } from '../options';

export interface Step {
  offsetMs: number;
  vus: number;
  unplanned: number;
}

const NS = 1e6;

export function stagesDuration(stages: Stage[]): number {
  return stages.reduce((sum, s) => sum + s.durationMs, 0);
}

/** ramping-vus: the VU count over time, one step per change (getRawExecutionSteps, no segments). */
export function rampingRawSteps(startVUs: number, stages: Stage[], zeroEnd: boolean): Step[] {
  const steps: Step[] = [{ offsetMs: 0, vus: startVUs, unplanned: 0 }];
  const add = (offsetNs: number, vus: number) => {
    if (steps[steps.length - 1]!.vus !== vus) steps.push({ offsetMs: offsetNs / NS, vus, unplanned: 0 });
  };
  let timeTillEnd = 0;
  let fromVUs = startVUs;
  // Go walks a segmented index whose position carries over between stages; after a ramp up it
  // sits one past the target. Reproducing that keeps the step times identical to k6's.
  let index = startVUs;
  for (const stage of stages) {
    const endVUs = stage.target;
    const durNs = Math.round(stage.durationMs * NS);
    timeTillEnd += durNs;
    const diff = endVUs - fromVUs;
    if (diff === 0) continue;
    if (durNs === 0) {
      index = endVUs;
      add(timeTillEnd, endVUs);
      fromVUs = endVUs;
      continue;
    }
    if (index > endVUs) {
      for (; index > endVUs; index--) add(timeTillEnd - Math.trunc((durNs * (endVUs - index + 1)) / diff), index - 1);
    } else {
      for (; index <= endVUs; index++) add(timeTillEnd - Math.trunc((durNs * (endVUs - index)) / diff), index);
    }
    fromVUs = endVUs;
  }
  if (zeroEnd && steps[steps.length - 1]!.vus !== 0) steps.push({ offsetMs: timeTillEnd / NS, vus: 0, unplanned: 0 });
  return steps;
}

/** reserveVUsForGracefulRampDowns: keeps ramped-down VUs allocated for gracefulRampDown. */
function reserveForGracefulRampDowns(raw: Step[], graceMs: number, endMs: number): Step[] {
  const out: Step[] = [];
  let lastPlanned = 0;
  let lastDownwardSlopeStep = 0;
  for (let n = 0; n < raw.length; n++) {
    const step = raw[n]!;
    if (n === 0 || step.vus > lastPlanned) {
      out.push(step);
      lastPlanned = step.vus;
      continue;
    }
    if (step.vus === lastPlanned) continue;
    const withTimeout = step.offsetMs + graceMs;
    let skipped = false;
    let wasRampingDown = true;
    for (let adv = Math.max(n + 1, lastDownwardSlopeStep); adv < raw.length; adv++) {
      const advStep = raw[adv]!;
      if (advStep.offsetMs > withTimeout) break;
      if (advStep.vus >= lastPlanned) {
        n = adv - 1;
        skipped = true;
        break;
      }
      if (wasRampingDown) {
        if (raw[adv - 1]!.vus > advStep.vus) lastDownwardSlopeStep = adv;
        else wasRampingDown = false;
      }
    }
    if (skipped) continue;
    if (withTimeout >= endMs) break;
    out.push({ offsetMs: withTimeout, vus: step.vus, unplanned: 0 });
    lastPlanned = step.vus;
  }
  return out;
}

export function rampingGracefulSteps(c: Extract<ScenarioConfig, { executor: 'ramping-vus' }>): Step[] {
  let steps = rampingRawSteps(c.startVUs, c.stages, false);
  const endMs = stagesDuration(c.stages) + c.gracefulStopMs;
  if (c.gracefulRampDownMs > 0) steps = reserveForGracefulRampDowns(steps, c.gracefulRampDownMs, endMs);
  if (steps[steps.length - 1]!.vus !== 0) steps.push({ offsetMs: endMs, vus: 0, unplanned: 0 });
  return steps;
}

export function executionRequirements(c: ScenarioConfig): Step[] {
  const span = (vus: number, untilMs: number, unplanned = 0): Step[] => [
    { offsetMs: 0, vus, unplanned },
    { offsetMs: untilMs + c.gracefulStopMs, vus: 0, unplanned: 0 },
  ];
  switch (c.executor) {
    case 'shared-iterations':
    case 'per-vu-iterations':
      return span(c.vus, c.maxDurationMs);
    case 'constant-vus':
      return span(c.vus, c.durationMs);
    case 'ramping-vus':
      return rampingGracefulSteps(c);
    case 'constant-arrival-rate':
      return span(c.preAllocatedVUs, c.durationMs, c.maxVUs - c.preAllocatedVUs);
    case 'ramping-arrival-rate':
      return span(c.preAllocatedVUs, stagesDuration(c.stages), c.maxVUs - c.preAllocatedVUs);
  }
}

/** The whole test's plan: every executor's steps shifted by its startTime and summed. */
export function testPlan(scenarios: ScenarioConfig[]): { maxPlanned: number; maxPossible: number; endMs: number } {
  const tracked = scenarios.flatMap((c, id) =>
    executionRequirements(c).map((s) => ({ ...s, offsetMs: s.offsetMs + c.startTimeMs, id })),
  );
  tracked.sort((a, b) => a.offsetMs - b.offsetMs || a.id - b.id);
  const planned = new Array<number>(scenarios.length).fill(0);
  const unplanned = new Array<number>(scenarios.length).fill(0);
  const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
  let maxPlanned = 0;
  let maxPossible = 0;
  let endMs = 0;
  for (const s of tracked) {
    planned[s.id] = s.vus;
    unplanned[s.id] = s.unplanned;
    maxPlanned = Math.max(maxPlanned, sum(planned));
    maxPossible = Math.max(maxPossible, sum(planned) + sum(unplanned));
    endMs = s.offsetMs;
  }
  return { maxPlanned, maxPossible, endMs };
}
