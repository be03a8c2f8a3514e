// The `k6/execution` module (internal/js/modules/k6/execution): live accessors over the VU,
// scenario, instance and test state, throwing k6's errors where a field is not available.
//
// Availability, as in k6 v1.x:
//   scenario: only inside a VU iteration (its getters throw in init, setup, teardown)
//   instance: in VU iterations and setup() (k6 runs teardown and handleSummary without it)
//   vu, test.options: everywhere except the init context
//   test.abort: everywhere

import type { InstanceInfo } from '../../shared/protocol';
import { deepFreeze } from '../realm';
import { Interrupted } from '../sync-rpc';
import { applyUserTag, type VUState } from '../state';

const ERR_SCENARIO = 'getting scenario information outside of the VU context is not supported';
const ERR_INSTANCE = 'getting instance information in the init context is not supported';
const ERR_TEST_OPTIONS = 'getting test options in the init context is not supported';
const ERR_VU = 'getting VU information in the init context is not supported';

type Getters = Record<string, () => unknown>;

export function createExecutionModule(vu: VUState): Record<string, unknown> {
  const { realm } = vu;

  /** An object whose properties are read-only accessors, like k6's newInfoObj. */
  const infoObject = (getters: Getters): Record<string, unknown> => {
    const obj = realm.object();
    for (const [name, get] of Object.entries(getters)) {
      Object.defineProperty(obj, name, { get, enumerable: true, configurable: false });
    }
    return obj;
  };

  const scenario = (): Record<string, unknown> => {
    if (vu.inInit) throw realm.goError(ERR_SCENARIO);
    const current = () => {
      if (!vu.activation) throw realm.goError(ERR_SCENARIO);
      return vu.activation;
    };
    return infoObject({
      name: () => current().scenario,
      executor: () => current().executor,
      startTime: () => Math.trunc(current().startTime),
      progress: () => vu.rpc.call('execution.progress', { scenario: current().scenario }).progress,
      iterationInInstance: () => current().iterationInInstance,
      iterationInTest: () => current().iterationInTest,
    });
  };

  const instance = (): Record<string, unknown> => {
    if (vu.phase !== 'vu' && vu.phase !== 'setup') throw realm.goError(ERR_INSTANCE);
    const field = (key: keyof InstanceInfo) => () => vu.rpc.call('execution.instance', {})[key];
    return infoObject({
      currentTestRunDuration: field('currentTestRunDuration'),
      iterationsCompleted: field('iterationsCompleted'),
      iterationsInterrupted: field('iterationsInterrupted'),
      vusActive: field('vusActive'),
      vusInitialized: field('vusInitialized'),
    });
  };

  const test = (): Record<string, unknown> => {
    let options: unknown;
    return infoObject({
      abort: () => (msg?: unknown) => {
        const reason = msg === undefined || msg === null ? 'test aborted' : `test aborted: ${String(msg)}`;
        vu.rpc.abortReason = reason;
        vu.abort(reason);
        throw new Interrupted('abort', reason);
      },
      fail: () => (msg?: unknown) => {
        if (vu.inInit) throw realm.goError('execution.test.fail() called outside of VU context');
        const reason = msg === undefined || msg === null ? 'test marked as failed' : `test marked as failed: ${String(msg)}`;
        vu.markFailed(reason);
      },
      options: () => {
        if (vu.inInit) throw realm.goError(ERR_TEST_OPTIONS);
        options ??= deepFreeze(realm.parseJSON(vu.optionsJSON));
        return options;
      },
    });
  };

  const vuInfo = (): Record<string, unknown> => {
    if (vu.inInit) throw realm.goError(ERR_VU);
    const tags = tagsProxy(vu, () => vu.tags, 'tag');
    const metadata = tagsProxy(vu, () => vu.metadata, 'metadata');
    const obj = infoObject({
      idInInstance: () => vu.vuId,
      idInTest: () => vu.vuIdGlobal,
      iterationInInstance: () => Math.max(vu.iteration, 0),
      iterationInScenario: () => (vu.activation ? (vu.scenarioIter.get(vu.activation.scenario) ?? 0) : 0),
    });
    obj.tags = tags;
    obj.metrics = infoObject({ tags: () => tags, metadata: () => metadata });
    return obj;
  };

  const exports = realm.object();
  for (const [name, make] of Object.entries({ scenario, instance, test, vu: vuInfo })) {
    Object.defineProperty(exports, name, { get: make, enumerable: true, configurable: false });
  }
  return exports;
}

/** exec.vu.tags / exec.vu.metrics.metadata: a live view; bad values throw a TypeError like k6. */
function tagsProxy(vu: VUState, current: () => Record<string, string>, kind: 'tag' | 'metadata'): Record<string, unknown> {
  // `current` is re-read on every access because VUState replaces its tag set on activation.
  return vu.realm.proxy(vu.realm.object(), {
    get: (_t, key) => (typeof key === 'string' ? current()[key] : undefined),
    set: (_t, key, value) => {
      try {
        applyUserTag(current(), String(key), value, kind);
      } catch (e) {
        throw vu.realm.typeError((e as Error).message);
      }
      return true;
    },
    has: (_t, key) => typeof key === 'string' && key in current(),
    deleteProperty: (_t, key) => {
      delete current()[String(key)];
      return true;
    },
    ownKeys: () => Object.keys(current()),
    getOwnPropertyDescriptor: (_t, key) =>
      typeof key === 'string' && key in current()
        ? { value: current()[key], writable: true, enumerable: true, configurable: true }
        : undefined,
  });
}

