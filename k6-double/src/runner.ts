// One `k6 run`, following internal/cmd/run.go and internal/execution/scheduler.go:
//
//   init (options)  a fresh script context reads `options`; failing here ends the run with no
//                   summary: 107 for an exception, 108 for test.abort(), 104 for bad config
//   init VUs        the planned VUs, each a worker thread with its own evaluation of the script
//   setup()         in its own fresh context; a failure skips the scenarios AND teardown
//   scenarios       each at its startTime, counted from the end of setup()
//   teardown()      in its own fresh context, also after test.abort() (k6 runs it with the
//                   global context), not after a setup() failure
//   thresholds      final evaluation; crossed thresholds give 99 only if nothing failed before
//   handleSummary() in its own fresh context, whatever happened after the options init; when it
//                   throws, k6 logs the error and prints the default summary: the exit code
//                   does not change
//
// Exit codes (errext/exitcodes): 0; 99 thresholds crossed (also abortOnFail); 100/101 setup/
// teardown timeout; 104 invalid configuration; 107 script exception in init, setup or teardown
// (exceptions in iterations are only logged); 108 test.abort(); 110 execution.test.fail().

import * as fs from 'node:fs';
import * as path from 'node:path';
import { describeScenario, runExecutor } from './executors/index';
import { testPlan } from './executors/plan';
import { ExecutionState, ScenarioRuntime, type RunHost } from './executors/runtime';
import { workerEntry } from './host/compile';
import { RunCtx, sleepUntil } from './host/ctx';
import { LifecycleVU, type LifecycleResult } from './host/lifecycle-vu';
import { OutputSink } from './host/log';
import { VUServices, type ServiceHost } from './host/services';
import { writeSummaryOutputs } from './host/summary-writer';
import { VUPool } from './host/vu-pool';
import { VUWorker, type DoneEvent } from './host/vu-worker';
import { ConfigError, MetricsEngine } from './metrics/engine';
import { GroupTree } from './metrics/groups';
import { MetricRegistry } from './metrics/registry';
import { buildSummaryData, textSummary, type SummaryData } from './metrics/summary';
import { DEFAULT_HTTP, normalizeOptions, type TestOptions } from './options';
import { formatGoDuration } from './shared/duration';
import type { InstanceInfo, LifecycleName, LogLevel, Sample, SerializedError, SummaryOutput, TagSet } from './shared/protocol';
import type { K6RunResult, RunOptions } from './types';

/** k6 evaluates abortOnFail thresholds every 2 s (engine.thresholdsRate). */
const THRESHOLDS_EVERY_MS = 2000;
const HANDLE_SUMMARY_TIMEOUT_MS = 120_000;

interface RunError {
  code: number;
  message: string;
  hint?: string;
}

class InitFailure extends Error {
  constructor(readonly error: SerializedError) {
    super(error.message);
  }
}

export class K6DoubleTimeoutError extends Error {
  constructor(
    readonly timeoutMs: number,
    readonly stdout: string,
    readonly stderr: string,
  ) {
    super(`k6 double: the run did not finish within timeoutMs=${timeoutMs}`);
  }
}

