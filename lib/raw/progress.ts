// Where a recorded run stopped: which of the plan's runs (cell × target) the raw record holds
// whole, which one was in flight and which never started, and how the record ends. A run is
// whole when a later run's samples follow it (k6 starts the next run only after this one's
// graceful stop and a gap, and its output writes samples in the order they were taken), or when
// the record was closed by k6 after the run's load ended.
import type { BenchConfig } from '../config/types';
import type { Plan, Run } from '../plan/matrix';
import { steadyWindow } from '../plan/matrix';
import { findFallBehind, findKnee } from '../report/analysis';
import type { RunFigures } from '../report/model';
import type { Report, SummaryDataLike } from '../report/report';
import { subKey } from '../plan/summary-keys';
import { versus } from '../report/versus';
import { tMeanInterval } from '../stats/t-interval';
import type { RawRecord } from './record';

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
const WRITTEN_MS = 1000;
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
    // A run without a sample whose time has passed ran and measured nothing (e.g. a target down throughout).
    if (spans[i] === null && !startedLater) state = last !== null && last > end + run.gracefulStopMs ? 'complete' : 'not run';
    else if (startedLater || last === null) state = 'complete';
    else if (plan.requests !== null && iterationsOf(run.scenario) >= Math.max(plan.requests, run.vus)) state = closed || last >= end + run.gracefulStopMs + WRITTEN_MS ? 'complete' : 'incomplete';
    // In REQUESTS mode a run whose time ran out (maxDuration) before its requests were sent is over too.
    else if (closed) state = last >= (plan.requests === null ? end - CLOSE_SLACK_MS : end + run.gracefulStopMs) ? 'complete' : 'incomplete';
    else state = last >= end + run.gracefulStopMs + WRITTEN_MS ? 'complete' : 'incomplete';
    const coveredMs = state === 'complete' ? run.durationMs : state === 'not run' || last === null ? 0 : Math.max(0, Math.min(run.durationMs, last - run.startMs));
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
    const state: RunState = elapsedMs >= run.startMs + run.durationMs || (started && plan.requests !== null && sent(run)) ? 'complete' : started ? 'incomplete' : 'not run';
    return { scenario: run.scenario, index, state, coveredMs: state === 'complete' ? run.durationMs : state === 'incomplete' ? elapsedMs - run.startMs : 0 };
  });
  return { ending: runs.every((r) => r.state === 'complete') ? 'finished' : ending, t0Ms: null, stoppedAtMs: elapsedMs, runs };
}

const sec = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

export const ENDINGS: Record<Exclude<Ending, 'finished'>, string> = {
  stopped: 'k6 stopped the test early and closed the record (Ctrl-C or SIGTERM: its graceful stop; or test.abort, or a threshold with abortOnFail)',
  killed: 'the record is cut off mid-write: the k6 process died without closing it (SIGKILL, the OOM killer, a CI timeout, a lost node), or it is still running',
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
    where = `, ${sec(inFlight.coveredMs)} into run ${inFlight.index + 1}/${n} (${run.variant} ${run.cell.id}, ${sec(run.durationMs)} of load): ${done} run(s) complete, run ${inFlight.index + 1} incomplete (partial figures), ${n - done - 1} not run`;
  } else where = `: ${done} of ${n} run(s) complete, ${n - done} not run`;
  return `partial run: the test stopped ${at}${where}; ${ENDINGS[progress.ending]}.`;
}

/**
 * Marks the report of a run that stopped early: the stop sentence at the top and first in the
 * warnings, each run's state in its notes, the in-flight run's throughput and request rate over
 * the steady slices it measured whole (a slice is whole when the record goes on for the run's
 * longest request after it), and the conclusions (knee, fall-behind, comparisons, the N-way
 * verdicts) drawn again from the complete runs only.
 */
