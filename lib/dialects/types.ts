// The one normalised shape every dialect reads a reply into, and the request it is built from.
import type { AdapterChoice } from './adapter';
import type { Arrivals } from '../reading/stream-arrivals';
import type { Structured, ToolCalls } from './structured';

/** Low-cardinality error classes, used as the `error_class` tag. */
export type ErrorClass =
  | 'unreachable' // connection refused, DNS failure, no route
  | 'connection_lost' // connection reset or closed mid-reply
  | 'timeout' // no complete reply before REQUEST_TIMEOUT
  | 'auth' // 401/403
  | 'wrong_dialect' // the route does not exist on this server
  | 'unknown_model' // the server does not serve MODEL
  | 'context_length' // prompt + output longer than the model's context
  | 'bad_request' // other 4xx
  | 'rate_limited' // 429
  | 'overloaded' // 503: not ready, queue full, engine unavailable
  | 'server_error' // other 5xx
  | 'stream_error' // an error event inside a 200 stream
  | 'aborted' // the server finished the request with finish_reason abort
  | 'truncated' // the stream ended before [DONE] or a finish reason
  | 'invalid_reply'; // the body is not JSON or not the dialect's shape

export const ERROR_CLASSES: readonly ErrorClass[] = [
  'unreachable',
  'connection_lost',
  'timeout',
  'auth',
  'wrong_dialect',
  'unknown_model',
  'context_length',
  'bad_request',
  'rate_limited',
  'overloaded',
  'server_error',
  'stream_error',
  'aborted',
  'truncated',
  'invalid_reply',
];

export interface ClassifiedError {
  class: ErrorClass;
  /** One sentence a person can act on. Never contains the API key. */
  message: string;
}

/**
 * A prompt: exact token ids (serialised once, as a JSON array string) or text. A text prompt may
 * carry the chat messages it stands for (a dataset conversation): the chat dialect sends those,
 * the others send `text` (the turns joined).
 */
export type Prompt =
  { kind: 'tokens'; json: string; length: number } | { kind: 'text'; text: string; messages?: ReadonlyArray<{ role: string; content: string }> };

export interface GenerationRequest {
  prompt: Prompt;
  maxTokens: number;
  /** Generate exactly maxTokens (SGLang and vLLM both accept ignore_eos). */
  ignoreEos: boolean;
  temperature: number;
  stream: boolean;
  /** Model name for the OpenAI dialects; SGLang's /generate has none. */
  model?: string;
  /** IMAGES: images sent after the prompt's text in its last user turn; only dialects whose traits say `images` carry them. */
  images?: ReadonlyArray<ImageInput>;
  /** Tools, tool_choice and response_format (TOOLS, RESPONSE_FORMAT or a dataset row); absent: none. */
  structured?: Structured;
  /** ADAPTERS: the LoRA adapter this request runs with (name null: the base model); absent: none asked for. */
  adapter?: AdapterChoice;
}

/** One image of a request: base64 bytes, their media type and the pixel size they were made at. */
export interface ImageInput {
  mediaType: string;
  /** Base64 (standard, padded) of the file's bytes. */
  data: string;
  width: number;
  height: number;
}

/** What goes on the wire. `path` is appended to the variant's base URL. */
export interface WireRequest {
  method: 'POST';
  path: string;
  body: string;
}

export type FinishReason = 'stop' | 'length' | 'abort' | string;

/** Information about one SSE event, returned as soon as it is read (for per-event timing). */
export interface EventInfo {
  /** The event carries generated text or tokens (a role-only chat chunk or a usage chunk does not). */
  carriesToken: boolean;
  /** Tokens this event added, when the server says (SGLang meta_info, vLLM continuous usage); else null. */
  tokens: number | null;
  /** The stream is over ([DONE]). */
  done: boolean;
}

export interface DraftCounts {
  drafted: number;
  accepted: number;
}

/**
 * One request's verify steps as the server counted them (vLLM's `metrics.speculative_decoding`,
 * --per-request-spec-decode-metrics). Its acceptance length is 1 + accepted / steps: the bonus
 * token of each step counted, the prefill's first token not.
 */
export interface SpecStepCounts {
  steps: number;
  /** Draft tokens accepted over all steps. */
  accepted: number;
  /** Draft tokens proposed; null when not said. */
  drafted: number | null;
  /** Steps that accepted exactly j draft tokens, j = 0…K (acceptance_histogram); null when not said or malformed. */
  histogram: number[] | null;
}

export interface GenerationResult {
  ok: boolean;
  /** HTTP status; 0 when no response arrived. */
  status: number;
  text: string;
  /** Token counts as reported by the server; null when it reported none (never a guess). */
  promptTokens: number | null;
  completionTokens: number | null;
  cachedTokens: number | null;
  finishReason: FinishReason | null;
  /** Token-carrying SSE events seen (0 for a non-streamed reply). */
  tokenEvents: number;
  /** Verify steps reported by the server under speculative decoding (SGLang spec_verify_ct). */
  specVerifySteps: number | null;
  /** Tokens committed per verify step, bonus token included; null when not reported. */
  acceptanceLength: number | null;
  /**
   * Draft tokens proposed and accepted for this request (llama.cpp timings draft_n and
   * draft_n_accepted); absent or null when the server does not report them.
   */
  draft?: DraftCounts | null;
  /** The request's verify steps, present only when the server counted them per request (vLLM). */
  specSteps?: SpecStepCounts | null;
  /** Present only when the reply carried reasoning (see ReasoningSplit). */
  reasoning?: ReasoningSplit | null;
  /** Present only when the reply called tools (structured.ts). */
  toolCalls?: ToolCalls | null;
  error: ClassifiedError | null;
}

/**
 * A reply that reasoned before it answered. Event indexes count token-carrying events (the sse
 * transport's columns); null when the reply was not streamed or has no such event.
 */
export interface ReasoningSplit {
  /** Reasoning tokens: the server's count, else the stream's; null when neither said. */
  tokens: number | null;
  firstReasoningEvent: number | null;
  /** The first event carrying answer text; null when the reply never answered (or was not streamed). */
  firstAnswerEvent: number | null;
}

/**
 * onEvent's answers besides a token count: the event carried no generated content; the stream is
 * over ([DONE]); it carried some, but how many tokens is not known. Not finite, so never a count.
 */
export const EVENT_NONE = -Infinity;
export const EVENT_DONE = Infinity;
export const TOKENS_UNKNOWN = NaN;

/** Reads one streamed reply event by event; `finish` gives the normalised result. */
export interface StreamReader {
  onData(data: string): EventInfo;
  /**
   * onData's answer as one number, for the per-event path of a transport (no object per event):
   * EVENT_NONE, EVENT_DONE, TOKENS_UNKNOWN (NaN) for a token-carrying event without a count, else
   * the tokens the event carried.
   */
  readonly onEvent: (data: string) => number;
  /** Reads the first `count` events kept in `a`, as onEvent would one by one (see lib/reading/stream-arrivals.ts). */
  readKept(a: Arrivals, count: number): void;
  finish(): GenerationResult;
}
