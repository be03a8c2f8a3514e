// Execution segments (k6's --execution-segment / --execution-segment-sequence), following
// lib/execution_segment.go: exact rationals (bigint), the filled sequence, the striped offsets of
// ExecutionSegmentSequenceWrapper, ExecutionTuple.ScaleInt64 / GetNewExecutionTupleFromValue and
// SegmentedIndex (VU ids and iteration numbers across instances).

import { ConfigError } from './metrics/engine';

class Rat {
  readonly num: bigint;
  readonly den: bigint;
  constructor(num: bigint, den: bigint = 1n) {
    if (den < 0n) {
      num = -num;
      den = -den;
    }
    const g = gcd(num < 0n ? -num : num, den);
    this.num = g === 0n ? 0n : num / g;
    this.den = g === 0n ? 1n : den / g;
  }
  sub(o: Rat): Rat {
    return new Rat(this.num * o.den - o.num * this.den, this.den * o.den);
  }
  cmp(o: Rat): number {
    const d = this.num * o.den - o.num * this.den;
    return d < 0n ? -1 : d > 0n ? 1 : 0;
  }
  /** Go's RatString: "a/b", or "a" when b == 1. */
  toString(): string {
    return this.den === 1n ? String(this.num) : `${this.num}/${this.den}`;
  }
  /** Go's FloatString(2) (round half away from zero). */
  float2(): string {
    const neg = this.num < 0n;
    const n = neg ? -this.num : this.num;
    let q = (n * 100n) / this.den;
    if ((n * 100n) % this.den * 2n >= this.den) q++;
    const s = String(q).padStart(3, '0');
    return `${neg ? '-' : ''}${s.slice(0, -2)}.${s.slice(-2)}`;
  }
}

function gcd(a: bigint, b: bigint): bigint {
  while (b !== 0n) [a, b] = [b, a % b];
  return a;
}

const ZERO = new Rat(0n);
const ONE = new Rat(1n);

/** stringToRat: percentage ("50%", integer only), decimal ("0.5", "5e-1") or fraction ("1/2"). */
function stringToRat(s: string): Rat {
  if (s.endsWith('%')) {
    const n = s.slice(0, -1);
    if (!/^[+-]?\d+$/.test(n)) throw new ConfigError(`'${s}' is not a valid percentage`);
    return new Rat(BigInt(n), 100n);
  }
  const bad = () => new ConfigError(`'${s}' is not a valid percentage, decimal, fraction or interval value`);
  const frac = /^([+-]?\d+)\/(\d+)$/.exec(s);
  if (frac) {
    if (BigInt(frac[2]!) === 0n) throw bad();
    return new Rat(BigInt(frac[1]!), BigInt(frac[2]!));
  }
  const dec = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/.exec(s);
  if (!dec || (dec[2] === '' && (dec[3] ?? '') === '')) throw bad();
  const digits = BigInt(`${dec[2] || '0'}${dec[3] ?? ''}`) * (dec[1] === '-' ? -1n : 1n);
  const exp = Number(dec[4] ?? 0) - (dec[3] ?? '').length;
  return exp >= 0 ? new Rat(digits * 10n ** BigInt(exp)) : new Rat(digits, 10n ** BigInt(-exp));
}

export class Segment {
  constructor(
    readonly from: Rat,
    readonly to: Rat,
  ) {}
  get length(): Rat {
    return this.to.sub(this.from);
  }
  equals(o: Segment): boolean {
    return this.from.cmp(o.from) === 0 && this.to.cmp(o.to) === 0;
  }
  toString(): string {
    return `${this.from}:${this.to}`;
  }
  floatLength(): number {
    return Number(this.length.num) / Number(this.length.den);
  }
}

function newSegment(from: Rat, to: Rat): Segment {
  if (from.cmp(ZERO) < 0) throw new ConfigError(`segment start value must be at least 0 but was ${from.float2()}`);
  if (from.cmp(to) >= 0) throw new ConfigError(`segment start(${from.float2()}) must be less than its end(${to.float2()})`);
  if (to.cmp(ONE) > 0) throw new ConfigError(`segment end value can't be more than 1 but was ${to.float2()}`);
  return new Segment(from, to);
}

/** NewExecutionSegmentFromString: "a:b", or "b" meaning "0:b"; "" is the whole test. */
export function parseSegment(str: string): Segment {
  let from = ZERO;
  let toStr = str === '' ? '1' : str;
  const colon = toStr.indexOf(':');
  if (colon >= 0) {
    from = stringToRat(toStr.slice(0, colon));
    toStr = toStr.slice(colon + 1);
  }
  return newSegment(from, stringToRat(toStr));
}

/** NewExecutionSegmentSequenceFromString: "r1,r2,...,rn"; "" is no sequence. */
export function parseSequence(str: string): Segment[] {
  if (str === '') return [];
  const points = str.split(',');
  if (points.length < 2) throw new ConfigError(`at least 2 points are needed for an execution segment sequence, ${points.length} given`);
  const rats = points.map(stringToRat);
  const segments = rats.slice(1).map((to, i) => newSegment(rats[i]!, to));
  return segments;
}

export function sequenceString(seq: Segment[]): string {
  return seq.length === 0 ? '' : [seq[0]!.from, ...seq.map((s) => s.to)].map(String).join(',');
}

