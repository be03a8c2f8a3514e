// A against B from the per-run figures: speedups with intervals and a plain verdict.
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
 * A against B in one cell: the same statistics as the N-way comparison (standings.ts, one comparison,
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
