// The one mechanism that turns a sequence of JSON chunks into a GenerationResult. Each dialect
// supplies only a ChunkReader, which says what a chunk of its shape contains.
import { classified, messageOf } from './errors';
import { splitSseEvents } from './sse';
import type { EventInfo, FinishReason, GenerationResult, StreamReader } from './types';

/** What one chunk (or one non-streamed reply) says. Absent fields say nothing. */
export interface ChunkUpdate {
  /** Text this chunk adds. */
  textDelta?: string;
  /** Whole text so far (SGLang's cumulative stream); replaces what was read before. */
  textSoFar?: string;
  /** The chunk carries generated content (text or tokens). */
  carriesToken: boolean;
  /** The chunk cannot hold generated content (an OpenAI usage-only chunk with no choices). */
  noContent?: boolean;
  /** Cumulative completion tokens as reported by the server at this chunk. */
  completionTokens?: number;
  promptTokens?: number;
  cachedTokens?: number;
  finishReason?: FinishReason;
  /** Server message when the request was aborted (SGLang finish_reason type abort). */
  abortMessage?: string;
  specVerifySteps?: number;
  acceptanceLength?: number;
  /** Draft tokens proposed and accepted for the request so far (llama.cpp timings). */
  draftTokens?: number;
  draftAccepted?: number;
  /** An error object inside the stream. */
  error?: string;
}

export interface ChunkReader {
  read(chunk: Record<string, unknown>): ChunkUpdate;
  /** A cheaper parse of a raw event, or undefined to parse it whole. */
  fastParse?(data: string): Record<string, unknown> | undefined;
  /** The same for a whole non-streamed reply. */
  fastParseWhole?(body: string): Record<string, unknown> | undefined;
  /** The whole text, when the reader kept it aside instead of passing it on chunk by chunk. */
  text?(): string | undefined;
}

const MAX_SNIPPET = 120;

export class Accumulator implements StreamReader {
  private parts: string[] = [];
  private fullText: string | null = null;
  private completion: number | null = null;
  private prompt: number | null = null;
  private cached: number | null = null;
  private finish_: FinishReason | null = null;
  private abortMessage: string | null = null;
  private verify: number | null = null;
  private accept: number | null = null;
  private drafted: number | null = null;
  private draftAccepted: number | null = null;
  private events = 0;
  private tokenEvents = 0;
  private done = false;
  private streamed = true;
  private streamError: string | null = null;
  private invalid: string | null = null;

  constructor(
    private readonly reader: ChunkReader,
    private readonly route: string,
    private readonly status = 200,
  ) {}

  onData(data: string): EventInfo {
    this.events++;
    const d = data.trim();
    if (d === '[DONE]') {
      this.done = true;
      return { carriesToken: false, tokens: null, done: true };
    }
    let obj: unknown = this.reader.fastParse?.(d);
    try {
      if (obj === undefined) obj = JSON.parse(d);
    } catch {
      if (this.invalid === null) this.invalid = `event ${this.events} is not JSON: ${snippet(d)}`;
      return { carriesToken: false, tokens: null, done: false };
    }
    if (obj === null || typeof obj !== 'object' || Array.isArray(obj)) {
      if (this.invalid === null) this.invalid = `event ${this.events} is not a JSON object: ${snippet(d)}`;
      return { carriesToken: false, tokens: null, done: false };
    }
    return this.apply(obj as Record<string, unknown>);
  }

