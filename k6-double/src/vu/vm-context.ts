// One evaluation of the script, the way k6 instantiates a bundle for a VU: a fresh JS context
// whose globals are only what k6 provides (__ENV, __VU, __ITER, console, require, open, global
// and the ECMAScript builtins sobek has), so a bundle that touches process, Buffer, setTimeout,
// fetch, TextEncoder, Intl... fails here as it fails in k6. The script is wrapped like k6 wraps
// CommonJS: `(function(module, exports){ ... })`, with `require` as a global.

import * as fs from 'node:fs';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import * as vm from 'node:vm';
import type { HttpDefaults, WorkerEvent } from '../shared/protocol';
import { createDataModule } from './modules/data';
import { createExecutionModule } from './modules/execution';
import { createHttpModule } from './modules/http';
import { createK6Module } from './modules/k6';
import { createMetricsModule } from './modules/metrics';
import { createSseModule } from './modules/sse';
import { Realm } from './realm';
import { VUState } from './state';
import type { SyncRpc } from './sync-rpc';

export interface ScriptSpec {
  scriptPath: string;
  source: string;
  env: Record<string, string>;
  extensions: { sse: boolean };
  http: HttpDefaults;
}

/** Globals of a fresh V8 context that k6's runtime does not have. */
const NOT_IN_K6 = ['Intl', 'SharedArrayBuffer', 'Atomics', 'WebAssembly', 'WeakRef', 'FinalizationRegistry'];

/** Real k6 modules this double does not implement: a clearer error than "unknown module". */
const NOT_IMPLEMENTED = /^k6\/(crypto|encoding|ws|net\/grpc|html|timers|browser|secrets|experimental\/.+)$/;

const INVOKE = '__k6double_invoke';

const initOnly = (fn: string) =>
  `the "${fn}" function is only available in the init stage (i.e. the global scope), ` +
  'see https://grafana.com/docs/k6/latest/using-k6/test-lifecycle/ for more information';

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

export class ScriptContext {
  readonly realm: Realm;
  readonly state: VUState;
  readonly scriptUrl: string;
  exports: Record<string, unknown> = {};
  private readonly invokeScript: vm.Script;
  /**
   * Attaches settle callbacks from inside the realm: V8 queues a promise reaction on the
   * microtask queue of the handler's context, so handlers from this (worker) context would run
   * only after the worker's current task, not in the drain that follows runInContext.
   */
  private readonly watch: (p: PromiseLike<unknown>, ok: (v: unknown) => void, fail: (e: unknown) => void) => void;
  private pending: (() => void) | null = null;
  /** Module instances of this context: require() returns the same object every time. */
  private readonly modules = new Map<string, unknown>();

  constructor(spec: ScriptSpec, vuId: number, vuIdGlobal: number, rpc: SyncRpc, post: (e: WorkerEvent) => void) {
    // afterEvaluate: promise jobs run before runInContext returns, so an async default function
    // whose awaits only touch k6's synchronous APIs settles within the call, as in k6.
    const context = vm.createContext({}, { name: `k6 VU ${vuId}`, microtaskMode: 'afterEvaluate' });
    this.realm = new Realm(context);
    this.state = new VUState(vuId, vuIdGlobal, this.realm, rpc, post);
    this.scriptUrl = pathToFileURL(spec.scriptPath).href;
    this.invokeScript = new vm.Script(`${INVOKE}()`, { filename: 'k6-double:invoke' });
    this.watch = vm.runInContext('(function (p, ok, fail) { p.then(function (v) { ok(v); }, function (e) { fail(e); }); })', context, {
      filename: 'k6-double:watch',
    }) as typeof this.watch;
    this.installGlobals(spec);
    this.load(spec);
  }

  /** Calls a script function the way k6 does, waiting for a returned promise to settle. */
  call(fn: (...args: unknown[]) => unknown, args: unknown[]): unknown {
    let outcome = null as Outcome | null;
    this.pending = () => {
      const value = fn(...args);
      if (isThenable(value)) {
        this.watch(
          value,
          (v) => (outcome = { ok: true, value: v }),
          (e) => (outcome = { ok: false, error: e }),
        );
      } else {
        outcome = { ok: true, value };
      }
    };
    try {
      this.invokeScript.runInContext(this.realm.context);
    } finally {
      this.pending = null;
    }
    if (outcome === null) {
      throw new Error('k6 double: the promise returned by the script never settled (there is no timer event loop)');
    }
    if (!outcome.ok) throw outcome.error;
    return outcome.value;
  }

  setGlobal(name: string, value: unknown): void {
    this.realm.globalThis[name] = value;
  }

