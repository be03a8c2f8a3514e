// The normalised result of one call: what the server said (text, tokens, finish reason, error)
// and what the client measured, from the same timestamps the metrics are recorded from. A figure
// the transport cannot measure is null and named in `notMeasured`: never estimated. Pure.
import type { ErrorClass } from '../dialects/types';
import type { Outcome } from '../metrics/samples';
import { requestTiming, type ItlRule } from '../metrics/timing';
import { TRANSPORTS, type TransportName } from '../transports';

export interface LlmError {
  /** A low-cardinality class (the `error_class` tag of llm_errors): timeout, context_length, rate_limited … */
  class: ErrorClass;
  /** One sentence that says what happened and what to change. */
  message: string;
}

export interface LlmResult {
  ok: boolean;
  /** HTTP status; 0 when no answer came. */
  status: number;
  /** The generated text (reasoning and content, for chat). */
  text: string;
  /** stop, length, abort … as the server said; null when it said none. */
  finishReason: string | null;
  error: LlmError | null;
  /** Token counts as the server reported them; null when it reported none (never a guess). */
  promptTokens: number | null;
  completionTokens: number | null;
  cachedTokens: number | null;
  /** Time from just before sending to the last byte (the end marker of a stream); null for a failed call. */
  e2eMs: number | null;
  /** Time the call took, failed or not. */
  durationMs: number;
  /** Time to the first event that carried generated text; null: not measured (http transport) or no such event. */
  ttftMs: number | null;
  /** Inter-token latency, one value per token after the first event (rules server-counts, one-token-per-event); null when not measured. */
  itlMs: number[] | null;
  /** Gaps between events when how many tokens each carried is unknown (rule per-chunk); never per token. */
  itlPerChunkMs: number[] | null;
  /** How ITL was measured; null with fewer than two token-carrying events. */
  itlRule: ItlRule | null;
  /** (e2e − TTFT) / (output tokens − 1); null when not measured. */
  tpotMs: number | null;
  /** Output tokens / e2e seconds; null without a token count. */
  tokensPerSecond: number | null;
  /** Speculative decoding, when the server reports it (SGLang meta_info): tokens per verify step. */
  acceptanceLength: number | null;
  /** Token-carrying SSE events seen (0 over http). */
  tokenEvents: number;
  /** Figures this call could not measure, with the reason. */
  notMeasured: string[];
  /** Client clock (ms since the epoch) when the request was sent and when its reply ended. */
  startMs: number;
  endMs: number;
  /** Who answered and how: the client's name (the `variant` tag), the dialect spoken, the model named. */
  client: string;
  dialect: string;
  model: string;
  transport: TransportName;
}

/** What the http transport cannot measure, in the library's words. */
export const HTTP_NOT_MEASURED = "TTFT, ITL and TPOT: the http transport receives each reply whole (transport 'sse' measures them)";

export function toResult(o: Outcome, who: { client: string; dialect: string; model: string; transport: TransportName }): LlmResult {
  const r = o.result;
  const t = requestTiming(o.startMs, o.endMs, r.ok ? o.events : null, r.completionTokens);
  const notMeasured: string[] = [];
  if (!TRANSPORTS[who.transport].timesEvents) notMeasured.push(HTTP_NOT_MEASURED);
  else if (r.ok && t.ttftMs === null) notMeasured.push('TTFT, ITL and TPOT: the stream carried no generated token');
  const e2e = r.ok ? t.e2eMs : null;
  return {
    ok: r.ok,
    status: r.status,
    text: r.text,
    finishReason: r.finishReason,
    error: r.error ? { class: r.error.class, message: r.error.message } : null,
    promptTokens: r.promptTokens,
    completionTokens: r.completionTokens,
    cachedTokens: r.cachedTokens,
    e2eMs: e2e,
    durationMs: o.endMs - o.startMs,
    ttftMs: t.ttftMs,
    itlMs: t.itlMs,
    itlPerChunkMs: t.itlPerChunkMs,
    itlRule: t.itlRule,
    tpotMs: t.tpotMs,
    tokensPerSecond: e2e !== null && e2e > 0 && r.completionTokens !== null ? r.completionTokens / (e2e / 1000) : null,
    acceptanceLength: r.acceptanceLength,
    tokenEvents: r.tokenEvents,
    notMeasured,
    startMs: o.startMs,
    endMs: o.endMs,
    ...who,
  };
}

/** A call that failed before anything was sent (the dialect could not be resolved, say). */
export function notSent(error: LlmError, nowMs: number, who: { client: string; dialect: string; model: string; transport: TransportName }): LlmResult {
  return {
    ok: false,
    status: 0,
    text: '',
    finishReason: null,
    error,
    promptTokens: null,
    completionTokens: null,
    cachedTokens: null,
    e2eMs: null,
    durationMs: 0,
    ttftMs: null,
    itlMs: null,
    itlPerChunkMs: null,
    itlRule: null,
    tpotMs: null,
    tokensPerSecond: null,
    acceptanceLength: null,
    tokenEvents: 0,
    notMeasured: [],
    startMs: nowMs,
    endMs: nowMs,
    ...who,
  };
}

/** Benchmark wording in shared messages, said as a library user sets it. */
export function libraryWording(message: string): string {
  return message
    .replace(/\(REQUEST_TIMEOUT\)/g, "(the client's timeout)")
    .replace(/raise REQUEST_TIMEOUT/g, "raise the client's timeout")
    .replace(/\bPREFLIGHT_TIMEOUT\b/g, "preflight's timeout")
    .replace(/set API_KEY\b/g, 'set apiKey')
    .replace(/set IGNORE_EOS=false \(replies may then end before OSL tokens\)/g, 'call with ignoreEos: false (replies may then end before maxTokens)')
    .replace(/lower CONCURRENCY or the arrival rate/g, 'lower the load')
    .replace(/lower ISL or OSL/g, 'shorten the prompt or lower maxTokens');
}
