// Which metric samples one finished request produces. Pure, so the arithmetic is tested in Node;
// the k6 layer only calls .add() on each.
import type { GenerationResult, ReasoningSplit } from '../dialects/types';
import { structuredValid, type Structured, type ToolCalls } from '../dialects/structured';
import type { MetricKey } from './catalog';
import {
  eachItl,
  eventColumns,
  requestFigures,
  sliceColumns,
  sliceOf,
  type EventColumns,
  type Events,
  type ItlRule,
  type SampleSink,
  type SliceGrid,
} from './timing';
import { BUCKETS, bucketOf, labelOf } from '../stats/log-buckets';

export interface Outcome {
  result: GenerationResult;
  startMs: number;
  endMs: number;
  /** Token-carrying events with arrival times; null when the transport cannot see events. */
  events: Events | null;
  /** k6's connection phases of the request (0 on a reused connection); absent where the transport gives none (xk6-sse). */
  connection?: Connection;
}

export interface Connection {
  connectMs: number;
  tlsMs: number;
}

/** `cellStartMs`: the client clock when the cell (k6 scenario) started. */
export interface Window extends SliceGrid {
  /** REQUESTS mode: also report when the last request ended. */
  trackLastEnd: boolean;
  /**
   * Client clock from which a request's latencies count (LATENCY_WINDOW=steady: the end of the ramp-up slice);
   * earlier ones still count as requests and tokens.
   */
  latencyFromMs: number;
  /** ITL_SAMPLES=histogram: ITL counted per request into log buckets (llm_itl_buckets) instead of a sample per token. */
  itlBuckets?: boolean;
}

export interface SloLimits {
  ttftP99Ms: number | null;
  /** Which first token the TTFT SLO holds (SLO_TTFT_OF): the first of either kind, or the first of the answer. */
  ttftOf: 'first' | 'answer';
  itlP99Ms: number | null;
  e2eP99Ms: number | null;
}

/**
 * Goodput's rule (as in DistServe): a request is good when it succeeded and its own e2e, TTFT and
 * TPOT are within the SLO values set; its TPOT stands for its inter-token latency.
 */
function meetsSlo(e2eMs: number, ttftMs: number | null, tpotMs: number | null, slo: SloLimits): boolean {
  if (slo.e2eP99Ms !== null && e2eMs > slo.e2eP99Ms) return false;
  if (slo.ttftP99Ms !== null && (ttftMs === null || ttftMs > slo.ttftP99Ms)) return false;
  if (slo.itlP99Ms !== null && (tpotMs === null || tpotMs > slo.itlP99Ms)) return false;
  return true;
}

// Tag objects are shared, not built per sample: k6 reads them, it does not keep them.
const SLICE_TAGS: Array<Record<string, string>> = [];
const sliceTags = (k: number) => (SLICE_TAGS[k] ??= { slice: String(k) });
const ERROR_TAGS: Record<string, Record<string, string>> = {};
const errorTags = (cls: string) => (ERROR_TAGS[cls] ??= { error_class: cls });
const RULE_TAGS: Record<string, Record<string, string>> = {};
const ruleTags = (rule: string) => (RULE_TAGS[rule] ??= { itl_rule: rule });

/**
 * Receives each sample of a request; the k6 layer passes the metrics' add(), tests collect.
 * `sink`, when given, returns what takes a metric's untagged samples directly (the k6 metric
 * itself), for the ITL samples, one per token: the same samples with less work per sample.
 */
export type AddSample = ((metric: MetricKey, value: number, tags?: Record<string, string>) => void) & {
  sink?: (metric: MetricKey) => SampleSink;
};

/** Where a request's samples go: its cell's window, the SLO limits, and the sample taker. */
export interface Recording {
  window: Window;
  slo: SloLimits;
  add: AddSample;
}

/** What a request asked for, as recordRequest needs it: max tokens (null: unknown) and structured output. */
export interface Asked {
  maxTokens: number | null;
  structured?: Structured;
}

const NOT_ASKED: Asked = { maxTokens: null };

export function sloSet(slo: SloLimits): boolean {
  return slo.e2eP99Ms !== null || slo.ttftP99Ms !== null || slo.itlP99Ms !== null;
}

/**
 * The bucket counter that stands for a Trend under ITL_SAMPLES=histogram: each per-token one, and
 * the per-request ones no SLO threshold holds, whose values a soak would otherwise keep one per
 * request: TPOT (a request's mean ITL), the request's own output rate, the time to its first answer
 * token (unless SLO_TTFT_OF=answer holds it: countedInBuckets), the time to second token and the VU's
 * gap between requests.
 * e2e and TTFT stay exact: the headline figures, and what the latency SLOs hold.
 */
