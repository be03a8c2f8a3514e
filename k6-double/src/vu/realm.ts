// Helpers for handing values to the script's vm context ("realm"). Objects made in the worker's
// own realm have the wrong prototypes inside the script: `e instanceof Error` or
// `Array.isArray(x)`-adjacent checks in a bundle would behave differently than in k6. So every
// error thrown at the script and every plain value returned to it is built from the realm's own
// constructors.

import * as vm from 'node:vm';

interface RealmIntrinsics {
  JSON: JSON;
  Error: ErrorConstructor;
  TypeError: TypeErrorConstructor;
  Object: ObjectConstructor;
  ArrayBuffer: ArrayBufferConstructor;
  Proxy: ProxyConstructor;
}

export class Realm {
  private readonly intrinsics: RealmIntrinsics;
  /** The script's globalThis (not the sandbox object, which does not see the builtins). */
  readonly globalThis: Record<string, unknown>;

  constructor(readonly context: vm.Context) {
    this.intrinsics = vm.runInContext('({ JSON, Error, TypeError, Object, ArrayBuffer, Proxy })', context) as RealmIntrinsics;
    this.globalThis = vm.runInContext('globalThis', context) as Record<string, unknown>;
  }

  global(name: string): unknown {
    return this.globalThis[name];
  }

  /** A Proxy made by the realm's Proxy constructor, so it is an ordinary object to the script. */
  proxy<T extends object>(target: T, handler: ProxyHandler<T>): T {
    return new this.intrinsics.Proxy(target, handler);
  }

  array(): unknown[] {
    return this.parseJSON('[]') as unknown[];
  }

  /** Deep-copies plain data (JSON-compatible) into the realm. */
  copy<T>(value: T): T {
    if (value === undefined) return value;
    return this.intrinsics.JSON.parse(JSON.stringify(value)) as T;
  }

  parseJSON(text: string): unknown {
    return this.intrinsics.JSON.parse(text);
  }

  object(): Record<string, unknown> {
    return new this.intrinsics.Object() as Record<string, unknown>;
  }

  /**
   * What sobek makes of a Go error returned by a k6 function: an Error named "GoError", so the
   * script sees "GoError: <message>" exactly as in k6.
   */
  goError(message: string): Error {
    const e = new this.intrinsics.Error(message);
    e.name = 'GoError';
    return e;
  }

  typeError(message: string): Error {
    return new this.intrinsics.TypeError(message);
  }

  arrayBuffer(bytes: Uint8Array): ArrayBuffer {
    const ab = new this.intrinsics.ArrayBuffer(bytes.byteLength);
    new Uint8Array(ab).set(bytes);
    return ab;
  }
}

export function isFunction(v: unknown): v is (...args: unknown[]) => unknown {
  return typeof v === 'function';
}

/** Works across realms, unlike `instanceof AsyncFunction`. */
export function isAsyncFunction(v: unknown): boolean {
  return Object.prototype.toString.call(v) === '[object AsyncFunction]';
}

export function isNullish(v: unknown): v is null | undefined {
  return v === null || v === undefined;
}

/** Bytes of a string, ArrayBuffer or typed array from any realm; null for anything else. */
export function toBytes(v: unknown): Uint8Array | null {
  if (typeof v === 'string') return new TextEncoder().encode(v);
  const tag = Object.prototype.toString.call(v);
  if (tag === '[object ArrayBuffer]') return new Uint8Array(v as ArrayBuffer);
  if (ArrayBuffer.isView(v)) return new Uint8Array(v.buffer, v.byteOffset, v.byteLength);
  return null;
}

/** Object.freeze, recursively; k6 hands out SharedArray elements and test.options this way. */
export function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}
