// What every executor shares (lib/executor/helpers.go, base_executor.go, js/runner.go's VU
// activation): the duration contexts, activating a VU for a scenario, running one iteration with
// k6's accounting (full vs interrupted, error logging, test.abort), dropped iterations.

import { RunCtx } from '../host/ctx';
import type { VUPool } from '../host/vu-pool';
import type { DoneEvent, VUWorker } from '../host/vu-worker';
import type { ScenarioConfig } from '../options';
import type { Activation, SerializedError, TagSet } from '../shared/protocol';

export class ExecutionState {
  startedAt = 0;
  endedAt = 0;
  fullIterations = 0;
  interruptedIterations = 0;
  activeVUs = 0;
  initializedVUs = 0;

  /** k6's GetCurrentTestRunDuration: from the start of setup() to the end of teardown(). */
  get durationMs(): number {
    if (this.startedAt === 0) return 0;
    return (this.endedAt || Date.now()) - this.startedAt;
  }
}

/** What the scenarios need from the test run. */
export interface RunHost {
  readonly state: ExecutionState;
  readonly pool: VUPool;
  /** The whole test run; samples are dropped once it is done (k6's PushIfNotDone). */
  readonly runCtx: RunCtx;
  readonly runTags: TagSet;
  readonly globalEnv: Record<string, string>;
  readonly optionsJSON: string;
  setupJSON(): string | null;
  emit(metric: string, value: number, tags: TagSet): void;
  /** Iteration samples (when full) and the VU's data_sent/data_received. */
  iterationDone(vu: VUWorker, event: Extract<DoneEvent, { type: 'iterDone' }>, full: boolean): void;
  log(level: 'warning' | 'error', msg: string, fields: Record<string, string>): void;
  abortTest(reason: string): void;
}

let activationSeq = 0;

export class ScenarioRuntime {
  startTime = 0;
  private progressFn: () => number = () => 0;
  private iterations = 0;
  private readonly iterationIndex: (() => [number, number]) | undefined;

  constructor(
    readonly config: ScenarioConfig,
    readonly host: RunHost,
  ) {
    this.iterationIndex = config.iterationTuple?.segmentedIndex();
  }

  get pool(): VUPool {
    return this.host.pool;
  }

  /** Executors call this when they start: scenario.startTime and scenario.progress read it. */
  started(progress: () => number): number {
    this.startTime = Date.now();
    this.progressFn = progress;
    return this.startTime;
  }

  progress(): number {
    return this.progressFn();
  }

  /** k6's VU.Activate: the VU runs this scenario until `ctx` ends; ending it interrupts the VU. */
  activate(vu: VUWorker, ctx: RunCtx, modifyActive: boolean): ActiveVU {
    return new ActiveVU(vu, this, ctx, ++activationSeq, modifyActive);
  }

  /**
   * k6's nextIterationCounters: [iterationInInstance, iterationInTest]; equal without execution
   * segments, else the test-wide number is striped by the scenario's segmented index.
   */
  nextIterationCounters(): [number, number] {
    if (!this.iterationIndex) {
      const i = this.iterations++;
      return [i, i];
    }
    const [scaled, unscaled] = this.iterationIndex();
    return [scaled - 1, unscaled - 1];
  }

  /**
   * k6's getIterationRunner: one iteration; true for a full one. An iteration still running when
   * `ctx` ends, or stopped by test.abort(), counts as interrupted; script exceptions are logged
   * and the iteration counts as full.
   */
  async runIteration(ctx: RunCtx, avu: ActiveVU): Promise<boolean> {
    const error = await avu.runOnce();
    const { state } = this.host;
    if (ctx.done || error?.kind === 'interrupt' || error?.kind === 'abort') {
      if (error?.kind === 'abort') this.host.abortTest(error.message);
      state.interruptedIterations++;
      return false;
    }
    if (error) {
      this.host.log('error', error.stack, { executor: this.config.executor, scenario: this.config.name, source: 'stacktrace' });
    }
    state.fullIterations++;
    return true;
  }

  emitDropped(count: number): void {
    if (count <= 0 || this.host.runCtx.done) return;
    this.host.emit('dropped_iterations', count, { ...this.host.runTags, scenario: this.config.name });
  }

  private readonly warned = new Set<string>();

  /** A warning with the executor's fields, once per scenario (like k6's shownWarning flags). */
  warnOnce(msg: string): void {
    if (this.warned.has(msg)) return;
    this.warned.add(msg);
    this.host.log('warning', msg, { executor: this.config.executor, scenario: this.config.name });
  }
}

export class ActiveVU {
  constructor(
    readonly vu: VUWorker,
    private readonly rt: ScenarioRuntime,
    readonly ctx: RunCtx,
    private readonly activationId: number,
    private readonly modifyActive: boolean,
  ) {}

  /** One call of the exec function; undefined when it completed without error. */
  async runOnce(): Promise<SerializedError | undefined> {
    if (this.ctx.done) return { kind: 'interrupt', name: 'Interrupted', message: 'context canceled', stack: '' };
    const { config, host } = this.rt;
    const [iterationInInstance, iterationInTest] = this.rt.nextIterationCounters();
    const activation: Activation = {
      activationId: this.activationId,
      scenario: config.name,
      executor: config.executor,
      exec: config.exec,
      env: { ...host.globalEnv, ...config.env },
      tags: { ...host.runTags, ...config.tags, group: '', scenario: config.name },
      startTime: this.rt.startTime,
      iterationInInstance,
      iterationInTest,
      optionsJSON: host.optionsJSON,
    };
    // Like k6, each VU receives the setup data once and keeps its own copy.
    const setupData = this.vu.hasSetupData ? undefined : host.setupJSON();
    this.vu.hasSetupData = true;
    const off = this.ctx.onDone(() => this.vu.interrupt());
    let done: DoneEvent;
    try {
      done = await this.vu.iterate(activation, setupData);
    } catch (e) {
      // Terminated after an interrupt it did not notice (stuck in JS): an interrupted iteration.
      if (!this.vu.alive) return { kind: 'interrupt', name: 'Interrupted', message: 'VU terminated', stack: '' };
      throw e;
    } finally {
      off();
    }
    if (done.type !== 'iterDone') throw new Error(`k6 double: unexpected ${done.type} from VU ${this.vu.id}`);
    host.iterationDone(this.vu, done, !this.ctx.done);
    return done.error;
  }

  /** Deactivates the VU and returns it to the pool. */
  release(): void {
    this.rt.pool.returnVU(this.vu, this.modifyActive);
  }
}

/** getDurationContexts: maxCtx ends at duration + gracefulStop, regCtx at duration. */
export function durationContexts(parent: RunCtx, regularMs: number, gracefulMs: number): { start: number; maxCtx: RunCtx; regCtx: RunCtx } {
  const start = Date.now();
  const maxCtx = parent.child(start + regularMs + gracefulMs);
  const regCtx = gracefulMs === 0 ? maxCtx : maxCtx.child(start + regularMs);
  return { start, maxCtx, regCtx };
}

/** Runs `body` for each of `count` planned VUs activated for this scenario, then returns them. */
export async function withPlannedVUs(
  rt: ScenarioRuntime,
  count: number,
  maxCtx: RunCtx,
  body: (avu: ActiveVU) => Promise<void>,
): Promise<void> {
  const vus = await Promise.all(Array.from({ length: count }, () => rt.pool.getPlannedVU(true)));
  await Promise.all(
    vus.map(async (vu) => {
      const avu = rt.activate(vu, maxCtx.child(), true);
      try {
        await body(avu);
      } finally {
        avu.ctx.cancel();
        avu.release();
      }
    }),
  );
}
