// A run against a baseline run: for every cell and variant both measured, the ratios new ÷ baseline
// of output throughput and of mean e2e latency with 95% intervals over the steady time slices (as
// the in-run verdicts have them: Welch's t on the log ratio for throughput, a percentile bootstrap
// for the pooled e2e), a verdict, and whether the new run is slower beyond the tolerance with its
// whole interval: a regression.
import { bootstrapRatio, mean, pooledMean, ratioSample, seedOf, type Interval } from '../stats/bootstrap';
import { ratioOfMeans } from '../stats/t-interval';
import { unpairedRatio } from '../stats/across-runs';
import type { Ratio } from '../report/figures/ab-comparison';
import { CompareInputError, type BenchSummary, type SummaryRecord, type SummarySlices } from './read-summary';
import { costSide, energySide, holding, judgeCost, judgeEnergy, type CostComparison, type EnergyComparison } from './cost-energy-verdicts';
import { checkWorkload, describeDifferences, type Difference } from './workload-check';

/** Fewer steady slices than this on either side: "too few samples", not a verdict. */
export const MIN_SLICES = 5;
export const DEFAULT_TOLERANCE = 0.05;

/** The comparison's exit codes (scripts/compare.ts; docs/compare.md). */
export const EXIT = {
  /** Compared; no regression. */
  ok: 0,
  /** Bad usage or input: a missing file, not JSON, not a summary, a bad tolerance. */
  usage: 2,
  /** At least one cell is slower, or costlier or more energy per token, beyond the tolerance with its whole interval. */
  regression: 3,
  /** The runs' workloads differ (without --force), or they share no cell. */
  refused: 4,
} as const;

export type Verdict = 'faster' | 'slower' | 'same' | 'mixed' | 'too-few-samples' | 'no-interval' | 'not-measured';

export const VERDICT_TEXT: Record<Verdict, string> = {
  faster: 'faster',
  slower: 'slower',
  same: 'no significant difference',
  mixed: 'mixed (one figure faster, the other slower)',
  'too-few-samples': 'too few samples',
  'no-interval': 'not enough data for an interval',
  'not-measured': 'not measured',
};

export interface Side {
  /** Output tokens/s over the steady window (or the run's figure when it has no slices). */
  throughput: number | null;
  /** Mean e2e ms of the requests that finished in the steady window (or the run's mean). */
  e2eMs: number | null;
  /** Steady slices; null when the summary has none. */
  slices: number | null;
  sliceMs: number | null;
}

export interface CellComparison {
  cell: string;
  variant: string;
  baseline: Side;
  next: Side;
  /** New ÷ baseline output throughput: < 1 is slower. */
  throughput: Ratio | null;
  /** New ÷ baseline mean e2e latency: > 1 is slower. */
  latency: Ratio | null;
  verdict: Verdict;
  /** Slower beyond the tolerance, the whole interval past it. */
  regression: boolean;
  /** Why there is no verdict, and what to keep in mind about one. */
  notes: string[];
  cost: CostComparison;
  energy: EnergyComparison;
}

export interface RunId {
  benchmark: string;
  runId: string;
  generatedAt: string | null;
}

export interface Comparison {
  baseline: RunId;
  next: RunId;
  tolerance: number;
  /**
   * within-run: intervals over each run's steady slices; across-run: both summaries have repeats
   * (REPEATS), and the intervals are Welch's t over the two runs' repeat means, as the in-run verdicts of repeats are.
   */
  rule: 'within-run' | 'across-run';
  /** Workload differences compared anyway (--force); empty otherwise. */
  forced: Difference[];
  notes: string[];
  cells: CellComparison[];
  /** "cell variant" of records only one test has. */
  onlyBaseline: string[];
  onlyNext: string[];
  regressions: number;
  exitCode: number;
}

export type Outcome = { refused: true; line: string; exitCode: number } | { refused: false; comparison: Comparison };

export interface CompareOptions {
  tolerance?: number;
  force?: boolean;
  /** The refusal's advice, e.g. "pass --force to compare them anyway". */
  forceHint?: string;
}

type Slice = [number, number, number];