export function markPartial(report: Report, cfg: Pick<BenchConfig, 'targets' | 'baseline'>, plan: Plan, progress: Progress, e2eMaxMs: (scenario: string) => number): void {
  const sentence = stopSentence(progress, plan);
  if (sentence === null) return;
  report.warnings.unshift(sentence);
  // At the top of report.md and report.html too, with what is missing.
  report.notMeasured.unshift(sentence);
  for (const p of progress.runs) {
    const r = report.runs.find((x) => x.scenario === p.scenario);
    if (!r) continue;
    if (p.state === 'not run') r.notes.unshift('not run: the test stopped before this run started.');
    if (p.state !== 'incomplete') continue;
    const run = plan.runs[p.index];
    const wholeSlices = partialWindow(r, plan, run, progress.stoppedAtMs ?? 0, e2eMaxMs(run.scenario));
    r.notes.unshift(
      `incomplete: the test stopped ${sec(p.coveredMs)} into this run's ${sec(run.durationMs)} of load; its figures are partial (what the record holds)` +
        (plan.requests === null ? (wholeSlices > 0 ? `, throughput and request rate over the ${wholeSlices} steady slice(s) measured whole.` : ', and no steady slice was measured whole: no throughput.') : '.'),
    );
  }
  const complete = new Set(progress.runs.filter((p) => p.state === 'complete').map((p) => p.scenario));
  const runs = report.runs.filter((r) => complete.has(r.scenario));
  const cells = plan.cells.filter((c) => report.runs.filter((r) => r.cellId === c.id).every((r) => complete.has(r.scenario)));
  if (report.knee) report.knee = findKnee(runs);
  if (report.fallBehind) report.fallBehind = findFallBehind(runs);
  report.comparisons = report.comparisons.filter((c) => cells.some((x) => x.id === c.cellId));
  if (report.versus) report.versus = versus(runs, cells, cfg.targets.map((t) => t.variant), cfg.baseline, plan.sliceMs);
  report.warnings.splice(1, 0, `conclusions (knee, fall-behind, comparisons) from the ${runs.length} complete run(s) only.`);
}

/** Cuts an in-flight run's slice figures to the slices the record holds whole; returns how many. */
function partialWindow(r: RunFigures, plan: Plan, run: Run, stoppedAtMs: number, e2eMaxMs: number): number {
  if (plan.requests !== null || r.window === null) return 0;
  const w = steadyWindow(plan);
  const first = plan.slices > 1 ? 1 : 0;
  let whole = 0;
  for (let k = first; k < plan.slices; k++) {
    const sliceEnd = run.startMs + (k + 1) * plan.sliceMs;
    if (sliceEnd + e2eMaxMs + WRITTEN_MS <= stoppedAtMs) whole++;
    else break;
  }
  const before = r.requestRate;
  r.slices = r.slices.slice(0, whole);
  r.window = { fromMs: w.fromMs, toMs: w.fromMs + whole * plan.sliceMs, method: r.window.method };
  if (whole === 0) {
    r.throughput = null;
    r.throughputCi = null;
    r.requestRate = null;
    r.goodput = null;
    return 0;
  }
  const seconds = (whole * plan.sliceMs) / 1000;
  const tokensPerSec = r.slices.map((s) => s[0]);
  const requests = r.slices.reduce((a, s) => a + s[2], 0);
  if (r.throughput !== null) {
    r.throughput = tokensPerSec.reduce((a, b) => a + b, 0) / whole;
    r.throughputCi = tMeanInterval(tokensPerSec, 0.95);
  }
  if (r.requestRate !== null) r.requestRate = requests / seconds;
  if (r.goodput !== null && before) r.goodput = (r.requestRate ?? 0) * (r.goodput / before);
  return whole;
}

/**
 * handleSummary's side of a graceful stop (Ctrl-C, SIGTERM): when the runs' start was stamped
 * in setup's data (recordRun) and the summary comes before the plan's end, the report is marked
 * as a partial run, as `npm run report` marks one rebuilt from its record.
 */
export function markStopped(report: Report, cfg: Pick<BenchConfig, 'targets' | 'baseline'>, plan: Plan, data: SummaryDataLike, nowMs: number): void {
  const setup = data.setup_data;
  const start = setup?.runsStartMs;
  if (typeof start !== 'number' || setup?.failures?.length) return;
  const sent = (run: Run) => {
    const v = data.metrics[subKey('success', run.scenario)]?.values;
    return (v?.passes ?? 0) + (v?.fails ?? 0) >= Math.max(plan.requests ?? 0, run.vus);
  };
  markPartial(report, cfg, plan, progressAt(plan, nowMs - start, 'stopped', sent), (s) => data.metrics[subKey('e2e', s)]?.values.max ?? 0);
}
