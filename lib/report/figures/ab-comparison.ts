// Conclusions drawn from the per-run figures: A/B speedups with intervals and a plain verdict,
// the knee of a concurrency ramp, the rate where an open-model load falls behind.
import type { Interval } from '../../stats/bootstrap';
import { versusOne } from './standings';
import type { RunFigures } from './run-figures';
import { acrossRepeats, repeatsLine, type RepeatFigures, type RepeatPair } from './repeats';

export interface Ratio {
  value: number;
  ci: Interval | null;
}

export interface Comparison {
  cellId: string;
  a: string;
  b: string;
  /** Output throughput of a ÷ that of b: > 1 means a generates faster. */
  throughput: Ratio | null;
  /** Mean e2e latency of b ÷ that of a: > 1 means a answers faster. */
  latency: Ratio | null;
  verdict: string;
  /** REPEATS > 1: the repeats the ratios and the verdict were drawn from (lib/report/figures/repeats.ts). */
  repeats?: RepeatFigures;
}

const DISPLAY: Record<string, string> = { dflash: 'DFlash', mtp: 'MTP', ddtree: 'DDTree', eagle: 'EAGLE' };
export const display = (label: string): string => DISPLAY[label] ?? label;

/**
 * A against B in one cell: the same statistics as the N-way comparison (versus.ts, one comparison,
 * 95 %): the interval is about its own estimate, and too few independent slices give no verdict.
 */
/** The A/B verdicts' interval level (one comparison per cell). */
export const AB_LEVEL = 0.95;

export function compare(a: RunFigures, b: RunFigures, where: string, sliceMs: number, repeats: RepeatPair[] = []): Comparison {
  if (repeats.length > 1) return compareRepeated(repeats, where, sliceMs);
  const e = versusOne(a, b, sliceMs, AB_LEVEL);
  const head = { cellId: a.cellId, a: a.variant, b: b.variant, throughput: e.throughput, latency: e.latency };
  if (e.standing === 'too_few_samples' && e.throughput) {
    return { ...head, verdict: `too few samples for a verdict ${where} (${x2(e.throughput.value)} the throughput): ${e.why}${caveat(a, b)}` };
  }
  return { ...head, verdict: verdict(a.variant, b.variant, e.throughput, where) + caveat(a, b) };
}

/** REPEATS: the ratio, interval and verdict across the repeats (A the pairs' variant, B their baseline), each repeat's beside it. */
function compareRepeated(pairs: RepeatPair[], where: string, sliceMs: number): Comparison {
  const e = acrossRepeats(pairs, sliceMs, AB_LEVEL);
  const { variant: a, baseline: b } = pairs[0];
  const head = { cellId: a.cellId, a: a.variant, b: b.variant, throughput: e.throughput, latency: e.latency, repeats: e.repeats };
  const hurt = caveat(...pairs.flatMap((p) => [p.variant, p.baseline]));
  const said =
    e.standing === 'too_few_samples' || e.standing === 'not_measured' ? `no verdict ${where}: ${e.why}` : verdict(a.variant, b.variant, e.throughput, where);
  return { ...head, verdict: `${said}, across ${pairs.length} repeats (${repeatsLine(e.repeats)})${hurt}` };
}

/** A ratio over a run that lost requests compares a server with a broken one: say so beside the verdict. */
function caveat(...runs: RunFigures[]): string {
  const hurt = runs.filter((r) => r.requests.failed + r.requests.unreachable > 0 || r.variantDown > 0);
  if (hurt.length === 0) return '';
  const what = hurt.map(
    (r) => `${display(r.variant)} had ${r.requests.failed + r.requests.unreachable} failed attempt(s)${r.variantDown > 0 ? ' and went down' : ''}`,
  );
  return `; not a fair comparison: ${what.join(', ')}`;
}

const x2 = (v: number) => `${v.toFixed(2)}×`;