const tps = (xs: Slice[]) => mean(xs.map((x) => x[0]));
/** Σe2e ÷ Σrequests over slices: the window's mean e2e, weighted as the requests fell. */
const meanE2e = pooledMean(1, 2);
const withRequests = (xs: Slice[]) => xs.filter((x) => x[2] > 0);

/** The bootstrap interval of the new run's mean e2e ÷ the baseline's, each side seeded by its role and cell. */
function e2eInterval(next: Slice[], base: Slice[], cell: string): Interval | null {
  return bootstrapRatio(ratioSample(next, 1, 2, seedOf(`new/${cell}`)), ratioSample(base, 1, 2, seedOf(`baseline/${cell}`)));
}

function tuples(s: SummarySlices): Slice[] {
  return s.requests.map((r, i) => [s.output_tokens_per_s[i], s.e2e_sum_ms[i], r]);
}

const positive = (v: number | null | undefined): v is number => typeof v === 'number' && Number.isFinite(v) && v > 0;

function ratio(num: number | null, den: number | null): number | null {
  return positive(num) && positive(den) ? num / den : null;
}

const secs = (ms: number) => `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;

/** A run that lost requests, or whose variant went down, is no fair side of a comparison. */
function lostNotes(b: SummaryRecord, n: SummaryRecord): string[] {
  const notes: string[] = [];
  for (const [who, r] of [
    ['baseline', b],
    ['new run', n],
  ] as const) {
    const lost = (r.requests_failed ?? 0) + (r.unreachable_attempts ?? 0);
    // An older summary has the old key alone.
    const down = r.variant_down_vus ?? r.target_down_vus ?? 0;
    if (lost > 0 || down > 0) notes.push(`${who}: ${lost} failed attempt(s)${down > 0 ? ', variant declared down' : ''}: not a fair comparison`);
  }
  return notes;
}

/**
 * Independent samples: enough slices, each longer than a request (else neighbours share requests).
 * Returns why there are too few; slices under 2× the mean e2e only add a note.
 */
function fewSamples(sides: ReadonlyArray<readonly [string, Slice[], Side, SummarySlices]>, notes: string[]): string[] {
  const few: string[] = [];
  for (const [who, t, v, s] of sides) {
    if (t.length < MIN_SLICES) few.push(`the ${who} has ${t.length} steady slice(s), fewer than ${MIN_SLICES} (raise SLICES)`);
    else if (withRequests(t).length < MIN_SLICES) few.push(`only ${withRequests(t).length} of the ${who}'s steady slices saw a request finish`);
    if (v.e2eMs !== null && s.slice_ms < v.e2eMs) {
      few.push(`the ${who}'s slices (${secs(s.slice_ms)}) are shorter than its requests (mean e2e ${secs(v.e2eMs)}; raise DURATION or lower SLICES)`);
    } else if (v.e2eMs !== null && s.slice_ms < 2 * v.e2eMs) {
      notes.push(`the ${who}'s slices are shorter than 2× its mean e2e: neighbouring slices share requests, so the interval is somewhat optimistic`);
    }
  }
  return few;
}

type Judged = Omit<CellComparison, 'cost' | 'energy'>;

