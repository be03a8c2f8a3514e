// The `k6/data` module: SharedArray (internal/js/modules/k6/data). k6 runs the callback once per
// process and keeps each element as JSON; every read parses the element again and deep-freezes
// it. Here the main thread holds the JSON strings; the first VU asking for a name is told to run
// the callback, any other VU asking meanwhile blocks until the data arrives.

import { deepFreeze, isAsyncFunction, isFunction } from '../realm';
import type { VUState } from '../state';

export function createDataModule(vu: VUState): Record<string, unknown> {
  const { realm } = vu;
  const exports = realm.object();
  exports.SharedArray = function SharedArray(name?: unknown, fn?: unknown): unknown {
    if (!vu.inInit) throw realm.goError('new SharedArray must be called in the init context');
    const key = String(name);
    if (key === '') throw realm.goError("empty name provided to SharedArray's constructor");
    if (isAsyncFunction(fn)) {
      throw realm.goError('SharedArray constructor does not support async functions as second argument');
    }
    if (!isFunction(fn)) throw realm.goError("a function is expected as the second argument of SharedArray's constructor");
    return wrap(vu, loadOrCompute(vu, key, fn));
  };
  return exports;
}

function loadOrCompute(vu: VUState, name: string, fn: () => unknown): string[] {
  const got = vu.rpc.call('sharedArray.get', { name });
  if (got.data) return got.data;
  let data: string[] | null = null;
  try {
    const value = fn();
    if (Object.prototype.toString.call(value) !== '[object Array]') {
      throw vu.realm.goError('only arrays can be made into SharedArray');
    }
    const arr = value as unknown[];
    const json = vu.realm.global('JSON') as JSON;
    data = Array.from({ length: arr.length }, (_, i) => String(json.stringify(arr[i])));
    return data;
  } finally {
    // Always answer, so VUs waiting on this name are released (and one of them retries on failure).
    vu.rpc.call('sharedArray.set', { name, data });
  }
}

/** A read-only array-like over the JSON elements, made by the realm's Proxy like k6's DynamicArray. */
function wrap(vu: VUState, items: string[]): unknown {
  const { realm } = vu;
  const immutable = (): never => {
    throw realm.typeError('SharedArray is immutable');
  };
  const index = (key: string | symbol): number => {
    if (typeof key !== 'string' || !/^(0|[1-9]\d*)$/.test(key)) return -1;
    const i = Number(key);
    return i < items.length ? i : -1;
  };
  const element = (i: number): unknown => deepFreeze(realm.parseJSON(items[i]!));
  return realm.proxy(realm.array(), {
    get: (target, key, receiver) => {
      if (key === 'length') return items.length;
      const i = index(key);
      if (i >= 0) return element(i);
      if (typeof key === 'string' && /^\d+$/.test(key)) return undefined;
      return Reflect.get(target, key, receiver);
    },
    set: immutable,
    defineProperty: immutable,
    deleteProperty: immutable,
    has: (target, key) => index(key) >= 0 || Reflect.has(target, key),
    ownKeys: () => [...items.keys()].map(String).concat('length'),
    getOwnPropertyDescriptor: (target, key) => {
      if (key === 'length') return Reflect.getOwnPropertyDescriptor(target, key);
      const i = index(key);
      return i >= 0 ? { value: element(i), writable: false, enumerable: true, configurable: true } : undefined;
    },
  });
}

