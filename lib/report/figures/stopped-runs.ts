// A run the test stopped early, as the report sees it: which of the plan's runs (cell × variant)
// ran whole, which was in flight and which never started (lib/raw/progress.ts tells it from the raw
// record, or from the clock in handleSummary), the sentence that says so, and how many steady
// slices the run in flight measured whole. buildReport builds such a report once from this.
import type { Plan, Run } from '../../plan/matrix';

export type RunState = 'complete' | 'incomplete' | 'not run';

/**
 * finished: k6 closed the record after every run. stopped: k6 closed it early (Ctrl-C or SIGTERM,
 * its graceful stop; test.abort; an aborting threshold). killed: the record is cut off mid-write,
 * the k6 process died without closing it (SIGKILL, the OOM killer, a lost node) or still runs.
 * ended early: a plain (not gzip) record that stops before the plan's end: it cannot tell which.
 */
export type Ending = 'finished' | 'stopped' | 'killed' | 'ended early';

export interface RunProgress {
  scenario: string;
  index: number;
  state: RunState;
  /** ms of the run's load the record covers (its duration when complete, 0 when not run). */
  coveredMs: number;
}

export interface Progress {
  ending: Ending;
  /** The start of the test's runs (after setup), epoch ms; null when no run left a sample. */
  t0Ms: number | null;
  /** The last sample's time, ms from t0; null when no run left a sample. */
  stoppedAtMs: number | null;
  runs: RunProgress[];
}

/** A sample taken this long after a run's planned end proves that all its samples were written. */
export const WRITTEN_MS = 1000;
const sec = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

export const ENDINGS: Record<Exclude<Ending, 'finished'>, string> = {
  stopped: 'k6 stopped the test early and closed the record (Ctrl-C or SIGTERM: its graceful stop; or test.abort, or a threshold with abortOnFail)',
  killed:
    'the record is cut off mid-write: the k6 process died without closing it (SIGKILL, the OOM killer, a CI timeout, a lost node), or it is still running',
  'ended early': 'a plain .json record does not tell a graceful stop from a kill (a .json.gz one does)',
};

/** One sentence: where the run stopped and why the report is partial; null for a finished run. */
export function stopSentence(progress: Progress, plan: Plan): string | null {
  // Killed after its last run (in teardown or the summary): every figure is there.
  if (progress.ending === 'finished' || progress.runs.every((r) => r.state === 'complete')) return null;
  const inFlight = progress.runs.find((r) => r.state === 'incomplete');
  const done = progress.runs.filter((r) => r.state === 'complete').length;
  const n = plan.runs.length;
  const at = progress.stoppedAtMs === null ? 'before any run started' : `${sec(progress.stoppedAtMs)} into the test's ${sec(plan.totalMs)} of runs`;
  let where: string;
  if (inFlight) {
    const run = plan.runs[inFlight.index];
    where =
      `, ${sec(inFlight.coveredMs)} into run ${inFlight.index + 1}/${n} (${run.variant} ${run.cell.id}, ${sec(run.durationMs)} ` +
      `of load): ${done} run(s) complete, run ${inFlight.index + 1} incomplete (partial figures), ${n - done - 1} not run`;
  } else where = `: ${done} of ${n} run(s) complete, ${n - done} not run`;
  return `partial run: the test stopped ${at}${where}; ${ENDINGS[progress.ending]}.`;
}

/**
 * How many of an in-flight run's steady slices the record holds whole: a slice is whole when the
 * record goes on for the run's longest request (`e2eMaxMs`) after it. 0 in REQUESTS mode (no slices).
 */
export function wholeSlices(plan: Plan, run: Run, stoppedAtMs: number, e2eMaxMs: number): number {
  if (plan.requests !== null) return 0;
  const first = plan.slices > 1 ? 1 : 0;
  let whole = 0;
  for (let k = first; k < plan.slices; k++) {
    const sliceEnd = run.startMs + (k + 1) * plan.sliceMs;
    if (sliceEnd + e2eMaxMs + WRITTEN_MS <= stoppedAtMs) whole++;
    else break;
  }
  return whole;
}

/** The note on a run the test stopped in; `whole`: its steady slices measured whole (null in REQUESTS mode). */
export function incompleteNote(p: RunProgress, run: Run, whole: number | null): string {
  const throughput =
    whole === null
      ? '.'
      : whole > 0
        ? `, throughput and request rate over the ${whole} steady slice(s) measured whole.`
        : ', and no steady slice was measured whole: no throughput.';
  return (
    `incomplete: the test stopped ${sec(p.coveredMs)} into this run's ${sec(run.durationMs)} of load; its ` +
    `figures are partial (what the record holds)${throughput}`
  );
}

export const NOT_RUN_NOTE = 'not run: the test stopped before this run started.';