export const BUCKETS_OF = {
  itl: 'itlBuckets',
  itlPerChunk: 'itlPerChunkBuckets',
  tpot: 'tpotBuckets',
  requestTps: 'requestTpsBuckets',
  ttftAnswer: 'ttftAnswerBuckets',
  ttst: 'ttstBuckets',
  clientGap: 'clientGapBuckets',
} as const satisfies Record<string, MetricKey>;
export type BucketCounter = (typeof BUCKETS_OF)[keyof typeof BUCKETS_OF];

/** Each bucket counter's tag: the bucket's upper bound, in ms for a time, in its own unit (tokens/s) for a rate. */
export const BUCKET_TAG: Record<BucketCounter, 'le_ms' | 'le_tps'> = {
  itlBuckets: 'le_ms',
  itlPerChunkBuckets: 'le_ms',
  tpotBuckets: 'le_ms',
  requestTpsBuckets: 'le_tps',
  ttftAnswerBuckets: 'le_ms',
  ttstBuckets: 'le_ms',
  clientGapBuckets: 'le_ms',
};

/**
 * Whether a metric of BUCKETS_OF is counted in buckets: under histogram, unless a p99 SLO threshold
 * may hold it. The samples and the summary's keys (bucketedMetrics) both ask this.
 */
export function countedInBuckets(metric: keyof typeof BUCKETS_OF, histogram: boolean | undefined, slo: Pick<SloLimits, 'ttftOf'> | null): boolean {
  return histogram === true && !(metric === 'ttftAnswer' && slo?.ttftOf === 'answer');
}

// One request's counts, reused: the buckets it touched are sent and zeroed, the rest never read.
const counts = new Float64Array(BUCKETS);
const touched: number[] = [];
const tally = { limit: Infinity, over: 0, n: 0 };
const bucketCounter: SampleSink = {
  add(v: number) {
    const i = bucketOf(v);
    if (counts[i]++ === 0) touched.push(i);
    tally.n++;
    if (v > tally.limit) tally.over++;
  },
};
const BUCKET_TAGS: Record<'le_ms' | 'le_tps', Array<Record<string, string>>> = { le_ms: [], le_tps: [] };
const bucketTags = (counter: BucketCounter, i: number) => (BUCKET_TAGS[BUCKET_TAG[counter]][i] ??= { [BUCKET_TAG[counter]]: labelOf(i) });

/**
 * A request's ITL samples counted per bucket: one counter sample per bucket it touched, not one
 * per token. With an ITL SLO, each token also counts as within it or not (a Rate keeps two
 * numbers, not the values): its threshold is the SLO.
 */
function countItl(ev: EventColumns, rule: ItlRule, metric: BucketCounter, limitMs: number | null, add: AddSample): void {
  tally.limit = limitMs ?? Infinity;
  tally.over = 0;
  tally.n = 0;
  eachItl(ev, rule, bucketCounter);
  for (const i of touched) {
    add(metric, counts[i], bucketTags(metric, i));
    counts[i] = 0;
  }
  touched.length = 0;
  if (limitMs === null || metric !== BUCKETS_OF.itl) return;
  for (let k = 0; k < tally.over; k++) add('itlWithinSlo', 0);
  for (let k = tally.over; k < tally.n; k++) add('itlWithinSlo', 1);
}

/** One per-request value: a Trend sample, or (countedInBuckets) a count in its bucket. */
function addPerRequest(
  metric: 'tpot' | 'requestTps' | 'ttftAnswer' | 'ttst' | 'clientGap',
  value: number,
  w: Pick<Window, 'itlBuckets'>,
  slo: Pick<SloLimits, 'ttftOf'> | null,
  add: AddSample,
): void {
  if (countedInBuckets(metric, w.itlBuckets, slo)) add(BUCKETS_OF[metric], 1, bucketTags(BUCKETS_OF[metric], bucketOf(value)));
  else add(metric, value);
}

/** The network's share of a request that reached the server: a new connection, its connect and TLS times. */
function recordConnection(c: Connection, add: AddSample): void {
  add('newConnection', c.connectMs > 0 ? 1 : 0);
  if (c.connectMs > 0) add('connect', c.connectMs);
  if (c.tlsMs > 0) add('tlsHandshake', c.tlsMs);
}

/** A closed-loop VU's time between the end of one request and sending the next (llm_client_gap). */
export function recordGap(gapMs: number, w: Pick<Window, 'itlBuckets'>, add: AddSample): void {
  addPerRequest('clientGap', gapMs, w, null, add);
}