  /** Applies one parsed chunk; also used for a non-streamed reply (one chunk). */
  apply(obj: Record<string, unknown>): EventInfo {
    if (obj.error !== undefined && obj.error !== null) {
      this.streamError = messageOf(obj) ?? snippet(JSON.stringify(obj.error));
      return { carriesToken: false, tokens: null, done: false };
    }
    const u = this.reader.read(obj);
    if (u.error !== undefined) {
      this.streamError = u.error;
      return { carriesToken: false, tokens: null, done: false };
    }
    if (u.textSoFar !== undefined) this.fullText = u.textSoFar;
    if (u.textDelta) this.parts.push(u.textDelta);
    let tokens: number | null = null;
    if (u.completionTokens !== undefined) {
      // A count that first appears after token-carrying events that had none is the request's
      // total (the last chunk of llama.cpp's OpenAI routes), not tokens this chunk added.
      if (this.completion !== null || this.tokenEvents === 0) tokens = u.completionTokens - (this.completion ?? 0);
      this.completion = u.completionTokens;
    }
    if (u.promptTokens !== undefined) this.prompt = u.promptTokens;
    if (u.cachedTokens !== undefined) this.cached = u.cachedTokens;
    if (u.finishReason !== undefined) this.finish_ = u.finishReason;
    if (u.abortMessage !== undefined) this.abortMessage = u.abortMessage;
    if (u.specVerifySteps !== undefined) this.verify = u.specVerifySteps;
    if (u.acceptanceLength !== undefined) this.accept = u.acceptanceLength;
    if (u.draftTokens !== undefined) this.drafted = u.draftTokens;
    if (u.draftAccepted !== undefined) this.draftAccepted = u.draftAccepted;
    // A token count that rises without visible text still means tokens arrived (a token that
    // decodes to nothing yet), except in a chunk that cannot hold content at all.
    const carries = u.carriesToken || (!u.noContent && tokens !== null && tokens > 0);
    if (carries) this.tokenEvents++;
    return { carriesToken: carries, tokens: carries ? tokens : null, done: false };
  }

  /** A non-streamed reply is complete by construction: no [DONE] is expected. */
  markComplete(): this {
    this.done = true;
    this.streamed = false;
    return this;
  }

  /** Feeds a whole event-stream body. */
  feedBody(body: string): this {
    const { data, partial } = splitSseEvents(body);
    for (const d of data) this.onData(d);
    // A body cut mid-event leaves `partial` behind; finish() reports it as truncated unless the
    // stream had already finished.
    void partial;
    return this;
  }

  finish(): GenerationResult {
    const collected = () => (this.fullText !== null ? this.fullText + this.parts.join('') : this.parts.join(''));
    const result: GenerationResult = {
      ok: false,
      status: this.status,
      text: '',
      promptTokens: this.prompt,
      completionTokens: this.completion,
      cachedTokens: this.cached,
      finishReason: this.finish_,
      tokenEvents: this.streamed ? this.tokenEvents : 0,
      specVerifySteps: this.verify,
      acceptanceLength: derivedAcceptance(this.completion, this.verify) ?? this.accept,
      error: null,
    };
    if (this.drafted !== null) result.draft = { drafted: this.drafted, accepted: this.draftAccepted ?? 0 };
    const reader = this.reader;
    if (reader.text) {
      // The reader kept the text aside unparsed: parse it only if someone reads it.
      let text: string | undefined;
      Object.defineProperty(result, 'text', { enumerable: true, get: () => (text ??= reader.text?.() ?? collected()) });
    } else {
      result.text = collected();
    }
    if (this.streamError !== null) {
      result.error = classified('stream_error', `${this.route}: the server reported an error inside the stream: '${this.streamError}'.`);
    } else if (this.finish_ === 'abort') {
      result.error = classified(
        'aborted',
        `${this.route}: the server aborted the request${this.abortMessage ? `: '${this.abortMessage}'` : ''}. It may be overloaded (queue full) or shutting down.`,
      );
    } else if (this.invalid !== null) {
      result.error = classified('invalid_reply', `${this.route}: the reply is not in the expected shape (${this.invalid}).`);
    } else if (!this.done && this.finish_ === null) {
      result.error = classified(
        'truncated',
        `${this.route}: the stream ended after ${this.events} event(s) without a finish reason or [DONE]; the server closed it early.`,
      );
    } else {
      result.ok = true;
    }
    return result;
  }
}

/** SGLang reports verify steps; acceptance length = committed tokens per verify step. */
function derivedAcceptance(completion: number | null, verify: number | null): number | null {
  if (completion === null || verify === null || verify <= 0) return null;
  return completion / verify;
}

function snippet(s: string): string {
  return s.length > MAX_SNIPPET ? JSON.stringify(s.slice(0, MAX_SNIPPET)) + '…' : JSON.stringify(s);
}

/** Reads a finite number field, or undefined when absent or not a number. */
export function num(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}

export function obj(v: unknown): Record<string, unknown> | undefined {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
}
