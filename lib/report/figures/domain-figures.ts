// The dataset part of a report (DATASET runs): where the prompts came from and how long they were
// meant to be; per run the lengths actually sent (the server's counts) and how they compare with
// the intended ones; per domain the latency, acceptance length and, in an A/B, a verdict with its
// interval; per turn of a conversation TTFT and the prompt tokens served from cache. Read from the
// sub-metrics lib/plan/dataset-keys.ts declares. Pure.
import type { BenchConfig } from '../../config/config-types';
import type { Plan, Run } from '../../plan/matrix';
import { byDomain } from '../../plan/dataset-keys';
import { subKey } from '../../plan/summary-keys';
import { SPEC_ACCEPTED_BINS, specAcceptedLabel } from '../../metrics/samples';
import { acceptanceByPosition } from './draft-acceptance';
import { bootstrapRatio, pooledMean, ratioSample, seedOf, type Interval } from '../../stats/bootstrap';
import type { DatasetPlan } from '../../dataset/bucket-plan';
import { describeLengths } from '../../dataset/lengths';
import { display, type Ratio } from './ab-comparison';
import type { Dist, SummaryMetrics } from './run-figures';

export interface DomainFigures {
  domain: string;
  /** Successful and failed requests of this domain. */
  ok: number;
  failed: number;
  e2e: Dist | null;
  ttft: Dist | null;
  outputTokens: number;
  /** Σ tokens ÷ Σ verify steps over this domain's requests (SGLang meta_info, vLLM metrics.speculative_decoding); null when not reported per request. */
  acceptance: number | null;
  /** The share of this domain's verify steps that accepted each draft position (vLLM's per-request histograms); null without them. */
  acceptedByPosition: number[] | null;
  /** Per steady slice: [e2e sum ms, completed requests] (the bootstrap's units). */
  slices: Array<[number, number]>;
}

export interface TurnFigures {
  turn: string;
  requests: number;
  e2e: Dist | null;
  ttft: Dist | null;
  inputTokens: number;
  cachedTokens: number;
  /** cachedTokens ÷ inputTokens; null when no prompt token was counted. */
  cachedShare: number | null;
}

export interface DatasetRun {
  scenario: string;
  variant: string;
  cellId: string;
  isl: number;
  /** Prompt and output tokens per request as the server counted them. */
  promptTokens: Dist | null;
  outputTokens: Dist | null;
  /** Server prompt_tokens ÷ intended tokens, per first-turn request. */
  lengthRatio: Dist | null;
  domains: DomainFigures[];
  turns: TurnFigures[];
}

export interface DomainVerdict {
  domain: string;
  /** Mean e2e of b ÷ that of a over this domain's requests: > 1 means a answers faster. */
  speedup: Ratio | null;
  text: string;
  acceptance: { a: number | null; b: number | null };
}

export interface DomainComparison {
  cellId: string;
  a: string;
  b: string;
  domains: DomainVerdict[];
  /** One line: "by domain at …: DFlash 2.10× [1.90, 2.30] faster on code; 1.20× [0.98, 1.40] on chat: not significant" (mean e2e, interval at `level`). */
  verdict: string;
  /** Confidence of each interval: 0.95 in the A/B; in a comparison of N, 95% simultaneous over every variant and domain (Bonferroni). */
  level: number;
}

export interface DatasetReport {
  source: string;
  format: string;
  /** How lengths were obtained: "counted by the server (…)" or the estimate. */
  lengths: string;
  total: number;
  examined: number;
  filtered: number;
  outside: number;
  withOutputTokens: number;
  buckets: Array<{ isl: number; lo: number; hi: number; prompts: number; meanTokens: number | null }>;
  domains: string[];
  multiTurn: { history: string; thinkTimeMs: number } | null;
  runs: DatasetRun[];
  comparisons: DomainComparison[];
  /** Prompt-to-server agreement, and the plan's own notes. */
  warnings: string[];
}

/** How far the server's mean prompt count may be from the intended one before the report says so. */
export const LENGTH_TOLERANCE = 0.05;

function dist(m: SummaryMetrics, key: string): Dist | null {
  const v = m[key]?.values;
  if (!v || !v.count) return null;
  return { avg: v.avg, p50: v.med, p90: v['p(90)'], p99: v['p(99)'], max: v.max, count: v.count };
}

const count = (m: SummaryMetrics, key: string): number => m[key]?.values.count ?? 0;

/**
 * One run's figures over the requests whose tag `tag` is `value` (a domain, an adapter), from the
 * sub-metrics declared for it; `domain` holds the value whatever the tag.
 */