/** How a short reply ended, as llm_short_replies tags it: the server's finish reason, in four values. */
/** llm_spec_steps_by_accepted's `accepted` tag: 0 … 15 draft tokens, then one bin for 16 or more. */
export const SPEC_ACCEPTED_BINS = 17;
export const specAcceptedLabel = (j: number): string => (j >= SPEC_ACCEPTED_BINS - 1 ? `${SPEC_ACCEPTED_BINS - 1}+` : String(j));
/** Draft positions whose server-side acceptance a run keeps (llm_server_spec_accepted_by_position): 1 … 16, as the per-request bins. */
export const SERVER_POSITIONS = SPEC_ACCEPTED_BINS - 1;
const ACCEPTED_TAGS = Array.from({ length: SPEC_ACCEPTED_BINS }, (_, j) => ({ accepted: specAcceptedLabel(j) }));
const acceptedTags = (j: number) => ACCEPTED_TAGS[Math.min(j, SPEC_ACCEPTED_BINS - 1)] as { accepted: string };

/**
 * A request's verify steps and the tokens they committed, when the server counted them per
 * request: vLLM's steps + accepted drafts, or SGLang's output tokens (its own acceptance length
 * counts the prefill's token too). The cell's acceptance length is committed / steps.
 */
function verifyCounts(r: GenerationResult, tokens: number | null): { steps: number; committed: number } | null {
  const s = r.specSteps;
  if (s && s.steps > 0) return { steps: s.steps, committed: s.steps + s.accepted };
  if (r.specVerifySteps !== null && r.specVerifySteps > 0 && tokens !== null) return { steps: r.specVerifySteps, committed: tokens };
  return null;
}

export const SHORT_CAUSES = ['stop', 'length', 'other', 'unknown'] as const;
export type ShortCause = (typeof SHORT_CAUSES)[number];

export function shortCause(finishReason: string | null): ShortCause {
  // The dialects already say stop or length in every API's words (OpenAI's, SGLang's, llama.cpp's).
  if (finishReason === null || finishReason === '') return 'unknown';
  return finishReason === 'stop' || finishReason === 'length' ? finishReason : 'other';
}

/**
 * The samples one finished request produces. Called once per request, so it hands each sample
 * straight to `add` instead of building a list, and skips samples that would change nothing
 * (a counter's zero, "good" when no latency SLO is set: then every success is good).
 * `asked`: what the request asked for (max tokens, structured output); by default unknown.
 */
