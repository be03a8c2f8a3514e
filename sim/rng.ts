// Small seeded PRNG (mulberry32) and a string/number hash: reproducible draws without a dependency.

export class Rng {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  /** Uniform in [0, 1). */
  next(): number {
    let t = (this.state = (this.state + 0x6d2b79f5) >>> 0);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** Integer in [lo, hi). */
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo));
  }
}

/** 32-bit FNV-1a over a sequence of numbers, chained from `h`. */
export function hashInts(values: ArrayLike<number>, from = 0, to = values.length, h = 0x811c9dc5): number {
  for (let i = from; i < to; i++) {
    h ^= values[i] as number;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

export function hashString(s: string, h = 0x811c9dc5): number {
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

/** Derives an independent stream seed from a base seed and labels. */
export function deriveSeed(seed: number, ...parts: number[]): number {
  return hashInts(parts, 0, parts.length, hashInts([seed]));
}
