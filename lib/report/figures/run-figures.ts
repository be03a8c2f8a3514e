// Reads k6's end-of-test summary data back into per-run figures, using the same sub-metric keys
// the thresholds declared. Only measured values appear; a figure nobody measured is null.
import type { ErrorClass } from '../../dialects/types';
import { ERROR_CLASSES } from '../../dialects/types';
import type { Load, Plan, Run } from '../../plan/matrix';
import { steadyWindow } from '../../plan/matrix';
import type { Interval } from '../../stats/bootstrap';
import { tMeanInterval } from '../../stats/t-interval';
import { ITL_RULES, type ItlRule } from '../../metrics/timing';
import { BUCKETS_OF, SHORT_CAUSES, SPEC_ACCEPTED_BINS, specAcceptedLabel, type ShortCause } from '../../metrics/samples';
import { acceptanceByPosition, acceptanceOf, serverPositions, type Acceptance, type AcceptanceByPosition } from './draft-acceptance';
import { subKey } from '../../plan/summary-keys';
import { RELATIVE_ERROR } from '../../stats/log-buckets';
import { clientCheck, faithful, type ClientCheck } from './client-overhead';

export type { Dist } from './dist';
import type { Dist } from './dist';
export type { SummaryMetric, SummaryMetrics } from './summary-metrics';
import { bucketDist, count, dist, metric, type SummaryMetrics } from './summary-metrics';
import { saturationNote, saturationOf, serverFigures, type SaturationFigures, type ServerFigures } from './server-figures';
import { reasoningNote, reasoningOf, type Reasoning } from './reasoning-figures';

export interface RunFigures {
  scenario: string;
  variant: string;
  /** REPEATS > 1: the repeat (1-based) this run belongs to; absent with one. */
  repeat?: number;
  cellId: string;
  isl: number;
  osl: number;
  load: Load;
  /**
   * total, ok and failed count requests that reached the server; attempts that found nothing
   * listening are `unreachable` (also in errors), so a dead variant cannot inflate the request count.
   */
  requests: { total: number; ok: number; failed: number; unreachable: number; errors: Partial<Record<ErrorClass, number>> };
  /** VUs that declared the variant down during this run (VARIANT_DOWN_AFTER). */
  variantDown: number;
  /** The measurement window, ms from the run's start. */
  window: { fromMs: number; toMs: number; method: 'steady-slices' | 'until-last-request' } | null;
  /** Aggregate output tokens per second over the window; its interval from slice batch means. */
  throughput: number | null;
  throughputCi: Interval | null;
  /** Per steady slice: [output tokens/s, e2e sum ms, completed requests]: the batches intervals are drawn from. */
  slices: Array<[number, number, number]>;
  requestRate: number | null;
  goodput: number | null;
  e2e: Dist | null;
  ttft: Dist | null;
  /** Time to second token (llm_ttst, sse only); absent in figures read back from a run before it was measured. */
  ttst?: Dist | null;
  itl: Dist | null;
  /** Gaps between events when tokens per event were unknown (itl rule per-chunk); never per token. */
  itlPerChunk: Dist | null;
  /**
   * How ITL was measured: the rule all requests followed, 'mixed' when they differed (see
   * `requests`), null when no request had two token-carrying events (http, or one event each).
   */
  itlRule: { rule: ItlRule | 'mixed' | null; requests: Partial<Record<ItlRule, number>> };
  tpot: Dist | null;
  requestTps: Dist | null;
  /** Tokens committed per verify step, named by where it came from (ACCEPTANCE_SOURCES). */
  acceptance: Acceptance | null;
  /** Verify steps by accepted drafts and the share that accepted each draft position (vLLM's per-request histograms); null when no reply had one. */
  acceptanceByPosition: AcceptanceByPosition | null;
  /** Accepted ÷ drafted tokens summed over the run's requests (llama.cpp timings, vLLM's per-request counts). */
  draftAcceptance: { rate: number; drafted: number; accepted: number } | null;
  tokens: { output: number; input: number; cached: number };
  /**
   * Replies shorter than asked, by the server's count, and why each ended, out of the `counted`
   * successful replies with a server count; `requested`: the output tokens those asked for. Null
   * when no reply had a server count to judge by.
   */
  short: { counted: number; replies: number; byCause: Partial<Record<ShortCause, number>>; requested: number } | null;
  /** Replies that reasoned before answering; null when none did. */
  reasoning: Reasoning | null;
  /** SATURATION_STOP: this run's level saturated the server, and the test ended there; null otherwise. */
  saturation: SaturationFigures | null;
  server: ServerFigures | null;
  dropped: number;
  /** VUs that sent requests in this run (on this instance, with an execution segment). */
  vusRan: number;
  /** Whether the load generator, not the server, set this run's numbers. */
  client: ClientCheck;
  /** The network's share: connections the generation requests opened; null where not measured (xk6-sse gives no connection phases). */
  connection?: ConnectionFigures | null;
  notes: string[];
}