/** "DFlash faster by 1.9× [1.8, 2.0] at c=1" or "no significant difference at c=64 (1.02× [0.95, 1.09])". */
export function verdict(a: string, b: string, r: Ratio | null, where: string): string {
  if (r === null) return `no throughput comparison ${where}: not measured for both`;
  if (r.ci === null) {
    const faster = r.value >= 1 ? `${display(a)} ${x2(r.value)}` : `${display(b)} ${x2(1 / r.value)}`;
    return `${faster} the throughput ${where} (no interval: fewer than 2 steady slices)`;
  }
  if (r.ci.lo > 1) return `${display(a)} faster by ${x2(r.value)} [${r.ci.lo.toFixed(2)}, ${r.ci.hi.toFixed(2)}] ${where}`;
  if (r.ci.hi < 1) {
    return `${display(b)} faster by ${x2(1 / r.value)} [${(1 / r.ci.hi).toFixed(2)}, ${(1 / r.ci.lo).toFixed(2)}] ${where}`;
  }
  return `no significant difference ${where} (${x2(r.value)} [${r.ci.lo.toFixed(2)}, ${r.ci.hi.toFixed(2)}])`;
}

export interface Knee {
  /** Concurrency where adding more stops paying; null when throughput kept growing. */
  concurrency: number | null;
  text: string;
}

/** The knee: the first level after which doubling-ish concurrency adds < `minGain` throughput. */
export function findKnee(runs: RunFigures[], minGain = 0.1): Knee {
  const levels = runs
    .filter((r) => r.load.kind === 'vus' && r.throughput !== null)
    .sort((x, y) => (x.load.kind === 'vus' && y.load.kind === 'vus' ? x.load.vus - y.load.vus : 0));
  if (levels.length < 2) return { concurrency: null, text: 'fewer than two measured concurrency levels: no knee to find' };
  const c = (r: RunFigures) => (r.load.kind === 'vus' ? r.load.vus : 0);
  for (let i = 0; i + 1 < levels.length; i++) {
    const cur = levels[i];
    const next = levels[i + 1];
    const gain = (next.throughput as number) / (cur.throughput as number) - 1;
    if (gain < minGain) {
      const lat = cur.e2e && next.e2e ? ` while p50 latency grows ${(next.e2e.p50 / cur.e2e.p50).toFixed(2)}×` : '';
      return {
        concurrency: c(cur),
        text: `knee at c=${c(cur)}: going to c=${c(next)} changes throughput by ${(gain * 100).toFixed(0)}%${lat}`,
      };
    }
  }
  const first = levels[0];
  const last = levels[levels.length - 1];
  const growth = (last.throughput as number) / (first.throughput as number);
  return { concurrency: null, text: `no knee up to c=${c(last)}: throughput still grows (${growth.toFixed(2)}× from c=${c(first)})` };
}

export interface FallBehind {
  rate: number | null;
  text: string;
}

/** The first offered rate the server does not keep up with: drops, or completions < 95% of offered. */
export function findFallBehind(runs: RunFigures[]): FallBehind {
  const levels = runs.filter((r) => r.load.kind === 'rate').sort((x, y) => rateOf(x) - rateOf(y));
  for (const r of levels) {
    const offered = rateOf(r);
    const done = r.requestRate ?? 0;
    if (r.dropped > 0 || done < offered * 0.95) {
      const why = r.dropped > 0 ? `${r.dropped} iterations dropped (no free VU)` : `completes ${done.toFixed(2)} req/s of ${offered} offered`;
      return { rate: offered, text: `falls behind at ${offered} req/s: ${why}` };
    }
  }
  const top = levels.length ? rateOf(levels[levels.length - 1]) : 0;
  if (levels.length) return { rate: null, text: `keeps up with every offered rate up to ${top} req/s` };
  // TRACE: one replay instead of rate levels; what it sent and what came back (its schedule lag is the replay's note).
  const replay = runs.find((r) => r.load.kind === 'trace');
  if (replay === undefined || replay.load.kind !== 'trace') return { rate: null, text: 'no arrival-rate cells' };
  const q = replay.requests;
  const lost = [q.failed > 0 ? `${q.failed} failed` : '', replay.dropped > 0 ? `${replay.dropped} never sent (every TRACE_VUS VU busy)` : '']
    .filter(Boolean)
    .join(', ');
  return {
    rate: null,
    text: `trace replay at ${replay.load.speed}× speed: ${q.ok} of ${replay.load.requests} requests completed${lost ? `; ${lost}` : ', none failed or left unsent'}`,
  };
}

function rateOf(r: RunFigures): number {
  return r.load.kind === 'rate' ? r.load.rate : 0;
}
