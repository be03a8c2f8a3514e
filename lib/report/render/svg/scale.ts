// Axis scales and tick choice for the report's SVG charts. Ticks are always round numbers, so a
// reader can interpolate: multiples of 1, 2 or 5 × 10^k on linear axes; powers of two on log axes
// whose data are powers of two (concurrency 1, 2, 4 …), otherwise 1-2-5 per decade.

export type ScaleKind = 'linear' | 'log';

export interface Scale {
  kind: ScaleKind;
  /** How the ticks were chosen, written onto the axis so tests can check them. */
  tickStyle: 'linear' | 'pow2' | '125';
  domain: [number, number];
  ticks: number[];
  map: (v: number) => number;
}

export interface ScaleOpts {
  kind: ScaleKind;
  /** Linear axes: start at zero (throughput, latency) rather than at the data's minimum. */
  zero?: boolean;
  maxTicks?: number;
  /** Widen the domain to the outer ticks (y axes) rather than padding it a little (x axes). */
  niceDomain?: boolean;
}

/** Removes floating-point fuzz from a computed tick (0.30000000000000004 → 0.3). */
const clean = (v: number) => Number(v.toPrecision(12));

/** The smallest 1, 2 or 5 × 10^k step that covers `span` in at most `maxTicks` intervals. */
export function niceStep(span: number, maxTicks: number): number {
  const raw = span / Math.max(1, maxTicks);
  const mag = Math.pow(10, Math.floor(Math.log10(raw)));
  for (const m of [1, 2, 5, 10]) if (m * mag >= raw * (1 - 1e-9)) return clean(m * mag);
  return clean(10 * mag);
}

export function linearTicks(lo: number, hi: number, maxTicks = 6): number[] {
  if (!(hi > lo)) return [clean(lo)];
  const step = niceStep(hi - lo, maxTicks - 1);
  const out: number[] = [];
  for (let k = Math.ceil(lo / step - 1e-9); k * step <= hi + step * 1e-9; k++) out.push(clean(k * step));
  return out;
}

const isPow2 = (v: number) => v > 0 && Math.abs(Math.log2(v) - Math.round(Math.log2(v))) < 1e-9;

/** Ticks for a log axis: linear ones when the range is under a decade (they read better there). */
function logTicks(lo: number, hi: number, pow2: boolean, maxTicks: number): { ticks: number[]; style: Scale['tickStyle'] } {
  if (pow2) {
    const all: number[] = [];
    for (let e = Math.ceil(Math.log2(lo) - 1e-9); Math.pow(2, e) <= hi * (1 + 1e-9); e++) all.push(Math.pow(2, e));
    if (all.length >= 2) return { ticks: thin(all, maxTicks), style: 'pow2' };
  }
  if (hi / lo < 10) {
    const t = linearTicks(lo, hi, maxTicks).filter((v) => v > 0);
    if (t.length >= 2) return { ticks: t, style: 'linear' };
  }
  const decades: number[] = [];
  for (let e = Math.floor(Math.log10(lo)); Math.pow(10, e) <= hi; e++) decades.push(e);
  for (const ms of [[1, 2, 5], [1]]) {
    const t = decades.flatMap((e) => ms.map((m) => clean(m * Math.pow(10, e)))).filter((v) => v >= lo * (1 - 1e-9) && v <= hi * (1 + 1e-9));
    if (t.length <= maxTicks || ms.length === 1) return { ticks: thin(t, maxTicks), style: '125' };
  }
  return { ticks: [], style: '125' };
}

/** The nearest 1, 2 or 5 × 10^k at or below (dir -1) or at or above (dir 1) a positive v. */
export function round125(v: number, dir: -1 | 1): number {
  const e = Math.floor(Math.log10(v));
  const cands = [e - 1, e, e + 1].flatMap((k) => [1, 2, 5].map((m) => clean(m * Math.pow(10, k))));
  return dir < 0 ? Math.max(...cands.filter((c) => c <= v * (1 + 1e-12))) : Math.min(...cands.filter((c) => c >= v * (1 - 1e-12)));
}

