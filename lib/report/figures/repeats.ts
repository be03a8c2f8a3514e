// REPEATS > 1: one verdict per cell and variant from all the repeats of a comparison. Each repeat
// gives its within-run entry (versusOne over that repeat's runs alone); the verdict rests on the
// across-run interval, a t interval over the repeats' log ratios (lib/stats/across-runs.ts), at
// the same (Bonferroni-adjusted) level as the within-run ones. The within-run verdicts are shown
// beside it, and where they disagree with each other or with the across-run verdict, it says so.
import { pairedRatio, spreadOf, type AcrossRuns, type Spread } from '../../stats/across-runs';
import type { Interval } from '../../stats/bootstrap';
import type { RunFigures } from './run-figures';
import { crossovers, MARK, rank, versusOne, FAMILY_LEVEL, type Standing, type Versus, type VersusEntry } from './standings';

export interface RepeatWithin {
  repeat: number;
  /** Mean output throughput of the variant and of the baseline in this repeat (tokens/s over the steady window). */
  variantMean: number | null;
  baselineMean: number | null;
  /** This repeat's within-run ratio, interval and verdict. */
  ratio: number | null;
  ci: Interval | null;
  standing: Standing;
}

/** An entry drawn from R repeats: the across-run figures are its throughput and latency, the repeats' own beside them. */
export type RepeatedEntry = VersusEntry & { repeats: RepeatFigures };

export const isRepeated = (e: VersusEntry): e is RepeatedEntry => (e as Partial<RepeatedEntry>).repeats !== undefined;

export interface RepeatFigures {
  within: RepeatWithin[];
  /** Run-to-run spread of the repeats' ratios. */
  spread: Spread | null;
  /** The across-run interval of the throughput ratio the verdict rests on; null with fewer than 2 measured repeats. */
  across: AcrossRuns | null;
  /** "faster in 3 of 3 repeats", "not reproducible: faster in 2 of 3 repeats, no significant difference in 1". */
  agreement: string;
}

/** One repeat's pair of runs: the variant's and the baseline's, in the same cell. */
export interface RepeatPair {
  repeat: number;
  variant: RunFigures;
  baseline: RunFigures;
}

const WORD: Record<Standing, string> = {
  faster: 'faster',
  slower: 'slower',
  same: 'no significant difference',
  too_few_samples: 'too few samples',
  not_measured: 'not measured',
};

/** The repeats of a test, 1-based, in order; [] when it ran once. */
export function repeatsOf(runs: ReadonlyArray<Pick<RunFigures, 'repeat'>>): number[] {
  return [...new Set(runs.map((r) => r.repeat).filter((k): k is number => k !== undefined))].sort((a, b) => a - b);
}

/** Every repeat's pair of runs of a variant and the baseline in a cell (a repeat missing either is left out). */
export function pairsOf(runs: RunFigures[], cellId: string, variant: string, baseline: string): RepeatPair[] {
  const find = (k: number, v: string) => runs.find((r) => r.cellId === cellId && r.variant === v && r.repeat === k);
  return repeatsOf(runs).flatMap((repeat) => {
    const v = find(repeat, variant);
    const b = find(repeat, baseline);
    return v && b ? [{ repeat, variant: v, baseline: b }] : [];
  });
}

function agreementOf(across: Standing, within: RepeatWithin[]): string {
  const counts = new Map<Standing, number>();
  for (const w of within) counts.set(w.standing, (counts.get(w.standing) ?? 0) + 1);
  const n = within.length;
  if (counts.size === 1 && counts.has(across)) return `${WORD[across]} in ${n} of ${n} repeats`;
  const parts = [...counts].map(([s, k], i) => `${WORD[s]} in ${k}${i === 0 ? ` of ${n} repeats` : ''}`).join(', ');
  const called = (counts.get('faster') ?? 0) + (counts.get('slower') ?? 0) > 0;
  return across !== 'faster' && across !== 'slower' && called ? `not reproducible: ${parts}` : `within-run: ${parts}`;
}

/**
 * The entry of a variant against the baseline in a cell over R repeats: the ratio and interval
 * across runs (geometric mean of the repeats' ratios; e2e alike), the verdict from that interval
 * alone, and each repeat's within-run figures beside it.
 */