export interface ConnectionFigures {
  /** Generation requests whose connection phases k6 gave, and how many of them opened a new connection. */
  requests: number;
  opened: number;
  /** TCP connect (one round trip) and TLS handshake of those that opened one; null when none did. */
  connect: Dist | null;
  tls: Dist | null;
}

/** "a", "a and b", "a, b and c". */
function listed(xs: string[]): string {
  return xs.length > 1 ? `${xs.slice(0, -1).join(', ')} and ${xs[xs.length - 1]}` : xs.join('');
}

/** A run's measured window and what was measured over it; see runFigures for wholeSlices. */
interface WindowFigures {
  window: RunFigures['window'];
  throughput: number | null;
  throughputCi: Interval | null;
  requestRate: number | null;
  slices: Array<[number, number, number]>;
  /** The client self-check's means, over every steady slice, whole or not. */
  windowE2eMs: number | null;
  windowTtftMs: number | null;
}

/** A run's scenario and, for a stopped run, the slices it measured whole (null: all of them). */
interface RunWindow {
  s: string;
  wholeSlices: number | null;
}

/** A run's totals that its window's figures divide: output tokens, successes, the e2e distribution. */
interface RunTotals {
  outputTokens: number;
  ok: number;
  e2e: Dist | null;
}

function windowFigures(m: SummaryMetrics, plan: Plan, { s, wholeSlices }: RunWindow, { outputTokens, ok, e2e }: RunTotals, notes: string[]): WindowFigures {
  const out: WindowFigures = { window: null, throughput: null, throughputCi: null, requestRate: null, slices: [], windowE2eMs: null, windowTtftMs: null };
  if (plan.requests !== null) {
    const lastEnd = metric(m, subKey('windowLastEnd', s))?.values;
    if (lastEnd && lastEnd.count) {
      out.window = { fromMs: 0, toMs: lastEnd.max, method: 'until-last-request' };
      const seconds = lastEnd.max / 1000;
      if (outputTokens > 0 && seconds > 0) out.throughput = outputTokens / seconds;
      if (seconds > 0) out.requestRate = ok / seconds;
    }
    return out;
  }
  const full = steadyWindow(plan);
  const w = wholeSlices === null ? full : { fromMs: full.fromMs, toMs: full.fromMs + wholeSlices * plan.sliceMs };
  out.window = { ...w, method: 'steady-slices' };
  const first = plan.slices > 1 ? 1 : 0;
  const kept = wholeSlices ?? plan.slices - first;
  const sliceSec = plan.sliceMs / 1000;
  let tokens = 0;
  let reqs = 0;
  let e2eSum = 0;
  let e2eReqs = 0;
  let ttftSum = 0;
  let ttftReqs = 0;
  for (let k = first; k < plan.slices; k++) {
    ttftSum += count(m, subKey('windowTtft', s, { slice: String(k) }));
    ttftReqs += count(m, subKey('windowTtftRequests', s, { slice: String(k) }));
    const tk = count(m, subKey('windowTokens', s, { slice: String(k) }));
    const e = count(m, subKey('windowE2e', s, { slice: String(k) }));
    const r = count(m, subKey('windowRequests', s, { slice: String(k) }));
    e2eSum += e;
    e2eReqs += r;
    if (k - first >= kept) continue;
    out.slices.push([tk / sliceSec, e, r]);
    tokens += tk;
    reqs += r;
  }
  if (e2eReqs > 0) out.windowE2eMs = e2eSum / e2eReqs;
  if (ttftReqs > 0) out.windowTtftMs = ttftSum / ttftReqs;
  const seconds = wholeSlices === null ? (w.toMs - w.fromMs) / 1000 : (wholeSlices * plan.sliceMs) / 1000;
  if (outputTokens > 0 && kept > 0) {
    out.throughput = tokens / seconds;
    out.throughputCi = tMeanInterval(
      out.slices.map((x) => x[0]),
      0.95,
    );
  }
  if (ok > 0 && kept > 0) out.requestRate = reqs / seconds;
  if (e2e && e2e.avg > plan.sliceMs / 2 && out.slices.length > 1) {
    notes.push(
      `slices (${(plan.sliceMs / 1000).toFixed(1)} s) are shorter than 2× the mean latency (${(e2e.avg / 1000).toFixed(1)} ` +
        `s): neighbouring slices share requests, so intervals are optimistic; raise DURATION or lower SLICES.`,
    );
  }
  return out;
}