function judge(b: SummaryRecord, n: SummaryRecord, tolerance: number): Judged {
  const notes: string[] = [];
  type Ratios = { throughput: Ratio | null; latency: Ratio | null };
  const none: Ratios = { throughput: null, latency: null };
  const point = (x: number | null): Ratio | null => (x === null ? null : { value: x, ci: null });
  const out = (baseline: Side, next: Side, { throughput, latency }: Ratios, verdict: Verdict, regression = false): Judged => ({
    cell: b.cell,
    variant: b.variant,
    baseline,
    next,
    throughput,
    latency,
    verdict,
    regression,
    notes,
  });
  notes.push(...lostNotes(b, n));
  const aggregate = (r: SummaryRecord): Side => ({
    throughput: positive(r.output_throughput_tokens_per_s) ? r.output_throughput_tokens_per_s : null,
    e2eMs: r.e2e_ms && positive(r.e2e_ms.avg) ? r.e2e_ms.avg : null,
    slices: r.steady_slices ? r.steady_slices.requests.length : null,
    sliceMs: r.steady_slices ? r.steady_slices.slice_ms : null,
  });
  if (!((b.requests_ok ?? 0) > 0) || !((n.requests_ok ?? 0) > 0)) {
    notes.unshift(`no successful request in the ${(b.requests_ok ?? 0) > 0 ? 'new run' : 'baseline'}`);
    return out(aggregate(b), aggregate(n), none, 'not-measured');
  }
  const sb = b.steady_slices;
  const sn = n.steady_slices;
  if (!sb || !sn) {
    const ab = aggregate(b);
    const an = aggregate(n);
    for (const [who, s] of [
      ['baseline', sb],
      ['new run', sn],
    ] as const) {
      if (!s)
        notes.unshift(
          `not enough data for an interval: the ${who}'s summary has no per-slice figures (` +
            `${s === null ? 'REQUESTS mode has no time slices; use DURATION' : 'written before summaries recorded them'})`,
        );
    }
    const t = ratio(an.throughput, ab.throughput);
    const l = ratio(an.e2eMs, ab.e2eMs);
    return out(ab, an, { throughput: point(t), latency: point(l) }, 'no-interval');
  }
  const tb = tuples(sb);
  const tn = tuples(sn);
  const side = (t: Slice[], s: SummarySlices): Side => {
    const e = meanE2e(t);
    return { throughput: positive(tps(t)) ? tps(t) : null, e2eMs: positive(e) ? e : null, slices: t.length, sliceMs: s.slice_ms };
  };
  const vb = side(tb, sb);
  const vn = side(tn, sn);
  const tPoint = ratio(vn.throughput, vb.throughput);
  const lPoint = ratio(vn.e2eMs, vb.e2eMs);
  if (tPoint === null && lPoint === null) {
    notes.unshift("neither output throughput nor e2e latency was measured in both runs' steady windows");
    return out(vb, vn, none, 'not-measured');
  }

  const few = fewSamples(
    [
      ['baseline', tb, vb, sb],
      ['new run', tn, vn, sn],
    ],
    notes,
  );
  if (few.length > 0) {
    notes.unshift(`too few samples: ${few.join('; ')}`);
    return out(vb, vn, { throughput: point(tPoint), latency: point(lPoint) }, 'too-few-samples');
  }

  // Throughput: Welch's t on the log ratio of the slices' means, as the in-run verdicts use it (a
  // percentile bootstrap over 5–8 slices calls a difference between identical servers too often).
  const throughput =
    tPoint === null
      ? null
      : {
          value: tPoint,
          ci: holding(
            ratioOfMeans(
              tn.map((x) => x[0]),
              tb.map((x) => x[0]),
              0.95,
            )?.ci ?? null,
            tPoint,
          ),
        };
  const latency = lPoint === null ? null : { value: lPoint, ci: holding(e2eInterval(withRequests(tn), withRequests(tb), b.cell), lPoint) };
  if ((throughput !== null && throughput.ci === null) || (latency !== null && latency.ci === null)) {
    notes.unshift('not enough data for an interval: most resamples had nothing to divide by');
    return out(vb, vn, { throughput, latency }, 'no-interval');
  }
  const tci = throughput?.ci ?? null;
  const lci = latency?.ci ?? null;
  const worse = (tci !== null && tci.hi < 1) || (lci !== null && lci.lo > 1);
  const better = (tci !== null && tci.lo > 1) || (lci !== null && lci.hi < 1);
  const verdict: Verdict = worse && better ? 'mixed' : worse ? 'slower' : better ? 'faster' : 'same';
  // Throughput and latency judged alike: slower by the factor 1 + tolerance.
  const regression = (tci !== null && tci.hi < 1 / (1 + tolerance)) || (lci !== null && lci.lo > 1 + tolerance);
  return out(vb, vn, { throughput, latency }, verdict, regression);
}

/** A summary's records of one cell and variant: one per repeat (REPEATS), in repeat order. */
function recordsOf(s: BenchSummary, cell: string, variant: string): SummaryRecord[] {
  return s.records.filter((r) => r.cell === cell && r.variant === variant).sort((a, b) => (a.repeat ?? 1) - (b.repeat ?? 1));
}

