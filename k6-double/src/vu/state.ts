// Per-VU state the k6 modules read and write: k6's lib.State plus the bits of the VU it hangs
// off (ids, iteration counters, current tags). One instance per script context.

import type { Activation, LogLevel, Sample, TagSet, WorkerEvent } from '../shared/protocol';
import type { Realm } from './realm';
import type { SyncRpc } from './sync-rpc';

/**
 * init: the script's global scope runs (k6's "state == nil"); vu: a VU iteration;
 * setup/teardown/handleSummary: the lifecycle functions, each in its own fresh context as in k6.
 */
export type Phase = 'init' | 'vu' | 'setup' | 'teardown' | 'handleSummary';

export class VUState {
  phase: Phase = 'init';
  /** Current tags of the VU: run tags, scenario tags, system tags (scenario, group), vu.tags edits. */
  tags: TagSet = {};
  metadata: Record<string, string> = {};
  /** k6's VU.iteration: -1 before the first iteration, counts across scenarios. */
  iteration = -1;
  /** Iterations of this VU per scenario (execution.vu.iterationInScenario). */
  readonly scenarioIter = new Map<string, number>();
  activation: Activation | null = null;
  /** Options JSON for execution.test.options, set once the VU leaves init. */
  optionsJSON = '{}';

  constructor(
    readonly vuId: number,
    readonly vuIdGlobal: number,
    readonly realm: Realm,
    readonly rpc: SyncRpc,
    readonly post: (e: WorkerEvent) => void,
  ) {}

  get inInit(): boolean {
    return this.phase === 'init';
  }

  /** Samples go out at once: main decides whether they count (they do not after an interrupt). */
  emit(samples: Sample[]): void {
    this.post({ type: 'samples', samples });
  }

  emitOne(metric: string, value: number, tags: TagSet, time = Date.now()): void {
    this.emit([{ metric, value, time, tags }]);
  }

  log(level: LogLevel, msg: string, fields?: Record<string, string>): void {
    this.post({ type: 'log', level, msg, fields });
  }

  abort(reason: string): void {
    this.post({ type: 'abort', reason });
  }

  markFailed(reason: string): void {
    this.post({ type: 'log', level: 'error', msg: reason });
    this.post({ type: 'testFailed' });
  }
}

/**
 * k6's common.ApplyCustomUserTag(s): only strings, booleans and numbers are accepted, and they
 * are stored as their JS string form. Throws the message k6 uses; callers wrap it as k6 does.
 */
export function applyUserTags(target: TagSet, values: unknown): void {
  if (values === null || values === undefined) return;
  const obj = Object(values) as Record<string, unknown>;
  for (const key of Object.keys(obj)) applyUserTag(target, key, obj[key]);
}

export function applyUserTag(target: TagSet, key: string, value: unknown, kind: 'tag' | 'metadata' = 'tag'): void {
  const t = typeof value;
  if (t !== 'string' && t !== 'boolean' && t !== 'number') {
    throw new Error(
      kind === 'tag'
        ? `invalid value for metric tag '${key}': only String, Boolean and Number types are accepted as a metric tag values`
        : `invalid value for metric metadata '${key}': only String, Boolean and Number types are accepted as a metric metadata value`,
    );
  }
  target[key] = String(value);
}