export function recordRequest(o: Outcome, w: Window, slo: SloLimits, add: AddSample, asked: Asked = NOT_ASKED): void {
  const requested = asked.maxTokens;
  const structured = asked.structured;
  const r = o.result;
  if (o.connection) recordConnection(o.connection, add);
  if (!r.ok) {
    add('success', 0);
    add('errors', 1, errorTags(r.error?.class ?? 'invalid_reply'));
    return;
  }
  const ev = o.events === null ? null : eventColumns(o.events);
  const t = requestFigures(o.startMs, o.endMs, ev, r.completionTokens);
  add('success', 1);
  const latency = o.startMs >= w.latencyFromMs;
  if (latency) add('e2e', t.e2eMs);
  if (latency && t.ttftMs !== null) add('ttft', t.ttftMs);
  if (latency && t.ttstMs !== null) addPerRequest('ttst', t.ttstMs, w, slo, add);
  if (latency && t.itlRule !== null) {
    // One sample per token (per gap under per-chunk), handed over as they are computed.
    const metric: MetricKey = t.itlRule === 'per-chunk' ? 'itlPerChunk' : 'itl';
    if (countedInBuckets(metric, w.itlBuckets, slo)) countItl(ev as NonNullable<typeof ev>, t.itlRule, BUCKETS_OF[metric], slo.itlP99Ms, add);
    else eachItl(ev as NonNullable<typeof ev>, t.itlRule, add.sink?.(metric) ?? { add: (v) => add(metric, v) });
    add('itlRule', 1, ruleTags(t.itlRule));
  }
  if (latency && t.tpotMs !== null) addPerRequest('tpot', t.tpotMs, w, slo, add);
  if (r.promptTokens !== null) add('inputTokens', r.promptTokens);
  if (r.cachedTokens !== null && r.cachedTokens > 0) add('cachedTokens', r.cachedTokens);
  // The denominator of the per-request hit rate: only requests whose reply counted its cached tokens.
  if (r.cachedTokens !== null && r.promptTokens !== null) add('cacheQueriedTokens', r.promptTokens);
  const tokens = r.completionTokens;
  if (tokens !== null && requested !== null) {
    add('requestedTokens', requested);
    add('shortReplies', tokens < requested ? 1 : 0, { finish_reason: shortCause(r.finishReason) });
  }
  if (tokens !== null) {
    add('outputTokens', tokens);
    if (t.e2eMs > 0) addPerRequest('requestTps', tokens / (t.e2eMs / 1000), w, slo, add);
    const slices = sliceColumns({ startMs: o.startMs, endMs: o.endMs, tokens }, w, ev, t.allCounted);
    for (let i = 0; i < slices.length; i++) add('windowTokens', slices[i][1], sliceTags(slices[i][0]));
  }
  const spec = verifyCounts(r, tokens);
  if (spec !== null) {
    add('specVerifySteps', spec.steps);
    add('specTokens', spec.committed);
  }
  const histogram = r.specSteps?.histogram;
  if (histogram) for (let j = 0; j < histogram.length; j++) if (histogram[j] > 0) add('specStepsByAccepted', histogram[j], acceptedTags(j));
  if (r.acceptanceLength !== null) add('acceptance', r.acceptanceLength);
  if (r.reasoning) recordReasoning(r.reasoning, tokens, o.startMs, latency ? ev : null, add);
  if (r.toolCalls) recordToolCalls(r.toolCalls, o.startMs, latency ? ev : null, add);
  if (structured !== undefined) {
    const valid = structuredValid(structured, r);
    if (valid !== null) add('structuredValid', valid ? 1 : 0);
  }
  const answerMs = answerTtft(r, t.ttftMs, o.startMs, ev);
  if (latency && answerMs !== null) addPerRequest('ttftAnswer', answerMs, w, slo, add);
  if (r.draft && r.draft.drafted > 0) {
    add('draftTokens', r.draft.drafted);
    add('draftAccepted', r.draft.accepted);
  }
  if (t.ttftMs !== null) {
    // By the first token's time, as a server's TTFT histogram counts a request in its window.
    const firstSlice = sliceOf(o.startMs + t.ttftMs, w);
    if (firstSlice >= 0) {
      const tags = sliceTags(firstSlice);
      add('windowTtft', t.ttftMs, tags);
      add('windowTtftRequests', 1, tags);
    }
  }
  const endSlice = sliceOf(o.endMs, w);
  if (endSlice >= 0) {
    const tags = sliceTags(endSlice);
    add('windowRequests', 1, tags);
    add('windowE2e', t.e2eMs, tags);
    if (spec !== null) {
      add('specWindowSteps', spec.steps, tags);
      add('specWindowTokens', spec.committed, tags);
    }
  }
  if (w.trackLastEnd) add('windowLastEnd', o.endMs - w.cellStartMs);
  if (latency && sloSet(slo) && meetsSlo(t.e2eMs, slo.ttftOf === 'answer' ? answerMs : t.ttftMs, t.tpotMs, slo)) add('good', 1);
}

/**
 * Time to the first answer token: after a reasoning reply's reasoning (null when it was cut before
 * answering, or its events are not timed), or the first token of a reply that did not reason.
 */
function answerTtft(r: GenerationResult, ttftMs: number | null, startMs: number, ev: EventColumns | null): number | null {
  // A reply that called tools answers with its first event that was not a call (none: it never answered).
  const i = r.reasoning ? r.reasoning.firstAnswerEvent : r.toolCalls ? r.toolCalls.firstOtherEvent : -1;
  if (i === -1) return ttftMs;
  return ev !== null && i !== null && i < ev.n ? ev.t[i] - startMs : null;
}

/** A reply that called tools: its first call event's time (where events are timed) and the calls' tokens, when said. */
function recordToolCalls(tc: ToolCalls, startMs: number, ev: EventColumns | null, add: AddSample): void {
  add('toolCallRequests', 1);
  if (ev !== null && tc.firstToolEvent !== null && tc.firstToolEvent < ev.n) add('ttftTool', ev.t[tc.firstToolEvent] - startMs);
  if (tc.tokens !== null) add('toolCallTokens', tc.tokens);
}

/**
 * A reply that reasoned: its first reasoning token's time (from the event columns, so only where
 * events are timed; the answer's is answerTtft's) and its token split. Nothing is recorded that was not said: no answer time for a
 * reply cut during its reasoning, no split without the reasoning count.
 */
function recordReasoning(rs: ReasoningSplit, completionTokens: number | null, startMs: number, ev: EventColumns | null, add: AddSample): void {
  add('reasoningRequests', 1);
  if (ev !== null && rs.firstReasoningEvent !== null && rs.firstReasoningEvent < ev.n) add('ttftReasoning', ev.t[rs.firstReasoningEvent] - startMs);
  if (rs.tokens === null) return;
  add('reasoningTokens', rs.tokens);
  if (completionTokens !== null && completionTokens >= rs.tokens) add('answerTokens', completionTokens - rs.tokens);
}