export function tagFigures(m: SummaryMetrics, plan: Plan, s: string, tag: string, value: string): DomainFigures {
  const tags = { [tag]: value };
  const first = plan.slices > 1 ? 1 : 0;
  const success = m[subKey('success', s, tags)]?.values ?? {};
  const verify = count(m, subKey('specVerifySteps', s, tags));
  const slices: Array<[number, number]> = [];
  if (plan.requests === null) {
    for (let k = first; k < plan.slices; k++) {
      const tags = { slice: String(k), [tag]: value };
      slices.push([count(m, subKey('windowE2e', s, tags)), count(m, subKey('windowRequests', s, tags))]);
    }
  }
  return {
    domain: value,
    ok: success.passes ?? 0,
    failed: success.fails ?? 0,
    e2e: dist(m, subKey('e2e', s, tags)),
    ttft: dist(m, subKey('ttft', s, tags)),
    outputTokens: count(m, subKey('outputTokens', s, tags)),
    acceptance: verify > 0 ? count(m, subKey('specTokens', s, tags)) / verify : null,
    acceptedByPosition:
      acceptanceByPosition(
        Array.from({ length: SPEC_ACCEPTED_BINS }, (_, j) => count(m, subKey('specStepsByAccepted', s, { accepted: specAcceptedLabel(j), [tag]: value }))),
      )?.byPosition ?? null,
    slices,
  };
}

function runOf(m: SummaryMetrics, plan: Plan, run: Run, ds: DatasetPlan): DatasetRun {
  const s = run.scenario;
  const domains: DomainFigures[] = byDomain(ds.shape) ? ds.shape.domains.map((domain) => tagFigures(m, plan, s, 'domain', domain)) : [];
  const turns: TurnFigures[] = ds.shape.turns.map((turn) => {
    const tags = { turn };
    const input = count(m, subKey('inputTokens', s, tags));
    const cached = count(m, subKey('cachedTokens', s, tags));
    const e2e = dist(m, subKey('e2e', s, tags));
    return {
      turn,
      requests: e2e?.count ?? 0,
      e2e,
      ttft: dist(m, subKey('ttft', s, tags)),
      inputTokens: input,
      cachedTokens: cached,
      cachedShare: input > 0 ? cached / input : null,
    };
  });
  return {
    scenario: s,
    variant: run.variant,
    cellId: run.cell.id,
    isl: run.cell.isl,
    promptTokens: dist(m, subKey('promptLength', s)),
    outputTokens: dist(m, subKey('outputLength', s)),
    lengthRatio: dist(m, subKey('lengthRatio', s)),
    domains,
    turns,
  };
}

/** Mean e2e over slices of [Σe2e, requests]. */
const meanE2e = pooledMean(0, 1);

const x2 = (v: number) => `${v.toFixed(2)}×`;
const ci2 = (ci: Interval) => `[${ci.lo.toFixed(2)}, ${ci.hi.toFixed(2)}]`;

/** "DFlash 2.10× [1.90, 2.30] faster on code", "1.20× [0.98, 1.40] on chat: not significant". */
export function domainVerdict(a: string, b: string, domain: string, r: Ratio | null): string {
  if (r === null) return `${domain}: not measured for both`;
  if (r.ci === null)
    return (
      `${r.value >= 1 ? `${display(a)} ${x2(r.value)}` : `${display(b)} ${x2(1 / r.value)}`} faster on ${domain} (no interval: fewer ` +
      `than 2 steady slices with requests)`
    );
  if (r.ci.lo > 1) return `${display(a)} ${x2(r.value)} ${ci2(r.ci)} faster on ${domain}`;
  if (r.ci.hi < 1) return `${display(b)} ${x2(1 / r.value)} ${ci2({ lo: 1 / r.ci.hi, hi: 1 / r.ci.lo })} faster on ${domain}`;
  return `${x2(r.value)} ${ci2(r.ci)} on ${domain}: not significant`;
}

/** Run a against run b over the groups of one tag (`by`: domain, adapter), each group's mean e2e with its bootstrap interval. */
export function compareGroups(
  a: { variant: string; cellId: string; groups: DomainFigures[] },
  b: { variant: string; groups: DomainFigures[] },
  where: string,
  level: number,
  by: string,
): DomainComparison {
  const domains = a.groups.map((da): DomainVerdict => {
    const db = b.groups.find((x) => x.domain === da.domain) as DomainFigures;
    let speedup: Ratio | null = null;
    if (da.e2e && db.e2e && da.e2e.avg > 0) {
      const withReqs = (xs: Array<[number, number]>) => xs.filter((x) => x[1] > 0);
      const sa = withReqs(da.slices);
      const sb = withReqs(db.slices);
      // With an interval, the estimate is the statistic it resamples (mean e2e over the steady slices), so it lies inside
      // it; the whole run's means (warm-up and drain included) could fall outside. Without one, the whole run's.
      const sliced = sa.length >= 2 && sb.length >= 2;
      const sample = (xs: Array<[number, number]>, variant: string) => ratioSample(xs, 0, 1, seedOf(`${a.cellId}/${variant}/${da.domain}`));
      speedup = sliced
        ? { value: meanE2e(sb) / meanE2e(sa), ci: bootstrapRatio(sample(sb, `b/${b.variant}`), sample(sa, `a/${a.variant}`), { level }) }
        : { value: db.e2e.avg / da.e2e.avg, ci: null };
    }
    return { domain: da.domain, speedup, text: domainVerdict(a.variant, b.variant, da.domain, speedup), acceptance: { a: da.acceptance, b: db.acceptance } };
  });
  return {
    cellId: a.cellId,
    a: a.variant,
    b: b.variant,
    domains,
    verdict: `by ${by} ${where}: ${domains.map((d) => d.text).join('; ')}`,
    level,
  };
}