/** Whether a summary's runs were repeated (REPEATS > 1): its records carry their repeat. */
export const hasRepeats = (s: BenchSummary): boolean => s.records.some((r) => r.repeat !== undefined);

/** A repeat's means: output tokens/s and mean e2e over its steady window (its aggregate figures without slices). */
function repeatMeans(r: SummaryRecord): { tps: number | null; e2e: number | null } {
  const t = r.steady_slices ? tuples(r.steady_slices) : null;
  const tp = t ? tps(t) : r.output_throughput_tokens_per_s;
  const e = t ? meanE2e(withRequests(t)) : (r.e2e_ms?.avg ?? null);
  return { tps: positive(tp) ? tp : null, e2e: positive(e) ? e : null };
}

/**
 * Both runs repeated: new ÷ baseline of the repeats' means, Welch's t on the log ratio over the two
 * sets of repeat means (lib/stats/across-runs.ts unpairedRatio), so the interval holds the drift
 * between runs, not only the noise within one; the verdict and the regression rule as judge()'s.
 */
function judgeAcross(bs: SummaryRecord[], ns: SummaryRecord[], tolerance: number): Judged {
  const none: SummaryRecord = { cell: '', variant: '', output_throughput_tokens_per_s: null, e2e_ms: null };
  const notes = Array.from({ length: Math.max(bs.length, ns.length) }, (_, i) =>
    lostNotes(bs[i] ?? none, ns[i] ?? none).map((n) => `repeat ${i + 1}, ${n}`),
  ).flat();
  const mb = bs.map(repeatMeans);
  const mn = ns.map(repeatMeans);
  const mean = (xs: Array<number | null>) => (xs.every(positive) ? xs.reduce((a, x) => a + x, 0) / xs.length : null);
  const side = (m: typeof mb): Side => ({ throughput: mean(m.map((x) => x.tps)), e2eMs: mean(m.map((x) => x.e2e)), slices: null, sliceMs: null });
  const vb = side(mb);
  const vn = side(mn);
  const across = (pick: (x: (typeof mb)[number]) => number | null): Ratio | null => {
    const [b, n] = [mb.map(pick), mn.map(pick)];
    if (!b.every(positive) || !n.every(positive)) return null;
    const r = unpairedRatio(n, b, 0.95);
    return r && { value: r.value, ci: r.ci };
  };
  const throughput = across((x) => x.tps);
  const latency = across((x) => x.e2e);
  const head = { cell: bs[0].cell, variant: bs[0].variant, baseline: vb, next: vn, throughput, latency, notes };
  notes.unshift(`across runs: ${bs.length} repeat(s) in the baseline, ${ns.length} in the new run`);
  if (throughput === null && latency === null) {
    notes.push('not measured: a repeat of either run had no output throughput or e2e latency in its steady window');
    return { ...head, verdict: 'not-measured', regression: false };
  }
  const tci = throughput?.ci ?? null;
  const lci = latency?.ci ?? null;
  const worse = (tci !== null && tci.hi < 1) || (lci !== null && lci.lo > 1);
  const better = (tci !== null && tci.lo > 1) || (lci !== null && lci.hi < 1);
  const verdict: Verdict = worse && better ? 'mixed' : worse ? 'slower' : better ? 'faster' : 'same';
  const regression = (tci !== null && tci.hi < 1 / (1 + tolerance)) || (lci !== null && lci.lo > 1 + tolerance);
  return { ...head, verdict, regression };
}

/** Slower, costlier or more energy per token beyond the tolerance: a regression of the cell. */
export const regressedAny = (c: CellComparison): boolean => c.regression || c.cost.regression || c.energy.regression;

const runId = (s: BenchSummary): RunId => ({ benchmark: s.benchmark, runId: s.run_id, generatedAt: s.generated_at ?? null });
const key = (r: SummaryRecord) => `${r.cell} ${r.variant}`;