/** The acceptance length (the server's per-request counts first, its /metrics else), by draft position, and the draft acceptance rate. */
function speculation(
  m: SummaryMetrics,
  plan: Plan,
  s: string,
  server: ServerFigures,
): Pick<RunFigures, 'acceptance' | 'acceptanceByPosition' | 'draftAcceptance'> {
  const first = plan.slices > 1 ? 1 : 0;
  const sliceSteps: number[] = [];
  const sliceCommitted: number[] = [];
  for (let k = first; k < plan.slices; k++) {
    sliceSteps.push(count(m, subKey('specWindowSteps', s, { slice: String(k) })));
    sliceCommitted.push(count(m, subKey('specWindowTokens', s, { slice: String(k) })));
  }
  const histogram = Array.from({ length: SPEC_ACCEPTED_BINS }, (_, j) => count(m, subKey('specStepsByAccepted', s, { accepted: specAcceptedLabel(j) })));
  const acceptance = acceptanceOf({
    verifySteps: count(m, subKey('specVerifySteps', s)),
    committed: count(m, subKey('specTokens', s)),
    sliceSteps,
    sliceCommitted,
    histogram,
    drafted: count(m, subKey('draftTokens', s)),
    serverValue: server.acceptanceLength,
  });
  const drafted = count(m, subKey('draftTokens', s));
  const accepted = count(m, subKey('draftAccepted', s));
  return {
    acceptance,
    acceptanceByPosition:
      acceptanceByPosition(histogram) ?? (server.acceptedByPosition && serverPositions(server.acceptedByPosition.steps, server.acceptedByPosition.accepted)),
    draftAcceptance: drafted > 0 ? { rate: accepted / drafted, drafted, accepted } : null,
  };
}

/** How each request's ITL was measured, by rule, and the run's rule (mixed when several). */
function itlRuleOf(m: SummaryMetrics, s: string): RunFigures['itlRule'] {
  const requests: Partial<Record<ItlRule, number>> = {};
  for (const rule of ITL_RULES) {
    const n = count(m, subKey('itlRule', s, { itl_rule: rule }));
    if (n > 0) requests[rule] = n;
  }
  const rules = Object.keys(requests) as ItlRule[];
  return { rule: rules.length === 0 ? null : rules.length === 1 ? rules[0] : 'mixed', requests };
}