export async function runK6(scriptPath: string, opts: RunOptions = {}): Promise<K6RunResult> {
  const run = new TestRun(path.resolve(scriptPath), opts);
  const execution = run.execute();
  if (!opts.timeoutMs) return execution;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const { stdout, stderr } = run.output;
      execution.catch(() => {});
      void run.shutdown().then(() => reject(new K6DoubleTimeoutError(opts.timeoutMs!, stdout, stderr)));
    }, opts.timeoutMs);
  });
  try {
    return await Promise.race([execution, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

function scriptError(e: SerializedError): RunError {
  if (e.kind === 'abort') return { code: 108, message: e.message };
  if (e.kind === 'interrupt') return { code: 108, message: 'test run was aborted' };
  return { code: 107, message: e.stack || e.message, hint: 'script exception' };
}

class TestRun implements ServiceHost, RunHost {
  readonly registry = new MetricRegistry();
  readonly state = new ExecutionState();
  readonly runCtx = new RunCtx();
  readonly output: OutputSink;
  pool!: VUPool;
  readonly globalEnv: Record<string, string>;

  private readonly engine = new MetricsEngine(this.registry);
  private readonly groups = new GroupTree();
  private readonly services = new VUServices(this);
  private readonly workers = new Set<VUWorker>();
  private readonly runtimes = new Map<string, ScenarioRuntime>();
  private readonly timers: NodeJS.Timeout[] = [];
  private readonly files: string[] = [];
  private readonly cwd: string;
  private readonly lifecycleVU = new LifecycleVU(
    () => this.spawn(0),
    (vu, tags) => this.ingest(null, this.dataSamples(vu, tags, Date.now())),
  );
  /** VU ids: local (__VU) 1, 2, 3...; global (idInTest) striped by the execution segment. */
  private vuIds: () => [number, number] = () => [0, 0];
  private readonly globalVUIds = new Map<number, number>();
  private entry = '';
  private source = '';
  private options!: TestOptions;
  private exportsList: string[] = [];
  private setupData: string | null = null;
  private runError: RunError | null = null;
  private abortError: RunError | null = null;
  private markedFailed = false;
  private summaryPhase = false;
  private summaryData: SummaryData | undefined;
  private closed = false;

  constructor(
    private readonly scriptPath: string,
    private readonly opts: RunOptions,
  ) {
    this.output = new OutputSink(opts.echo ?? false);
    this.cwd = opts.cwd ?? process.cwd();
    const system = opts.includeSystemEnv ? (Object.fromEntries(Object.entries(process.env).filter(([, v]) => v !== undefined)) as Record<string, string>) : {};
    this.globalEnv = { ...system, ...(opts.env ?? {}) };
  }

  get runTags(): TagSet {
    return this.options.runTags;
  }

  get optionsJSON(): string {
    return this.options.json;
  }

  setupJSON(): string | null {
    return this.setupData;
  }

  async execute(): Promise<K6RunResult> {
    const t0 = performance.now();
    try {
      await this.run();
    } finally {
      await this.shutdown();
    }
    return {
      exitCode: this.runError?.code ?? 0,
      stdout: this.output.stdout,
      stderr: this.output.stderr,
      files: this.files,
      summaryData: this.summaryData,
      durationMs: performance.now() - t0,
    };
  }

  async shutdown(): Promise<void> {
    this.closed = true;
    for (const t of this.timers) clearInterval(t);
    this.runCtx.cancel();
    this.services.close();
    await Promise.all([...this.workers].map((w) => w.terminate()));
  }

  // ---- ServiceHost / RunHost --------------------------------------------------------------

  ingest(vu: VUWorker | null, samples: Sample[]): void {
    // k6 discards whatever handleSummary() emits.
    if (this.summaryPhase) return;
    for (const s of samples) {
      if (vu && s.time > vu.acceptSamplesUntil) continue;
      this.engine.ingest(s);
      this.groups.ingest(s);
    }
  }

  emit(metric: string, value: number, tags: TagSet): void {
    this.ingest(null, [{ metric, value, time: Date.now(), tags }]);
  }

  iterationDone(vu: VUWorker, event: Extract<DoneEvent, { type: 'iterDone' }>, full: boolean): void {
    const { endMs, startMs, tags } = event;
    const samples = this.dataSamples(vu, tags, endMs);
    if (full) {
      samples.push({ metric: 'iteration_duration', value: endMs - startMs, time: endMs, tags }, { metric: 'iterations', value: 1, time: endMs, tags });
    }
    // Not subject to the VU's cut-off: k6 pushes these without checking its context.
    this.ingest(null, samples);
  }

  log(level: LogLevel, msg: string, fields?: Record<string, string>): void {
    this.output.log(level, msg, fields);
  }

  abortTest(reason: string, code = 108): void {
    if (this.abortError) return;
    this.abortError = { code, message: reason };
    this.runCtx.cancel();
  }

  markFailed(): void {
    this.markedFailed = true;
  }

  instanceInfo(): InstanceInfo {
    const s = this.state;
    return {
      currentTestRunDuration: s.durationMs,
      iterationsCompleted: s.fullIterations,
      iterationsInterrupted: s.interruptedIterations,
      vusActive: s.activeVUs,
      vusInitialized: s.initializedVUs,
    };
  }

  scenarioProgress(scenario: string): number {
    return this.runtimes.get(scenario)?.progress() ?? 0;
  }

  // ---- phases -----------------------------------------------------------------------------

  private async run(): Promise<void> {
    this.entry = workerEntry();
    this.source = fs.readFileSync(this.scriptPath, 'utf8');
    const init = await this.lifecycleVU.worker().init(0, true, DEFAULT_HTTP);
    if (init.type === 'initError') return this.finish(scriptError(init.error));
    if (init.type !== 'initDone') throw new Error(`k6 double: unexpected ${init.type}`);
    this.exportsList = init.exports;
    try {
      this.options = normalizeOptions(JSON.parse(init.optionsJSON ?? '{}') as Record<string, unknown>, init.exports, {
        executionSegment: this.opts.executionSegment,
        executionSegmentSequence: this.opts.executionSegmentSequence,
      });
      this.vuIds = this.options.tuple.segmentedIndex();
      this.engine.initThresholds(this.options.thresholds);
    } catch (e) {
      if (e instanceof ConfigError) return this.finish({ code: 104, message: e.message });
      throw e;
    }
    const plan = testPlan(this.options.scenarios);
    if (!this.opts.quiet) this.output.out(this.banner(plan.maxPossible, plan.endMs));

    await this.execution(plan.maxPlanned, plan.maxPossible - plan.maxPlanned);
    this.finalThresholds();
    await this.handleSummary();
    this.finish(this.runError);
  }

  private async execution(planned: number, unplanned: number): Promise<void> {
    this.pool = new VUPool((id) => this.createVU(id), this.state, unplanned);
    try {
      await this.pool.initPlanned(planned);
    } catch (e) {
      if (e instanceof InitFailure) return this.setError(scriptError(e.error));
      throw e;
    }
    this.timers.push(
      setInterval(() => {
        this.emit('vus', this.state.activeVUs, this.runTags);
        this.emit('vus_max', this.state.initializedVUs, this.runTags);
      }, 1000),
    );
    this.state.startedAt = Date.now();
    if (this.engine.hasThresholds) this.timers.push(setInterval(() => this.periodicThresholds(), THRESHOLDS_EVERY_MS));

    await this.setupScenariosTeardown();

    for (const t of this.timers.splice(0)) clearInterval(t);
    // k6 leaves the duration running when the test was aborted (MarkEnded is skipped).
    if (!this.abortError) this.state.endedAt = Date.now();
    if (this.abortError) {
      this.runError = this.abortError;
      return;
    }
    if (this.runError) return;
    if (this.state.fullIterations === 0) this.log('warning', 'No script iterations fully finished, consider making the test duration longer');
    if (this.markedFailed) this.runError = { code: 110, message: 'test run was marked as failed' };
  }

  private async setupScenariosTeardown(): Promise<void> {
    if (this.exportsList.includes('setup')) {
      const r = await this.lifecycle('setup', null, this.options.setupTimeoutMs);
      if (r.kind !== 'ok') return this.setError(this.lifecycleError('setup', r));
      this.setupData = r.json ?? null;
    }
    const start = Date.now();
    await Promise.all(
      // k6 creates no executor for a scenario without work in this segment (Scheduler's HasWork).
      this.options.scenarios.filter((c) => c.hasWork !== false).map(async (config) => {
        const rt = new ScenarioRuntime(config, this);
        this.runtimes.set(config.name, rt);
        if (await sleepUntil(start + config.startTimeMs, this.runCtx)) return;
        try {
          await runExecutor(rt, this.runCtx);
        } catch (e) {
          this.setError({ code: 255, message: (e as Error).message });
          this.runCtx.cancel();
        }
      }),
    );
    if (this.exportsList.includes('teardown')) {
      const r = await this.lifecycle('teardown', this.setupData, this.options.teardownTimeoutMs);
      // A teardown failure replaces an executor error, as in Scheduler.Run.
      if (r.kind !== 'ok') this.runError = this.lifecycleError('teardown', r);
    }
  }

  private periodicThresholds(): void {
    const { breached, abort } = this.engine.evaluate(true, this.state.durationMs);
    if (abort) {
      this.abortTest(
        `thresholds on metrics '${breached.join(', ')}' were crossed; at least one has abortOnFail enabled, stopping test prematurely`,
        99,
      );
    }
  }

  private finalThresholds(): void {
    if (!this.engine.hasThresholds) return;
    const { breached } = this.engine.evaluate(false, this.state.durationMs);
    if (breached.length > 0 && !this.runError) {
      this.runError = { code: 99, message: `thresholds on metrics '${breached.join(', ')}' have been crossed` };
    }
  }

  private async handleSummary(): Promise<void> {
    const data = buildSummaryData({
      metrics: this.engine.observed(),
      rootGroup: this.groups.export(),
      trendStats: this.options.summaryTrendStats,
      timeUnit: this.options.summaryTimeUnit,
      durationMs: this.state.durationMs,
      setupJSON: this.setupData,
    });
    this.summaryData = data;
    this.summaryPhase = true;
    const defaultSummary: SummaryOutput = { stdout: `\n${textSummary(data)}\n\n` };
    const r = await this.lifecycle('handleSummary', JSON.stringify(data), HANDLE_SUMMARY_TIMEOUT_MS);
    if (r.kind === 'timeout') {
      return this.log('error', 'failed to handle the end-of-test summary', { error: `handleSummary() execution timed out after ${r.seconds} seconds` });
    }
    if (r.kind === 'error') {
      // The callback's error is logged, then k6 carries on with the built-in summary.
      const e = scriptError(r.error);
      this.log('error', e.message, e.hint ? { hint: e.hint } : {});
      return this.writeSummary(defaultSummary);
    }
    if (r.resultError) return this.log('error', 'failed to handle the end-of-test summary', { error: r.resultError });
    this.writeSummary(r.summary ?? defaultSummary);
  }

  private writeSummary(outputs: SummaryOutput): void {
    const { files, error } = writeSummaryOutputs(outputs, this.cwd, this.output);
    this.files.push(...files);
    if (error) this.log('error', 'failed to handle the end-of-test summary', { error });
  }

  // ---- helpers ----------------------------------------------------------------------------

  private finish(error: RunError | null): void {
    this.runError = error;
    if (error) this.log('error', error.message, error.hint ? { hint: error.hint } : {});
  }

  private setError(error: RunError): void {
    this.runError ??= error;
  }

  private lifecycleError(name: 'setup' | 'teardown', r: Exclude<LifecycleResult, { kind: 'ok' }>): RunError {
    if (r.kind === 'timeout') {
      return {
        code: name === 'setup' ? 100 : 101,
        message: `${name}() execution timed out after ${r.seconds} seconds`,
        hint: `You can increase the time limit via the ${name}Timeout option`,
      };
    }
    return scriptError(r.error);
  }

  private spawn(id: number): VUWorker {
    // A VU re-created after a hard kill may be requested while the run is shutting down.
    if (this.closed) throw new Error('k6 double: the run is over');
    const vu = new VUWorker(id, {
      entry: this.entry,
      boot: { scriptPath: this.scriptPath, source: this.source, env: this.globalEnv, extensions: { sse: this.opts.extensions?.sse ?? false } },
      onEvent: (w, e) => this.services.handle(w, e),
    });
    this.workers.add(vu);
    return vu;
  }

  private async createVU(id: number): Promise<VUWorker> {
    const vu = this.spawn(id);
    const init = await vu.init(this.globalVUId(id), false, this.options.http);
    if (init.type !== 'initDone') {
      await vu.terminate();
      this.workers.delete(vu);
      throw new InitFailure(init.type === 'initError' ? init.error : { kind: 'exception', name: 'Error', message: 'VU init failed', stack: '' });
    }
    return vu;
  }

  private globalVUId(local: number): number {
    while (!this.globalVUIds.has(local)) {
      const [scaled, unscaled] = this.vuIds();
      this.globalVUIds.set(scaled, unscaled);
    }
    return this.globalVUIds.get(local)!;
  }

  private lifecycle(name: LifecycleName, arg: string | null, timeoutMs: number): Promise<LifecycleResult> {
    // k6 tags setup's and teardown's samples with their group ("::setup"); handleSummary's are discarded.
    const tags = name === 'handleSummary' ? { ...this.runTags } : { ...this.runTags, group: `::${name}` };
    return this.lifecycleVU.call({ name, arg, tags, optionsJSON: this.options.json, http: this.options.http, timeoutMs });
  }

  /** data_sent/data_received for the bytes a VU moved since the last call (k6's Dialer.IOSamples). */
  private dataSamples(vu: VUWorker, tags: TagSet, time: number): Sample[] {
    const samples: Sample[] = [
      { metric: 'data_sent', value: vu.bytesSent, time, tags },
      { metric: 'data_received', value: vu.bytesReceived, time, tags },
    ];
    vu.bytesSent = 0;
    vu.bytesReceived = 0;
    return samples;
  }

  private banner(maxVUs: number, endMs: number): string {
    const n = this.options.scenarios.length;
    const lines = [
      '',
      `     execution: local`,
      `        script: ${this.scriptPath}`,
      `        output: -`,
      '',
      `     scenarios: (${(this.options.tuple.segment.floatLength() * 100).toFixed(2)}%) ${n} scenario${n === 1 ? '' : 's'}, ${maxVUs} max VUs, ${formatGoDuration(endMs)} max duration (incl. graceful stop):`,
      ...this.options.scenarios.map((c) => `              * ${c.name}: ${describeScenario(c)}`),
      '',
      '',
    ];
    return lines.join('\n');
  }
}
