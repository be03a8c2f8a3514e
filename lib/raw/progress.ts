// Where a recorded test stopped: which of the plan's runs (cell × variant) the raw record holds
// whole, which one was in flight and which never started, and how the record ends. A run is
// whole when a later run's samples follow it (k6 starts the next run only after this one's
// graceful stop and a gap, and its output writes samples in the order they were taken), or when
// the record was closed by k6 after the run's load ended.
import type { Plan, Run } from '../plan/matrix';
import type { SummaryDataLike } from '../report/build-report';
import { subKey } from '../plan/summary-keys';
import { WRITTEN_MS, type Ending, type Progress, type RunProgress, type RunState } from '../report/figures/stopped-runs';
import type { RawRecord } from './record';

export { ENDINGS, stopSentence, type Ending, type Progress, type RunProgress, type RunState } from '../report/figures/stopped-runs';

/** k6 emits its vus gauge every second: a closed record reaching this close to a run's planned end ran it whole. */
const CLOSE_SLACK_MS = 1500;

/**
 * How the record ends and how far each run got. `closed`: the file ended as k6 closes it (gzip
 * trailer); false: cut off; null: cannot tell (a plain file), read as if cut off.
 */
export function progressOf(rec: RawRecord, plan: Plan, closedOrNot: boolean | null): Progress {
  const closed = closedOrNot === true;
  const spans = plan.runs.map((r) => rec.scenarios.get(r.scenario) ?? null);
  // The runs' start: setup's run record is written just before it; else the earliest run's first sample (each VU counts itself in at once).
  let t0: number | null = rec.metaMs;
  if (t0 === null) {
    for (let i = 0; i < plan.runs.length; i++) {
      const s = spans[i];
      if (s !== null) t0 = Math.min(t0 ?? Infinity, s.firstMs - plan.runs[i].startMs);
    }
  }
  const last = t0 === null || !Number.isFinite(rec.lastMs) ? null : rec.lastMs - t0;
  const iterations = rec.metrics.get('iterations');
  const iterationsOf = (scenario: string) => {
    let n = 0;
    for (const g of iterations?.groups.values() ?? []) if (g.tags.scenario === scenario) n += g.sum;
    return n;
  };
  const runs: RunProgress[] = plan.runs.map((run, i) => {
    const startedLater = plan.runs.some((r, j) => r.startMs > run.startMs && spans[j] !== null);
    const end = run.startMs + run.durationMs;
    let state: RunState;
    // A run without a sample whose time has passed ran and measured nothing (e.g. a variant down throughout).
    if (spans[i] === null && !startedLater) state = last !== null && last > end + run.gracefulStopMs ? 'complete' : 'not run';
    else if (startedLater || last === null) state = 'complete';
    else if (plan.requests !== null && iterationsOf(run.scenario) >= Math.max(plan.requests, run.vus))
      state = closed || last >= end + run.gracefulStopMs + WRITTEN_MS ? 'complete' : 'incomplete';
    // In REQUESTS mode a run whose time ran out (maxDuration) before its requests were sent is over too.
    else if (closed) state = last >= (plan.requests === null ? end - CLOSE_SLACK_MS : end + run.gracefulStopMs) ? 'complete' : 'incomplete';
    else state = last >= end + run.gracefulStopMs + WRITTEN_MS ? 'complete' : 'incomplete';
    const coveredMs =
      state === 'complete' ? run.durationMs : state === 'not run' || last === null ? 0 : Math.max(0, Math.min(run.durationMs, last - run.startMs));
    return { scenario: run.scenario, index: i, state, coveredMs };
  });
  const whole = runs.every((r) => r.state === 'complete');
  const ending: Ending = whole && closedOrNot !== false ? 'finished' : closedOrNot === null ? 'ended early' : closed ? 'stopped' : 'killed';
  return { ending, t0Ms: t0, stoppedAtMs: last, runs };
}

/**
 * How far each run got when the test stopped `elapsedMs` after its runs started, from the plan's
 * times alone: what handleSummary can tell after a graceful stop (Ctrl-C, SIGTERM). In REQUESTS
 * mode a run ends when its requests are done, before its time is up: `sent` says whether it did.
 */
export function progressAt(plan: Plan, elapsedMs: number, ending: Exclude<Ending, 'finished'>, sent: (run: Run) => boolean = () => false): Progress {
  const runs: RunProgress[] = plan.runs.map((run, index) => {
    const started = elapsedMs > run.startMs;
    const state: RunState =
      elapsedMs >= run.startMs + run.durationMs || (started && plan.requests !== null && sent(run)) ? 'complete' : started ? 'incomplete' : 'not run';
    return { scenario: run.scenario, index, state, coveredMs: state === 'complete' ? run.durationMs : state === 'incomplete' ? elapsedMs - run.startMs : 0 };
  });
  return { ending: runs.every((r) => r.state === 'complete') ? 'finished' : ending, t0Ms: null, stoppedAtMs: elapsedMs, runs };
}

/**
 * handleSummary's side of a graceful stop (Ctrl-C, SIGTERM): when the runs' start was stamped in
 * setup's data (writeRunRecord), how far each run got by now, from the plan's times; buildReport marks
 * the report from it as `npm run report` marks one rebuilt from its record. null without the stamp.
 */
export function stoppedProgress(plan: Plan, data: SummaryDataLike, nowMs: number): Progress | null {
  const start = data.setup_data?.runsStartMs;
  if (typeof start !== 'number') return null;
  const sent = (run: Run) => {
    const v = data.metrics[subKey('success', run.scenario)]?.values;
    return (v?.passes ?? 0) + (v?.fails ?? 0) >= Math.max(plan.requests ?? 0, run.vus);
  };
  return progressAt(plan, nowMs - start, 'stopped', sent);
}