/** The server's prompt counts against the intended ones, per variant: a line when they differ by more than LENGTH_TOLERANCE. */
function agreement(runs: DatasetRun[], ds: DatasetPlan): string[] {
  const out: string[] = [];
  for (const variant of [...new Set(runs.map((r) => r.variant))]) {
    const rs = runs.filter((r) => r.variant === variant && r.lengthRatio !== null);
    const n = rs.reduce((s, r) => s + (r.lengthRatio as Dist).count, 0);
    if (n === 0) continue;
    const avg = rs.reduce((s, r) => s + (r.lengthRatio as Dist).avg * (r.lengthRatio as Dist).count, 0) / n;
    if (Math.abs(avg - 1) <= LENGTH_TOLERANCE) continue;
    const p50 = rs.map((r) => (r.lengthRatio as Dist).p50);
    const max = Math.max(...rs.map((r) => (r.lengthRatio as Dist).max));
    const pct = Math.round(Math.abs(avg - 1) * 100);
    out.push(
      `${variant}: the server counted ${pct}% ${avg > 1 ? 'more' : 'fewer'} prompt tokens than intended (server ` +
        `÷ intended: mean ${avg.toFixed(2)}, median ${Math.min(...p50).toFixed(2)}` +
        (`${p50.length > 1 ? `–${Math.max(...p50).toFixed(2)}` : ''}, max ${max.toFixed(2)} over ${n} first-turn requests; intended lengths ` +
          `${describeLengths(ds.lengths)}): `) +
        "the ISL buckets are off by as much; the length table below has the server's counts.",
    );
  }
  return out;
}

/** Which variants are compared (the report's kind: 'ab', 'compare'), and how a run's cell is named in a verdict. */
export interface Pairing {
  kind: string;
  where: (run: Run) => string;
}

export function datasetReport(cfg: BenchConfig, plan: Plan, m: SummaryMetrics, ds: DatasetPlan | undefined, { kind, where }: Pairing): DatasetReport | null {
  if (!cfg.dataset || !ds) return null;
  // Cell by cell, variants in their order (runs were measured in alternating order).
  const order = (r: Run) => plan.cells.findIndex((c) => c.id === r.cell.id) * cfg.variants.length + cfg.variants.findIndex((v) => v.variant === r.variant);
  const runs = [...plan.runs].sort((x, y) => order(x) - order(y)).map((r) => runOf(m, plan, r, ds));
  // The A/B: the first variant against the second. A comparison of N: each variant against the
  // baseline, every interval widened so that all of them hold together 95% of the time.
  const comparisons: DomainComparison[] = [];
  const pairs: Array<[string, string]> = [];
  if (kind === 'ab' && cfg.variants.length === 2) pairs.push([cfg.variants[0].variant, cfg.variants[1].variant]);
  if (kind === 'compare') for (const v of cfg.variants) if (v.variant !== cfg.baseline) pairs.push([v.variant, cfg.baseline]);
  const level = 1 - 0.05 / Math.max(1, kind === 'compare' ? pairs.length * ds.shape.domains.length : 1);
  if (byDomain(ds.shape)) {
    for (const [a, b] of pairs) {
      for (const cell of plan.cells) {
        const ra = runs.find((r) => r.cellId === cell.id && r.variant === a);
        const rb = runs.find((r) => r.cellId === cell.id && r.variant === b);
        const run = plan.runs.find((r) => r.cell.id === cell.id) as Run;
        if (ra && rb) comparisons.push(compareGroups({ ...ra, groups: ra.domains }, { ...rb, groups: rb.domains }, where(run), level, 'domain'));
      }
    }
  }
  return {
    source: ds.source,
    format: ds.format,
    lengths: describeLengths(ds.lengths),
    total: ds.total,
    examined: ds.examined,
    filtered: ds.filtered,
    outside: ds.outside,
    withOutputTokens: ds.withOutputTokens,
    buckets: ds.buckets.map((b) => ({
      isl: b.isl,
      lo: b.lo,
      hi: b.hi,
      prompts: b.items.length,
      meanTokens: b.tokens.length ? b.tokens.reduce((s, x) => s + x, 0) / b.tokens.length : null,
    })),
    domains: [...ds.shape.domains],
    multiTurn: cfg.dataset.multiTurn ? { history: cfg.dataset.history, thinkTimeMs: cfg.dataset.thinkTimeMs } : null,
    runs,
    comparisons,
    warnings: [...ds.notes.map((n) => `${ds.source}: ${n}`), ...agreement(runs, ds)],
  };
}