/** ExecutionSegmentSequenceWrapper: a full sequence with its LCD and striped offsets. */
class SequenceWrapper {
  readonly lcd: number;
  readonly offsets: number[][];

  constructor(readonly seq: Segment[]) {
    const lengths = seq.map((s) => s.length);
    let lcd = Number(lengths[0]!.den);
    for (const l of lengths.slice(1)) {
      const n = Number(l.den);
      if (lcd === n || lcd % n === 0) continue;
      lcd *= n / Number(gcd(BigInt(lcd), BigInt(n)));
    }
    this.lcd = lcd;
    const sorted = lengths
      .map((l, i) => ({ norm: Number(l.num) * (lcd / Number(l.den)), index: i }))
      // Array.prototype.sort is stable, like sort.SliceStable.
      .sort((a, b) => b.norm - a.norm);
    const offsets: number[][] = seq.map(() => []);
    const prev = seq.map(() => 0);
    const chosen = seq.map(() => 0);
    const save = (iteration: number, index: number, numerator: number) => {
      const o = offsets[index]!;
      o.push(iteration - prev[index]!);
      prev[index] = iteration;
      if (o.length === numerator) o.push(o[0]! + lcd - iteration);
    };
    for (let i = 0; i < lcd; i++) {
      for (let si = 0; si < chosen.length; si++) {
        const num = chosen[si]! * lcd;
        const denom = sorted[si]!.norm;
        const q = Math.trunc(num / denom);
        if (i > q || (i === q && num % denom === 0)) {
          chosen[si]!++;
          save(i, sorted[si]!.index, denom);
          break;
        }
      }
    }
    this.offsets = offsets;
  }

  scale(index: number, value: number): number {
    const [start, ...offsets] = this.offsets[index]!;
    let result = Math.trunc(value / this.lcd) * offsets.length;
    for (let gi = 0, i = start!; i < value % this.lcd; i += offsets[gi]!, gi++) result++;
    return result;
  }
}

/** ExecutionTuple: one segment of a full sequence. */
export class ExecutionTuple {
  constructor(
    readonly wrapper: SequenceWrapper,
    readonly index: number,
  ) {}

  get segment(): Segment {
    return this.wrapper.seq[this.index]!;
  }

  scaleInt64(value: number): number {
    if (this.wrapper.seq.length === 1) return value;
    return this.wrapper.scale(this.index, value);
  }

  /** GetNewExecutionTupleFromValue; null where Go returns an error (value < 1, segment gone). */
  fromValue(value: number): ExecutionTuple | null {
    if (value < 1) return null;
    if (value % this.wrapper.lcd === 0) return this;
    const segs: Segment[] = [];
    let prev = 0;
    let newIndex = -1;
    for (let i = 0; i < this.wrapper.seq.length; i++) {
      const v = this.wrapper.scale(i, value);
      if (v === 0) continue;
      const seg = new Segment(new Rat(BigInt(prev), BigInt(value)), new Rat(BigInt(prev + v), BigInt(value)));
      prev += v;
      if (i === this.index) newIndex = segs.length;
      segs.push(seg);
    }
    return newIndex < 0 ? null : new ExecutionTuple(new SequenceWrapper(segs), newIndex);
  }

  /** SegmentedIndex: yields [scaled, unscaled], both starting at 1. */
  segmentedIndex(): () => [number, number] {
    const [start, ...offsets] = this.wrapper.offsets[this.index]!;
    let scaled = 0;
    let unscaled = 0;
    return () => {
      unscaled += scaled === 0 ? start! + 1 : offsets[(scaled - 1) % offsets.length]!;
      scaled++;
      return [scaled, unscaled];
    };
  }
}

/**
 * NewExecutionTuple: the sequence is filled around the segment (or around the given sequence) to
 * cover 0..1, and the segment must be one of its parts.
 */
export function newExecutionTuple(segment: Segment | null, sequence: Segment[]): ExecutionTuple {
  let seq: Segment[];
  if (sequence.length === 0) {
    if (segment === null || segment.length.cmp(ONE) === 0) return new ExecutionTuple(new SequenceWrapper([new Segment(ZERO, ONE)]), 0);
    seq = [segment];
  } else {
    for (let i = 1; i < sequence.length; i++) {
      if (sequence[i]!.from.cmp(sequence[i - 1]!.to) !== 0) {
        throw new ConfigError(
          `the start value ${sequence[i]!.from} of segment #${i} must be equal to the end value of the previous one, but it is ${sequence[i - 1]!.to}`,
        );
      }
    }
    seq = [...sequence];
  }
  if (seq[0]!.from.cmp(ZERO) !== 0) seq.unshift(new Segment(ZERO, seq[0]!.from));
  if (seq[seq.length - 1]!.to.cmp(ONE) !== 0) seq.push(new Segment(seq[seq.length - 1]!.to, ONE));
  const wanted = segment ?? new Segment(ZERO, ONE);
  const index = seq.findIndex((s) => s.equals(wanted));
  if (index < 0) {
    throw new ConfigError(
      `There were problems with the specified script configuration:\n\t- provided segment ${wanted} can't be found in sequence ${sequenceString(sequence)}`,
    );
  }
  return new ExecutionTuple(new SequenceWrapper(seq), index);
}