function shortReplies(m: SummaryMetrics, s: string): RunFigures['short'] {
  const all = metric(m, subKey('shortReplies', s))?.values;
  const counted = (all?.passes ?? 0) + (all?.fails ?? 0);
  if (counted === 0) return null;
  const byCause: Partial<Record<ShortCause, number>> = {};
  for (const cause of SHORT_CAUSES) {
    const n = metric(m, subKey('shortReplies', s, { finish_reason: cause }))?.values.passes ?? 0;
    if (n > 0) byCause[cause] = n;
  }
  return { counted, replies: all?.passes ?? 0, byCause, requested: count(m, subKey('requestedTokens', s)) };
}

function connectionOf(m: SummaryMetrics, s: string): ConnectionFigures | null {
  const v = metric(m, subKey('newConnection', s))?.values;
  const requests = (v?.passes ?? 0) + (v?.fails ?? 0);
  if (requests === 0) return null;
  return { requests, opened: v?.passes ?? 0, connect: dist(m, subKey('connect', s)), tls: dist(m, subKey('tlsHandshake', s)) };
}

/** Requests by outcome and failures by class; refused attempts (unreachable) are not requests. */
function requestCounts(m: SummaryMetrics, s: string): RunFigures['requests'] {
  const success = metric(m, subKey('success', s))?.values ?? {};
  const ok = success.passes ?? 0;
  const failed = success.fails ?? 0;
  const errors: Partial<Record<ErrorClass, number>> = {};
  for (const cls of ERROR_CLASSES) {
    const n = count(m, subKey('errors', s, { error_class: cls }));
    if (n > 0) errors[cls] = n;
  }
  const unreachable = errors.unreachable ?? 0;
  return { total: ok + failed - unreachable, ok, failed: failed - unreachable, unreachable, errors };
}

/**
 * @param sloSet whether latency SLOs were set: without them every success counts as good.
 * @param wholeSlices a run the test stopped in: the steady slices it measured whole (lib/report/figures/stopped-runs.ts);
 *   its throughput, request rate and slices are over those alone. null: the run ran whole.
 */