export function acrossRepeats(pairs: RepeatPair[], sliceMs: number, level: number): RepeatedEntry {
  const entries = pairs.map((p) => versusOne(p.variant, p.baseline, sliceMs, level));
  const within: RepeatWithin[] = pairs.map((p, i) => ({
    repeat: p.repeat,
    variantMean: p.variant.throughput,
    baselineMean: p.baseline.throughput,
    ratio: entries[i].throughput?.value ?? null,
    ci: entries[i].throughput?.ci ?? null,
    standing: entries[i].standing,
  }));
  const ratios = within.flatMap((w) => (w.ratio === null ? [] : [w.ratio]));
  const across = ratios.length === within.length ? pairedRatio(ratios, level) : null;
  const lat = entries.flatMap((e) => (e.latency === null ? [] : [e.latency.value]));
  const e2e = lat.length === entries.length ? pairedRatio(lat, level) : null;
  const head = { ...entries[0], throughput: across && { value: across.value, ci: across.ci }, latency: e2e && { value: e2e.value, ci: e2e.ci } };
  const missing = within.filter((w) => w.ratio === null).map((w) => w.repeat);
  let standing: Standing;
  let why: string | null = null;
  if (ratios.length === 0) [standing, why] = ['not_measured', 'throughput was not measured for both in any repeat'];
  else if (across === null)
    [standing, why] = [
      'too_few_samples',
      missing.length > 0
        ? `throughput not measured for both in repeat(s) ${missing.join(', ')}: no interval across runs`
        : 'fewer than 2 repeats: no interval across runs',
    ];
  else standing = across.ci.lo > 1 ? 'faster' : across.ci.hi < 1 ? 'slower' : 'same';
  const repeats: RepeatFigures = { within, spread: spreadOf(ratios), across, agreement: agreementOf(standing, within) };
  return { ...head, standing, why, repeats };
}

/**
 * versus() of a test with repeats: every variant against the baseline in every cell, each entry
 * across the repeats (acrossRepeats); the rankings and crossovers from those entries, so they too
 * stand only on what holds across runs.
 */
export function versusAcrossRepeats(runs: RunFigures[], cells: ReadonlyArray<{ id: string }>, variants: string[], baseline: string, sliceMs: number): Versus {
  const others = variants.filter((v) => v !== baseline);
  const level = 1 - (1 - FAMILY_LEVEL) / Math.max(1, others.length);
  const entries: VersusEntry[] = [];
  const rankings: Versus['rankings'] = [];
  for (const cell of cells) {
    const here = others.flatMap((v) => {
      const pairs = pairsOf(runs, cell.id, v, baseline);
      return pairs.length === 0 ? [] : [acrossRepeats(pairs, sliceMs, level)];
    });
    if (here.length === 0) continue;
    entries.push(...here);
    rankings.push({ cellId: cell.id, tiers: rank(baseline, here) });
  }
  const n = repeatsOf(runs).length;
  return {
    baseline,
    variants,
    intervalLevel: level,
    method: `each variant against ${baseline}, cell by cell, over ${repeatsMethod(n, level)} (Bonferroni over ${others.length} comparison(s) per cell)`,
    entries,
    rankings,
    crossovers: others.flatMap((v) =>
      crossovers(
        v,
        entries.filter((e) => e.variant === v),
      ),
    ),
  };
}

const x2 = (v: number) => `${v.toFixed(2)}×`;
const ci2 = (ci: Interval | null) => (ci ? ` [${ci.lo.toFixed(2)}, ${ci.hi.toFixed(2)}]` : '');

/** The spread and the within-run figures of each repeat, one line: what the across-run verdict rests on. */
export function repeatsLine(r: RepeatFigures): string {
  const within = r.within.map((w) => `r${w.repeat} ${w.ratio === null ? 'n/a' : `${MARK[w.standing]} ${x2(w.ratio)}${ci2(w.ci)}`}`).join(', ');
  const s = r.spread;
  const spread = s === null ? '' : `; run-to-run spread ${s.min.toFixed(2)}–${x2(s.max)}${s.sdLog === null ? '' : ` (sd ${(s.sdLog * 100).toFixed(1)} %)`}`;
  const across = r.across === null ? 'no interval across runs' : `across runs ${x2(r.across.value)}${ci2(r.across.ci)} (t, ${r.across.df} df)`;
  return `within-run ${within}${spread}; ${across}: ${r.agreement}`;
}

/** summary.json's `repeats` of an entry: the per-repeat means and ratios, the spread and the across-run interval. */
export function repeatsJson(r: RepeatFigures): unknown {
  return {
    per_repeat: r.within.map((w) => ({
      repeat: w.repeat,
      variant_output_tokens_per_s: w.variantMean,
      baseline_output_tokens_per_s: w.baselineMean,
      throughput_ratio: w.ratio,
      throughput_ratio_ci: w.ci ? [w.ci.lo, w.ci.hi] : null,
      standing: w.standing,
    })),
    spread: r.spread === null ? null : { min: r.spread.min, max: r.spread.max, sd_log: r.spread.sdLog },
    across_run_ratio: r.across?.value ?? null,
    across_run_ci: r.across ? [r.across.ci.lo, r.across.ci.hi] : null,
    across_run_df: r.across?.df ?? null,
    agreement: r.agreement,
  };
}

/** The method's words for a test with repeats. */
export function repeatsMethod(repeats: number, level: number): string {
  return (
    `${repeats} repeats; the verdict rests on the interval across runs, a t interval over the repeats' log ` +
    `throughput ratios (${repeats - 1} degree(s) of freedom, ${(level * 100).toFixed(1)} %${repeats === 2 ? '; 1 degree of freedom makes it wide' : ''}), ` +
    `faster or slower only where it excludes 1; each repeat's within-run interval is shown beside it`
  );
}
