// The worker that runs setup(), teardown() and handleSummary(): like k6, each call gets a fresh
// evaluation of the script (VU id 0) and a time limit (setupTimeout, teardownTimeout, 2 minutes
// for handleSummary). On expiry the VU is interrupted; one stuck in plain JS is terminated and
// replaced for the next phase.

import type { HttpDefaults, LifecycleName, SerializedError, SummaryOutput, TagSet } from '../shared/protocol';
import type { DoneEvent, VUWorker } from './vu-worker';

export type LifecycleResult =
  | { kind: 'ok'; json?: string | null; summary?: SummaryOutput; resultError?: string }
  | { kind: 'error'; error: SerializedError }
  | { kind: 'timeout'; seconds: string };

export interface LifecycleCall {
  name: LifecycleName;
  /** JSON argument: setup data for teardown, summary data for handleSummary. */
  arg: string | null;
  tags: TagSet;
  optionsJSON: string;
  http: HttpDefaults;
  timeoutMs: number;
}

export class LifecycleVU {
  private vu: VUWorker | null = null;

  constructor(
    private readonly spawn: () => VUWorker,
    /** Called after each call with the worker, so the run can flush its data_* counters. */
    private readonly after: (vu: VUWorker, tags: TagSet) => void,
  ) {}

  /** The worker, started on first use (the options init runs in it too). */
  worker(): VUWorker {
    if (!this.vu?.alive) this.vu = this.spawn();
    return this.vu;
  }

  async call(c: LifecycleCall): Promise<LifecycleResult> {
    const vu = this.worker();
    const init = await vu.init(0, false, c.http);
    if (init.type === 'initError') return { kind: 'error', error: init.error };
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      vu.interrupt();
    }, c.timeoutMs);
    let done: DoneEvent | undefined;
    try {
      done = await vu.lifecycle(c.name, c.arg, c.tags, c.optionsJSON);
    } catch {
      // The worker was terminated because it ignored the interrupt.
    } finally {
      clearTimeout(timer);
      this.after(vu, c.tags);
    }
    if (timedOut || !done || done.type !== 'lifecycleDone') return { kind: 'timeout', seconds: goSeconds(c.timeoutMs) };
    if (done.error) return { kind: 'error', error: done.error };
    return { kind: 'ok', json: done.json, summary: done.summary, resultError: done.resultError };
  }
}

/** Go's "%.f" of a duration in seconds: rounds half to even. */
function goSeconds(ms: number): string {
  const s = ms / 1000;
  const floor = Math.floor(s);
  const diff = s - floor;
  return String(diff > 0.5 || (diff === 0.5 && floor % 2 === 1) ? floor + 1 : floor);
}