/** Keeps every k-th value (always the first) so that at most `max` remain. */
export function thin(xs: number[], max: number): number[] {
  if (xs.length <= max) return xs;
  const k = Math.ceil(xs.length / max);
  return xs.filter((_, i) => i % k === 0);
}

/**
 * A scale from data values [lo, hi] onto pixels [r0, r1]. Log scales need lo > 0; the caller
 * filters non-positive values (they cannot be drawn on a log axis).
 */
export function makeScale(data: number[], range: [number, number], opts: ScaleOpts): Scale {
  const vals = data.filter((v) => Number.isFinite(v) && (opts.kind === 'linear' || v > 0));
  const maxTicks = opts.maxTicks ?? 6;
  let lo = vals.length ? Math.min(...vals) : opts.kind === 'log' ? 1 : 0;
  let hi = vals.length ? Math.max(...vals) : opts.kind === 'log' ? 10 : 1;
  if (opts.kind === 'log') {
    if (hi / lo < 1.5) {
      // A near-flat series: show some context around it rather than magnifying noise.
      lo /= 1.5;
      hi *= 1.5;
    }
    const pow2 = vals.length > 0 && vals.every(isPow2);
    let l = lo;
    let h = hi;
    if (opts.niceDomain) {
      // End the axis on round values just outside the data, so no point sits on the axis line.
      l = pow2 ? Math.pow(2, Math.floor(Math.log2(lo) + 1e-9)) : round125(lo, -1);
      h = pow2 ? Math.pow(2, Math.ceil(Math.log2(hi) - 1e-9)) : round125(hi, 1);
      if (l === lo) l = pow2 ? l / 2 : round125(lo * 0.999, -1);
    } else {
      const pad = 0.06 * Math.log(hi / lo);
      l = lo * Math.exp(-pad);
      h = hi * Math.exp(pad);
    }
    const { ticks, style } = logTicks(l, h, pow2, maxTicks);
    const ll = Math.log(l);
    const span = Math.log(h) - ll;
    return { kind: 'log', tickStyle: style, domain: [l, h], ticks, map: (v) => range[0] + ((Math.log(v) - ll) / span) * (range[1] - range[0]) };
  }
  if (opts.zero) {
    lo = Math.min(0, lo);
    hi = Math.max(0, hi);
  }
  if (hi - lo < 1e-12) {
    const d = Math.abs(hi) * 0.1 || 1;
    lo = opts.zero && lo >= 0 ? lo : lo - d;
    hi += d;
  }
  let ticks = linearTicks(lo, hi, maxTicks);
  if (opts.niceDomain) {
    const step = niceStep(hi - lo, maxTicks - 1);
    lo = clean(Math.floor(lo / step + 1e-9) * step);
    hi = clean(Math.ceil(hi / step - 1e-9) * step);
    ticks = linearTicks(lo, hi, maxTicks);
  } else {
    const pad = (hi - lo) * 0.05;
    lo = opts.zero && lo === 0 ? 0 : lo - pad;
    hi += pad;
  }
  const span = hi - lo;
  return { kind: 'linear', tickStyle: 'linear', domain: [lo, hi], ticks, map: (v) => range[0] + ((v - lo) / span) * (range[1] - range[0]) };
}

/** Short tick labels without Intl: 1500 → "1500", 25000 → "25k", 16384 → "16384", 0.5 → "0.5". */
export function tickLabel(v: number): string {
  const a = Math.abs(v);
  // Only abbreviate when nothing is lost: 16384 tokens must not read as 16.384k.
  if (a >= 1e6 && Number.isInteger(v / 1e5)) return `${clean(v / 1e6)}M`;
  if (a >= 1e4 && Number.isInteger(v / 100)) return `${clean(v / 1e3)}k`;
  return Number.isInteger(v) ? String(v) : String(clean(Number(v.toPrecision(4))));
}
