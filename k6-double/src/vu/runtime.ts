// What a VU worker does with the runner's commands: (re)initialise the script in a fresh
// context, run one iteration of a scenario's exec function, or run a lifecycle function.

import type { Activation, HttpDefaults, LifecycleName, SummaryOutput, TagSet, WorkerBoot, WorkerCommand, WorkerEvent } from '../shared/protocol';
import { serializeError } from './errors';
import { toBytes } from './realm';
import type { SyncRpc } from './sync-rpc';
import { ScriptContext } from './vm-context';

type Callable = (...args: unknown[]) => unknown;

export class VURuntime {
  private script: ScriptContext | null = null;
  /** Setup data as JSON; undefined until main sends it, null when setup() returned nothing. */
  private setupJSON: string | null | undefined;
  /** Parsed once per VU, as k6 does, so a VU sees its own mutations across iterations. */
  private setupValue: { value: unknown } | null = null;
  private activationId = -1;

  constructor(
    private readonly boot: WorkerBoot,
    private readonly rpc: SyncRpc,
    private readonly post: (e: WorkerEvent) => void,
  ) {}

  handle(cmd: WorkerCommand): void {
    switch (cmd.type) {
      case 'init':
        return this.init(cmd.vuId, cmd.vuIdGlobal, cmd.withOptions, cmd.http);
      case 'iterate':
        return this.iterate(cmd.activation, cmd.setupData);
      case 'lifecycle':
        return this.lifecycle(cmd.name, cmd.arg, cmd.tags, cmd.optionsJSON);
    }
  }

  private init(vuId: number, vuIdGlobal: number, withOptions: boolean, http: HttpDefaults): void {
    // A fresh context starts un-aborted (the lifecycle worker reuses its thread for every phase).
    this.rpc.abortReason = null;
    try {
      const script = new ScriptContext({ ...this.boot, http }, vuId, vuIdGlobal, this.rpc, this.post);
      this.script = script;
      this.activationId = -1;
      const exports = Object.keys(script.exports).filter((k) => typeof script.exports[k] === 'function');
      const optionsJSON = withOptions ? (JSON.stringify(script.exports.options ?? {}) ?? '{}') : undefined;
      this.post({ type: 'initDone', exports, optionsJSON });
    } catch (e) {
      this.post({ type: 'initError', error: serializeError(e, this.scriptUrl(), this.rpc) });
    }
  }

  private iterate(activation: Activation, setupData: string | null | undefined): void {
    const script = this.requireScript();
    const { state, realm } = script;
    if (setupData !== undefined) {
      this.setupJSON = setupData;
      this.setupValue = null;
    }
    if (activation.activationId !== this.activationId) {
      // k6 resets the VU's tags and __ENV every time it is activated for a scenario.
      this.activationId = activation.activationId;
      state.tags = { ...activation.tags };
      state.metadata = {};
      script.setGlobal('__ENV', realm.copy(activation.env));
    }
    state.phase = 'vu';
    state.activation = activation;
    state.optionsJSON = activation.optionsJSON;
    this.setupValue ??= { value: this.setupJSON == null ? undefined : realm.parseJSON(this.setupJSON) };
    state.iteration++;
    const scenarioIter = state.scenarioIter.get(activation.scenario);
    state.scenarioIter.set(activation.scenario, scenarioIter === undefined ? 0 : scenarioIter + 1);
    script.setGlobal('__ITER', state.iteration);

    const startMs = Date.now();
    let error;
    try {
      script.call(script.exports[activation.exec] as Callable, [this.setupValue.value]);
      if (this.rpc.interrupted || this.rpc.abortReason !== null) error = serializeError(null, script.scriptUrl, this.rpc);
    } catch (e) {
      error = serializeError(e, script.scriptUrl, this.rpc);
    }
    this.post({ type: 'iterDone', error, startMs, endMs: Date.now(), tags: { ...state.tags } });
  }

  private lifecycle(name: LifecycleName, arg: string | null, tags: TagSet, optionsJSON: string): void {
    const script = this.requireScript();
    const { state, realm } = script;
    state.phase = name;
    state.tags = { ...tags };
    state.optionsJSON = optionsJSON;
    try {
      const fn = script.exports[name];
      const input = arg === null ? undefined : realm.parseJSON(arg);
      if (typeof fn !== 'function') {
        this.post({ type: 'lifecycleDone', name });
        return;
      }
      const result = script.call(fn as Callable, [input]);
      if (name === 'handleSummary') {
        let summary: SummaryOutput | undefined;
        try {
          summary = toSummaryOutput(result);
        } catch (e) {
          this.post({ type: 'lifecycleDone', name, resultError: (e as Error).message });
          return;
        }
        this.post({ type: 'lifecycleDone', name, summary });
      } else {
        const json = result === undefined ? null : (JSON.stringify(result) ?? null);
        this.post({ type: 'lifecycleDone', name, json });
      }
    } catch (e) {
      this.post({ type: 'lifecycleDone', name, error: serializeError(e, script.scriptUrl, this.rpc) });
    }
  }

  private requireScript(): ScriptContext {
    if (!this.script) throw new Error('k6 double: VU command before a successful init');
    return this.script;
  }

  private scriptUrl(): string {
    return this.script?.scriptUrl ?? `file://${this.boot.scriptPath}`;
  }
}

/** k6's getSummaryResult: a map of output name to string or ArrayBuffer. */
function toSummaryOutput(result: unknown): SummaryOutput | undefined {
  if (result === null || result === undefined) return undefined;
  if (typeof result !== 'object' || Array.isArray(result)) {
    throw new Error('handleSummary() should return a map with string keys');
  }
  const out: SummaryOutput = {};
  for (const [key, value] of Object.entries(result as Record<string, unknown>)) {
    if (typeof value === 'string') {
      out[key] = value;
      continue;
    }
    const bytes = Object.prototype.toString.call(value) === '[object ArrayBuffer]' ? toBytes(value) : null;
    if (!bytes) {
      throw new Error(`error handling summary object ${key}: invalid type ${goTypeName(value)}, it needs to be a string or ArrayBuffer`);
    }
    out[key] = new Uint8Array(bytes);
  }
  return out;
}

function goTypeName(v: unknown): string {
  if (typeof v === 'number') return Number.isInteger(v) ? 'int64' : 'float64';
  if (typeof v === 'boolean') return 'bool';
  if (Array.isArray(v)) return '[]interface {}';
  if (v === null || v === undefined) return '<nil>';
  return 'map[string]interface {}';
}