export function runFigures(m: SummaryMetrics, plan: Plan, run: Run, sloSet: boolean, wholeSlices: number | null = null): RunFigures {
  const s = run.scenario;
  const requests = requestCounts(m, s);
  const ok = requests.ok;
  // A summary of the last release holds the old name alone (llm_target_down).
  const variantDown = count(m, subKey('variantDown', s)) || count(m, subKey('variantDownOldName', s));
  const e2e = dist(m, subKey('e2e', s));
  const notes: string[] = [];
  if (variantDown > 0) {
    notes.push(
      `the variant was declared down: nothing listened for VARIANT_DOWN_AFTER, so ${variantDown} VU(s) stopped ` +
        `sending to it; this run is not fully measured and its figures cover only the time before.`,
    );
  }
  const good = count(m, subKey('good', s));
  const outputTokens = count(m, subKey('outputTokens', s));
  const w = windowFigures(m, plan, { s, wholeSlices }, { outputTokens, ok, e2e }, notes);
  // A pooling run generates nothing: its items and tokens per second are the pooling section's.
  if (outputTokens === 0 && ok > 0 && run.cell.batch === undefined) notes.push('the server reported no token counts: throughput is not measured.');

  const ttft = dist(m, subKey('ttft', s));
  const ttst = dist(m, subKey('ttst', s)) ?? bucketDist(m, BUCKETS_OF.ttst, s);
  const itl = dist(m, subKey('itl', s)) ?? bucketDist(m, 'itlBuckets', s);
  const itlPerChunk = dist(m, subKey('itlPerChunk', s)) ?? bucketDist(m, 'itlPerChunkBuckets', s);
  const tpot = dist(m, subKey('tpot', s)) ?? bucketDist(m, BUCKETS_OF.tpot, s);
  const gap = dist(m, subKey('clientGap', s)) ?? bucketDist(m, BUCKETS_OF.clientGap, s);
  const requestTps = dist(m, subKey('requestTps', s)) ?? bucketDist(m, BUCKETS_OF.requestTps, s);
  const reasoning = reasoningOf(m, s);
  const counted = [
    (itl ?? itlPerChunk)?.bucketed ? 'ITL' : null,
    tpot?.bucketed ? 'TPOT' : null,
    requestTps?.bucketed ? "each request's output rate" : null,
    reasoning?.ttftAnswer?.bucketed ? 'the time to first answer token' : null,
    ttst?.bucketed ? 'the time to second token' : null,
    gap?.bucketed ? "the VUs' gap between requests" : null,
  ].filter((x) => x !== null);
  if (counted.length > 0)
    notes.push(
      `${listed(counted)} counted in log buckets (ITL_SAMPLES=histogram, which auto picks for a plan of one ` +
        `or two runs streaming 10 minutes or more: k6 would otherwise keep every value in memory): percentiles ` +
        `within ${(RELATIVE_ERROR * 100).toFixed(1)} %, the max a bucket's bound.`,
    );
  if (reasoning !== null) notes.push(reasoningNote(reasoning));
  if (run.cell.load.kind === 'trace') notes.push(traceNote(run.cell.load, dist(m, subKey('scheduleLag', s))));
  const saturation = saturationOf(m, run);
  if (saturation !== null) notes.push(saturationNote(saturation));
  const dropped = count(m, subKey('dropped_iterations', s));
  const server = serverFigures(m, run);
  const anyServer = Object.values(server).some((v) => v !== null);

  return {
    scenario: s,
    variant: run.variant,
    ...(run.repeat === undefined ? {} : { repeat: run.repeat }),
    cellId: run.cell.id,
    isl: run.cell.isl,
    osl: run.cell.osl,
    load: run.cell.load,
    requests,
    variantDown,
    window: w.window,
    throughput: w.throughput,
    throughputCi: w.throughputCi,
    slices: w.slices,
    requestRate: w.requestRate,
    // Good out of the requests whose latencies were judged (all successes, or LATENCY_WINDOW=steady's).
    goodput: w.requestRate !== null && ok > 0 ? (sloSet ? (e2e && e2e.count > 0 ? w.requestRate * (good / e2e.count) : null) : w.requestRate) : null,
    e2e,
    ttft,
    ttst,
    itl,
    itlPerChunk,
    itlRule: itlRuleOf(m, s),
    tpot,
    requestTps,
    ...speculation(m, plan, s, server),
    tokens: { output: outputTokens, input: count(m, subKey('inputTokens', s)), cached: count(m, subKey('cachedTokens', s)) },
    short: shortReplies(m, s),
    reasoning,
    saturation,
    server: anyServer ? server : null,
    dropped,
    vusRan: count(m, subKey('runVus', s)),
    client: clientCheck({
      clientWindowE2eMs: w.windowE2eMs,
      clientWindowTtftMs: w.windowTtftMs,
      serverE2eMeanMs: server.e2eMeanMs,
      serverTtftMeanMs: server.ttftMeanMs,
      clientE2eMeanMs: e2e?.avg ?? null,
      gap,
      itl,
      dropped,
      openLoop: run.cell.load.kind !== 'vus',
      schedule: run.cell.load.kind === 'trace' ? { lag: dist(m, subKey('scheduleLag', s)), maxLagMs: run.cell.load.maxLagMs } : null,
    }),
    connection: connectionOf(m, s),
    notes,
  };
}

function traceNote(load: Extract<Run['cell']['load'], { kind: 'trace' }>, lag: Dist | null): string {
  const what = load.arrivals ? `replay of the drawn ${load.arrivals} arrival schedule` : `trace replay at ${load.speed}× speed`;
  const head = `${what}: ${lag?.count ?? 0} of ${load.requests} requests sent`;
  if (lag === null) return `${head}.`;
  const verdict = faithful(lag, load.maxLagMs) ? `within TRACE_MAX_LAG ${load.maxLagMs} ms` : `above TRACE_MAX_LAG ${load.maxLagMs} ms: not faithful`;
  return `${head}; schedule lag (sent − due) p50 ${lag.p50.toFixed(1)} ms, p99 ${lag.p99.toFixed(1)} ms (${verdict}), max ${lag.max.toFixed(1)} ms.`;
}