  private installGlobals(spec: ScriptSpec): void {
    const g = this.realm.globalThis;
    for (const name of NOT_IN_K6) delete g[name];
    Object.defineProperty(g, INVOKE, { value: () => this.pending?.(), enumerable: false });
    Object.defineProperty(g, 'global', { get: () => g, enumerable: false, configurable: true });
    g.__ENV = this.realm.copy(spec.env);
    g.__VU = this.state.vuId;
    g.console = this.makeConsole();
    g.require = (specifier: unknown) => this.require(String(specifier), spec);
    g.open = (filename: unknown, mode?: unknown) => this.open(spec.scriptPath, filename, mode);
  }

  private load(spec: ScriptSpec): void {
    // No newline after the wrapper's opening, so line numbers in stack traces match the file.
    const wrapper = new vm.Script(`(function(module, exports){${spec.source}\n})`, { filename: this.scriptUrl });
    const moduleFn = wrapper.runInContext(this.realm.context) as (...args: unknown[]) => unknown;
    const module = this.realm.object();
    module.exports = this.realm.object();
    this.call(moduleFn, [module, module.exports]);
    this.exports = Object(module.exports) as Record<string, unknown>;
  }

  private require(specifier: string, spec: ScriptSpec): unknown {
    const { realm, state } = this;
    if (!state.inInit) throw realm.goError(initOnly('require'));
    if (specifier === '') throw realm.goError("require() can't be used with an empty specifier");
    const cached = this.modules.get(specifier);
    if (cached) return cached;
    const factories: Record<string, () => unknown> = {
      k6: () => createK6Module(state),
      'k6/http': () => createHttpModule(state, spec.http),
      'k6/metrics': () => createMetricsModule(state),
      'k6/execution': () => createExecutionModule(state),
      'k6/data': () => createDataModule(state),
    };
    if (spec.extensions.sse) {
      factories['k6/x/sse'] = () => {
        // The extension registers its counter when the module is first loaded in a VU.
        const { error } = state.rpc.call('metric.register', { name: 'sse_event', type: 'counter', isTime: false });
        if (error) throw realm.goError(error);
        return createSseModule(state, spec.http.userAgent);
      };
    }
    const factory = factories[specifier];
    if (!factory) {
      if (NOT_IMPLEMENTED.test(specifier)) {
        throw realm.goError(`k6 double: module ${specifier} exists in k6 but is not implemented by the test double`);
      }
      if (specifier.startsWith('k6/') || specifier === 'k6') throw realm.goError(`unknown module: ${specifier}`);
      throw realm.goError(
        `k6 double: require("${specifier}") of local files or URLs is not supported; bundle them into the script`,
      );
    }
    const instance = factory();
    this.modules.set(specifier, instance);
    return instance;
  }

  private open(scriptPath: string, filename: unknown, mode: unknown): unknown {
    const { realm, state } = this;
    if (!state.inInit) throw realm.goError(initOnly('open'));
    const name = String(filename ?? '').replace(/^file:\/\//, '');
    if (name === '') throw realm.goError("open() can't be used with an empty filename");
    const full = path.resolve(path.dirname(scriptPath), name);
    let data: Buffer;
    try {
      if (fs.statSync(full).isDirectory()) {
        throw realm.goError(`open() can't be used with directories, path: ${JSON.stringify(full)}`);
      }
      data = fs.readFileSync(full);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') throw realm.goError(`open ${full}: no such file or directory`);
      throw e;
    }
    return mode === 'b' ? realm.arrayBuffer(data) : data.toString('utf8');
  }

  private makeConsole(): Record<string, unknown> {
    const console = this.realm.object();
    const levels = { log: 'info', info: 'info', warn: 'warning', error: 'error', debug: 'debug' } as const;
    for (const [method, level] of Object.entries(levels)) {
      console[method] = (...args: unknown[]) =>
        this.state.log(level, args.map(formatConsoleValue).join(' '), { source: 'console' });
    }
    return console;
  }
}

/** k6's console.valueString: functions, errors and objects get special text. */
function formatConsoleValue(v: unknown): string {
  if (typeof v === 'function') return '[object Function]';
  if (v !== null && typeof v === 'object') {
    if (Object.prototype.toString.call(v) === '[object Error]') return String(v);
    try {
      const json = JSON.stringify(v);
      if (json !== undefined) return json;
    } catch {
      // fall through: k6 prints the value's string form when marshalling fails
    }
  }
  return String(v);
}

function isThenable(v: unknown): v is PromiseLike<unknown> {
  return (
    v !== null &&
    (typeof v === 'object' || typeof v === 'function') &&
    typeof (v as { then?: unknown }).then === 'function'
  );
}
