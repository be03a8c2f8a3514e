// The `k6` module: check, fail, group, randomSeed, sleep (internal/js/modules/k6/k6.go).

import { isAsyncFunction, isFunction } from '../realm';
import { applyUserTags, type VUState } from '../state';

const GROUP_SEPARATOR = '::';
const SEPARATOR_ERROR = "group and check names may not contain '::'";

export function createK6Module(vu: VUState): Record<string, unknown> {
  const { realm } = vu;
  const exports = realm.object();

  exports.check = (val: unknown, sets?: unknown, extraTags?: unknown): boolean => {
    if (vu.inInit) throw realm.goError('Using check() in the init context is not supported');
    if (sets === undefined) throw realm.goError('no checks provided to `check`');
    vu.rpc.checkInterrupt();
    const time = Date.now();
    const common = { ...vu.tags };
    try {
      applyUserTags(common, extraTags);
    } catch (e) {
      throw realm.goError((e as Error).message);
    }
    const checks = Object(sets) as Record<string, unknown>;
    let allPassed = true;
    for (const name of Object.keys(checks)) {
      if (name.includes(GROUP_SEPARATOR)) throw realm.goError(SEPARATOR_ERROR);
      let value = checks[name];
      if (isAsyncFunction(value)) {
        throw realm.goError(
          'the built-in check() does not support async functions as arguments. ' +
            'Use the JavaScript utils library as a replacement. ' +
            'Refer to https://grafana.com/docs/k6/latest/javascript-api/jslib/utils/check/ for more info',
        );
      }
      let thrown: { error: unknown } | null = null;
      if (isFunction(value)) {
        try {
          value = value(val);
        } catch (error) {
          // k6 records the check as failed, then rethrows the exception.
          value = false;
          thrown = { error };
        }
      }
      const passed = Boolean(value);
      if (!passed) allPassed = false;
      vu.emitOne('checks', passed ? 1 : 0, { ...common, check: name }, time);
      if (thrown) throw thrown.error;
    }
    return allPassed;
  };

  exports.fail = (msg?: unknown): never => {
    throw realm.goError(String(msg));
  };

  exports.group = (name: unknown, fn?: unknown): unknown => {
    if (vu.inInit) throw realm.goError('Using group() in the init context is not supported');
    if (!isFunction(fn)) throw realm.goError('group() requires a callback as a second argument');
    if (isAsyncFunction(fn)) {
      throw realm.goError(
        'group() does not support async functions as arguments, ' +
          'please see https://grafana.com/docs/k6/latest/javascript-api/k6/group/ for more info',
      );
    }
    const groupName = String(name);
    if (groupName.includes(GROUP_SEPARATOR)) throw realm.goError(SEPARATOR_ERROR);
    const oldPath = vu.tags.group ?? '';
    vu.tags.group = oldPath === '' && groupName === '' ? '' : oldPath + GROUP_SEPARATOR + groupName;
    const start = Date.now();
    try {
      return fn();
    } finally {
      // Emitted with the inner group's tag, even when fn threw, as k6 does.
      const end = Date.now();
      vu.emitOne('group_duration', end - start, { ...vu.tags }, end);
      vu.tags.group = oldPath;
    }
  };

  exports.randomSeed = (seed: unknown): void => {
    const math = realm.global('Math') as { random: () => number };
    math.random = seededRandom(Number(seed));
  };

  exports.sleep = (secs: unknown): void => {
    vu.rpc.sleep(Number(secs) * 1000);
  };

  return exports;
}

/**
 * Deterministic PRNG for randomSeed(). k6 seeds Go's math/rand, whose sequence cannot be
 * reproduced here; the double only guarantees "same seed, same sequence".
 */
function seededRandom(seed: number): () => number {
  // A copy of mulberry32, not an import: the VU code is compiled into its own folder and runs
  // without the rest of the project.
  let a = (Math.trunc(seed) ^ 0x9e3779b9) >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