export function compareSummaries(base: BenchSummary, next: BenchSummary, opts: CompareOptions = {}): Outcome {
  const tolerance = opts.tolerance ?? DEFAULT_TOLERANCE;
  const check = checkWorkload(base, next);
  if (check.differences.length > 0 && !opts.force) {
    return {
      refused: true,
      line:
        `refused: the runs' workloads differ in ${describeDifferences(check.differences)} (baseline vs new); ` +
        `${opts.forceHint ?? 'pass --force to compare them anyway'}`,
      exitCode: EXIT.refused,
    };
  }
  const cells: CellComparison[] = [];
  const rule = hasRepeats(base) && hasRepeats(next) ? 'across-run' : 'within-run';
  const notes = [...check.notes, ...repeatNotes(base, next)];
  for (const b of base.records) {
    if ((b.repeat ?? 1) !== 1) continue;
    const n = next.records.find((x) => x.cell === b.cell && x.variant === b.variant && (x.repeat ?? 1) === 1);
    if (!n) continue;
    const j = rule === 'across-run' ? judgeAcross(recordsOf(base, b.cell, b.variant), recordsOf(next, b.cell, b.variant), tolerance) : judge(b, n, tolerance);
    cells.push({
      ...j,
      cost: judgeCost(costSide(base, b, 'baseline'), costSide(next, n, 'new run'), j.throughput, tolerance),
      energy:
        rule === 'across-run'
          ? { baseline: null, next: null, ratio: null, regression: false, notCompared: 'energy per token is not compared across repeats' }
          : judgeEnergy(energySide(base, b, 'baseline'), energySide(next, n, 'new run'), tolerance),
    });
  }
  const unique = (xs: string[]) => [...new Set(xs)];
  const onlyBaseline = unique(base.records.filter((b) => !next.records.some((n) => key(n) === key(b))).map(key));
  const onlyNext = unique(next.records.filter((n) => !base.records.some((b) => key(n) === key(b))).map(key));
  if (cells.length === 0) {
    const list = (xs: string[]) => (xs.length ? xs.slice(0, 4).join(', ') + (xs.length > 4 ? ' …' : '') : 'none');
    return {
      refused: true,
      line: `refused: the runs share no cell and variant (baseline: ${list(onlyBaseline)}; new: ${list(onlyNext)})`,
      exitCode: EXIT.refused,
    };
  }
  const regressions = cells.filter(regressedAny).length;
  return {
    refused: false,
    comparison: {
      baseline: runId(base),
      next: runId(next),
      tolerance,
      rule,
      forced: check.differences,
      notes,
      cells,
      onlyBaseline,
      onlyNext,
      regressions,
      exitCode: regressions > 0 ? EXIT.regression : EXIT.ok,
    },
  };
}

/** Which rule the comparison used, said when either run was repeated; nothing when neither was. */
function repeatNotes(base: BenchSummary, next: BenchSummary): string[] {
  const [b, n] = [hasRepeats(base), hasRepeats(next)];
  if (b && n)
    return [
      "rule: across runs — both runs were repeated (REPEATS), so each ratio's interval is Welch's t on the " +
        "log ratio over the two runs' repeat means (the drift between runs included), not over the slices of " +
        'one run',
    ];
  if (!b && !n) return [];
  return [
    `rule: within one run — only the ${b ? 'baseline' : 'new run'} was repeated (REPEATS), so no interval ` +
      `across runs can be drawn; its first repeat is compared with the other run's slices`,
  ];
}

/**
 * The tolerance as written in REGRESSION_TOLERANCE or --tolerance: a percentage, "5" or "5%".
 * A bare number below 1 ("0.05") is refused as ambiguous; write "5%" (or "0.05%").
 */
export function parseTolerance(raw: string, name: string): number {
  const s = raw.trim();
  const m = /^(\d+(?:\.\d+)?)(%?)$/.exec(s);
  const pct = m ? Number(m[1]) : NaN;
  if (!m || !(pct < 100)) throw new CompareInputError(`${name}=${raw}: not a percentage below 100, e.g. 5 or 5%`);
  if (m[2] === '' && pct > 0 && pct < 1)
    throw new CompareInputError(
      `${name}=${raw}: ambiguous; the tolerance is a percentage: write ${Math.round(pct * 10000) / 100}% for ` +
        `${Math.round(pct * 10000) / 100} percent, or ${pct}% if you mean it`,
    );
  return pct / 100;
}
