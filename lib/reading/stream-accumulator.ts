// The one mechanism that turns a sequence of JSON chunks into a GenerationResult. Each dialect
// supplies only a ChunkReader, which says what a chunk of its shape contains.
import { classified, classifyErrorObject, messageOf, type RequestContext } from '../dialects/errors';
import { splitSseEvents } from './sse-events';
import type { ChunkUpdate, Phase, ToolDelta } from './chunk-update';
import { ChunkTemplate, remember, type FastRead, type TemplateCache } from './chunk-template';
import type { Arrivals } from './stream-arrivals';
import type { ChunkReader } from './chunk-reader';
import { mergeToolDeltas, toolCallsOf, type ToolTally } from './tool-call-tally';
import {
  EVENT_DONE,
  EVENT_NONE,
  TOKENS_UNKNOWN,
  type EventInfo,
  type FinishReason,
  type GenerationResult,
  type SpecStepCounts,
  type StreamReader,
} from '../dialects/types';

/** Learning attempts per stream: a stream whose chunks keep changing shape is parsed in full. */
const MAX_LEARN = 8;

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
  private specSteps: SpecStepCounts | null = null;
  private events = 0;
  private tokenEvents = 0;
  /**
   * Reasoning in the reply (see classify): the phase of the last chunk with text, the first reasoning and answer
   * token events, reasoning tokens counted from the stream (NaN once one is unknown).
   */
  private phase: Phase | undefined = undefined;
  private reasoningSeen = false;
  private firstReasoning = -1;
  private firstAnswer = -1;
  private streamReasoningTokens = 0;
  private serverReasoningTokens: number | null = null;
  /** Tool calls (structured.ts), by index: null until a chunk carries one, so a reply without calls pays nothing. */
  private tools: ToolTally | null = null;
  private done = false;
  private streamed = true;
  private streamError: { message: string; code: number | null } | null = null;
  private invalid: string | null = null;
  /** The learned template, the last fully read template input, and the learning attempts so far. */
  private template: ChunkTemplate | null = null;
  private lastInput: { s: string; u: ChunkUpdate } | null = null;
  private learnTries = 0;
  /** Events parsed in full. */
  private parsed = 0;
  /** The template's closure while it reads the chunks (see arm), and the template it belongs to. */
  private fastRead: ((s: string) => number | null) | null = null;
  private fastRun: FastRead['run'] | null = null;
  private readonly setFast: (f: ((s: string) => number | null) | null) => void;
  private fast: FastRead | null = null;
  private fastOf: ChunkTemplate | null = null;
  /** A chunk was parsed since the template's update was last applied in full. */
  private stale = false;
  private readonly templated: boolean;
  private readonly inputOf: ((data: string) => string | undefined) | null;
  private readonly hook: boolean;

  /**
   * @param cache where the dialect keeps the skeleton of its last template, so that the next stream
   *   is read by a template from its first chunk on (see chunk-template.ts, rebase).
   */
  private readonly ctx: RequestContext;
  private readonly route: string;

  constructor(
    private readonly reader: ChunkReader,
    /** The request's context (route, the variables its messages name); a route alone in tests. */
    ctx: RequestContext | string,
    private readonly status = 200,
    private readonly cache: TemplateCache | null = null,
  ) {
    this.ctx = typeof ctx === 'string' ? { route: ctx, dialectVar: 'DIALECT', modelVar: 'MODEL' } : ctx;
    this.route = this.ctx.route;
    this.templated = reader.templateText !== undefined && reader.readInput !== undefined;
    const inputOf = reader.templateInput === undefined ? null : (data: string) => reader.templateInput?.(data);
    this.inputOf = inputOf;
    this.hook = reader.templateMatched !== undefined;
    // The per-event entry is a function of its own over local variables, not a method: on k6's
    // engine each property read is a map lookup, and this runs for every event of every stream.
    // While a template's closure reads the chunks (see arm), an event costs one call into it.
    let fast: ((s: string) => number | null) | null = null;
    this.setFast = (f) => {
      fast = f;
    };
    this.onEvent = (data) => {
      if (fast !== null) {
        const c = fast(data);
        if (c !== null) return c;
        this.disarm();
      }
      return this.event(data);
    };
  }

  /**
   * Reads the first `count` events kept in `a` (stream-arrivals.ts) in arrival order, putting the
   * token-carrying ones in its columns; events after the one that ended the stream ([DONE]) are
   * not read, as a reader told [DONE] would not have been given them. While a template's closure
   * reads the chunks, a whole run of them costs one call.
   */
  readKept(a: Arrivals, count: number): void {
    let i = 0;
    while (i < count && a.doneMs === 0) {
      const run = this.fastRun;
      if (run !== null) {
        i = run(a, i, count);
        if (i === count) return;
        this.disarm();
      }
      const c = this.event(a.data[i]);
      if (c === EVENT_DONE) a.doneMs = a.at[i];
      else if (c !== EVENT_NONE) {
        a.times[a.n] = a.at[i];
        a.tokens[a.n++] = c;
      }
      i++;
    }
  }

  onData(data: string): EventInfo {
    const c = this.onEvent(data);
    if (c === EVENT_DONE) return { carriesToken: false, tokens: null, done: true };
    if (c === EVENT_NONE) return { carriesToken: false, tokens: null, done: false };
    return { carriesToken: true, tokens: Number.isNaN(c) ? null : c, done: false };
  }

  /** onData's answer as one number, for the per-event path (no object per event): see EVENT_DONE. */
  readonly onEvent: (data: string) => number;

  /** onEvent past the template's closure (see arm). */
  private event(data: string): number {
    // An event without data is none (SSE): xk6-sse hands one over for a keep-alive comment or an
    // extra blank line, where splitSseEvents, as the spec says, has none.
    if (data === '') return EVENT_NONE;
    this.events++;
    const t = this.template;
    let input: string | undefined;
    if (t !== null) {
      // The per-event path on k6: a learned template reads the chunk (chunk-template.ts).
      input = this.inputOf === null ? data : this.inputOf(data);
      if (input !== undefined && t.match(input)) {
        if (this.hook) this.reader.templateMatched?.(data);
        if (this.stale || !t.countOnly) {
          const c = this.fromTemplate(t);
          this.arm(t);
          return c;
        }
        // Only the text and the running count change (the state holds the template's constants,
        // applied by the last update): what update() does, with fewer reads.
        const u = t.update;
        if (u.textDelta) this.parts.push(u.textDelta);
        let tokens: number | null = null;
        const c = u.completionTokens;
        const prev = this.completion;
        // A count below the last one: see update().
        if (c !== undefined && (prev === null || c >= prev)) {
          if (prev !== null) tokens = c - prev;
          else if (this.tokenEvents === 0) tokens = c;
          this.completion = c;
        }
        let r: number = EVENT_NONE;
        if (u.carriesToken || (!u.noContent && tokens !== null && tokens > 0)) {
          this.tokenEvents++;
          r = tokens === null ? TOKENS_UNKNOWN : tokens;
          this.classify(u.phase, this.tokenEvents - 1, tokens === null ? NaN : tokens);
        }
        this.arm(t);
        return r;
      }
    } else if (this.templated) {
      input = this.inputOf === null ? data : this.inputOf(data);
    }
    this.parsed++;
    const reader = this.reader;
    const d = data.trim();
    if (d === '[DONE]') {
      this.done = true;
      return EVENT_DONE;
    }
    let obj: unknown = reader.fastParse?.(d);
    try {
      if (obj === undefined) obj = JSON.parse(d);
    } catch {
      if (this.invalid === null) this.invalid = `event ${this.events} is not JSON: ${snippet(d)}`;
      return EVENT_NONE;
    }
    if (obj === null || typeof obj !== 'object' || Array.isArray(obj)) {
      if (this.invalid === null) this.invalid = `event ${this.events} is not a JSON object: ${snippet(d)}`;
      return EVENT_NONE;
    }
    const u = this.read(obj as Record<string, unknown>);
    if (u === null) return EVENT_NONE;
    if (u.done === true) {
      this.update(u);
      this.done = true;
      return EVENT_DONE;
    }
    // After this chunk, the state holds its values: a template's constants may no longer be there.
    this.stale = true;
    if (input !== undefined) this.learn(input, u);
    return this.update(u);
  }

  /** Events read by a template rather than parsed (for tests and benchmarks). */
  get templateEvents(): number {
    this.disarm();
    return this.events - this.parsed;
  }

  /**
   * Hands the state to the template's closure (chunk-template.ts, ChunkTemplate.fast), which reads the
   * next chunks while they come as predicted; only for a count-only template whose constants the
   * state holds.
   */
  private arm(t: ChunkTemplate): void {
    if (this.stale || !t.countOnly || !t.settled) return;
    if (this.fast === null || this.fastOf !== t) {
      const wrap = this.reader.templateSuffix ?? null;
      this.fast = t.fast(this.parts, wrap, wrap === null ? this.inputOf : null);
      this.fastOf = t;
    }
    this.fast.set(this.completion, this.tokenEvents);
    this.fastRead = this.fast.read;
    this.fastRun = this.fast.run;
    this.setFast(this.fastRead);
  }

  /** Takes the state back from the closure. */
  private disarm(): void {
    if (this.fastRead === null || this.fast === null) return;
    const s = this.fast.get();
    const before = { completion: this.completion, tokenEvents: this.tokenEvents };
    this.completion = s.completion;
    this.tokenEvents = s.tokenEvents;
    const gained = s.tokenEvents - before.tokenEvents;
    if (gained > 0 && this.fastOf !== null) {
      // Every chunk the closure read has the template's shape, so one phase: their tokens are the count's rise.
      const c = s.completion;
      const sum = c === null ? NaN : before.completion !== null ? c - before.completion : before.tokenEvents === 0 ? c : NaN;
      this.classify(this.fastOf.update.phase, before.tokenEvents, sum);
    }
    this.events += s.matched;
    if (s.matched > 0 && this.hook) this.reader.templateMatched?.(s.lastMatched);
    this.fastRead = null;
    this.fastRun = null;
    this.setFast(null);
  }

  /** A matched chunk, in full: the template's constants are applied again too. */
  private fromTemplate(t: ChunkTemplate): number {
    this.stale = false;
    return this.update(t.update);
  }

  /** Applies one parsed chunk; also used for a non-streamed reply (one chunk). */
  apply(obj: Record<string, unknown>): EventInfo {
    const u = this.read(obj);
    const c = u === null ? EVENT_NONE : this.update(u);
    return c === EVENT_NONE || c === EVENT_DONE
      ? { carriesToken: false, tokens: null, done: false }
      : { carriesToken: true, tokens: Number.isNaN(c) ? null : c, done: false };
  }

  /** What a parsed chunk says; null when it is an error (kept for finish()). */
  private read(obj: Record<string, unknown>): ChunkUpdate | null {
    if (obj.error !== undefined && obj.error !== null) {
      const inner = obj.error as Record<string, unknown>;
      const code = typeof inner === 'object' && typeof inner.code === 'number' ? inner.code : typeof obj.code === 'number' ? obj.code : null;
      if (this.streamError === null) this.streamError = { message: messageOf(obj) ?? snippet(JSON.stringify(obj.error)), code };
      return null;
    }
    const u = this.reader.read(obj);
    if (u.error !== undefined) {
      if (this.streamError === null) this.streamError = { message: u.error, code: null };
      return null;
    }
    return u;
  }

  /**
   * Learns a template from two chunks of the same shape (the last one read in full and this one).
   * A stream's last chunk (finish reason) is not learned from: nothing follows it.
   */
  private learn(input: string, u: ChunkUpdate): void {
    const reader = this.reader;
    if (u.finishReason !== undefined || reader.readInput === undefined || reader.templateText === undefined) return;
    // A template of text chunks is learned from text chunks only: the events before the first one
    // (a role chunk; Responses' created, in_progress, item and part events) would spend the attempts.
    if (reader.templateText.length > 0 && !u.textDelta) return;
    const prev = this.lastInput;
    this.lastInput = { s: input, u };
    if (this.learnTries >= MAX_LEARN) return;
    let t: ChunkTemplate | null = null;
    const cache = this.cache;
    if (cache !== null && cache.skeletons.length > 0) {
      this.learnTries++;
      t = ChunkTemplate.rebase(cache.skeletons, input, u);
    }
    if (t === null && prev !== null) {
      this.learnTries++;
      t = ChunkTemplate.learn(prev, this.lastInput, reader.templateText, (s) => reader.readInput?.(s));
    }
    if (t !== null) {
      if (cache !== null) remember(cache, t.skeleton);
      this.template = t;
      // `u`, about to be applied, is the template's own update.
      this.stale = false;
    }
  }

  /** Takes in what one chunk said; returns the tokens it carried, TOKENS_UNKNOWN or EVENT_NONE. */
  private update(u: ChunkUpdate): number {
    if (u.textSoFar !== undefined) this.fullText = u.textSoFar;
    if (u.textDelta) this.parts.push(u.textDelta);
    let tokens: number | null = null;
    // A running count below the last one (events reordered, a usage chunk that disagrees) says
    // nothing of this chunk's tokens: the highest count stands, so no event carries fewer than 0.
    if (u.completionTokens !== undefined && (this.completion === null || u.completionTokens >= this.completion)) {
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
    if (u.specSteps !== undefined) this.specSteps = u.specSteps;
    if (u.reasoningTokens !== undefined) this.serverReasoningTokens = u.reasoningTokens;
    if (u.tools !== undefined) return this.toolEvent(u.tools, tokens);
    // A token count that rises without visible text still means tokens arrived (a token that
    // decodes to nothing yet), except in a chunk that cannot hold content at all.
    if (!(u.carriesToken || (!u.noContent && tokens !== null && tokens > 0))) {
      // A non-streamed reply is one chunk with no token event: its phase still says whether it reasoned.
      if (u.phase !== undefined && u.phase !== 'answer') this.reasoningSeen = true;
      return EVENT_NONE;
    }
    this.tokenEvents++;
    if (this.tools !== null && this.tools.firstOther < 0) this.tools.firstOther = this.tokenEvents - 1;
    this.classify(u.phase, this.tokenEvents - 1, tokens === null ? NaN : tokens);
    return tokens === null ? TOKENS_UNKNOWN : tokens;
  }

  /**
   * A chunk with a piece of a tool call: its name and arguments kept by call, and (when it carried
   * a name or arguments, or the count rose) a token event of its own, left out of the reasoning
   * and answer phases. `tokens`: what the running count says it added (null: not said).
   */
  private toolEvent(ds: ToolDelta[], tokens: number | null): number {
    const t = (this.tools ??= { calls: [], tokens: 0, firstTool: -1, firstOther: this.firstAnswer >= 0 ? this.firstAnswer : this.firstReasoning });
    if (!(mergeToolDeltas(t, ds) || (tokens !== null && tokens > 0))) return EVENT_NONE;
    this.tokenEvents++;
    if (t.firstTool < 0) t.firstTool = this.tokenEvents - 1;
    t.tokens += tokens === null ? NaN : tokens;
    return tokens === null ? TOKENS_UNKNOWN : tokens;
  }

  /**
   * Notes token events from index `first` on, all of one phase, carrying `tokens` (NaN:
   * unknown). Reasoning streams before the answer, so the first answer event ends it; an event
   * without text (a token that decodes to nothing yet) belongs to the phase of the chunk before.
   */
  private classify(phase: Phase | undefined, first: number, tokens: number): void {
    const p = phase ?? this.phase;
    if (p === undefined) return;
    this.phase = p;
    if (p !== 'answer') {
      this.reasoningSeen = true;
      if (this.firstReasoning < 0) this.firstReasoning = first;
    }
    if (p === 'reasoning') this.streamReasoningTokens += tokens;
    // A chunk with both: how its tokens split is not said.
    else if (p === 'both') this.streamReasoningTokens = NaN;
    if (p !== 'reasoning' && this.firstAnswer < 0) this.firstAnswer = first;
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
    // Nothing after [DONE] is the reply's: the sse transport closes the stream there and never reads it.
    for (const d of data) if (this.onEvent(d) === EVENT_DONE) break;
    // A body cut mid-event leaves `partial` behind; finish() reports it as truncated unless the
    // stream had already finished.
    void partial;
    return this;
  }

  finish(): GenerationResult {
    this.disarm();
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
      acceptanceLength: derivedAcceptance(this.completion, this.verify) ?? stepAcceptance(this.specSteps) ?? this.accept,
      error: null,
    };
    if (this.drafted !== null) result.draft = { drafted: this.drafted, accepted: this.draftAccepted ?? 0 };
    const spec = this.specSteps;
    if (spec !== null) {
      result.specSteps = spec;
      if (this.drafted === null && spec.drafted !== null) result.draft = { drafted: spec.drafted, accepted: spec.accepted };
    }
    if (this.reasoningSeen || (this.serverReasoningTokens ?? 0) > 0) {
      // The server's count first; else the stream's, when every reasoning event said its tokens.
      const counted = this.streamed && Number.isFinite(this.streamReasoningTokens) && this.firstReasoning >= 0 ? this.streamReasoningTokens : null;
      result.reasoning = {
        tokens: this.serverReasoningTokens ?? counted,
        firstReasoningEvent: this.streamed && this.firstReasoning >= 0 ? this.firstReasoning : null,
        firstAnswerEvent: this.streamed && this.firstAnswer >= 0 ? this.firstAnswer : null,
      };
    }
    if (this.tools !== null)
      result.toolCalls = toolCallsOf(this.tools, {
        streamed: this.streamed,
        onlyCalls: !this.reasoningSeen && this.parts.length === 0 && (this.fullText ?? '') === '',
        completion: this.completion,
      });
    // The text is built (or, when the reader kept it aside unparsed, parsed) only if someone reads
    // it: a benchmark rarely does, and joining hundreds of pieces costs on k6's engine.
    const reader = this.reader;
    let text: string | undefined;
    Object.defineProperty(result, 'text', { enumerable: true, get: () => (text ??= reader.text?.() ?? collected()) });
    if (this.streamError !== null) {
      result.error = classifyErrorObject(this.streamError.message, this.streamError.code, this.streamed, this.ctx);
    } else if (this.finish_ === 'abort') {
      result.error = classified(
        'aborted',
        `${this.route}: the server aborted the request${this.abortMessage ? `: '${this.abortMessage}'` : ''}. It may be overloaded (queue ` +
          `full) or shutting down.`,
      );
    } else if (this.invalid !== null) {
      result.error = classified('invalid_reply', `${this.route}: the reply is not in the expected shape (${this.invalid}).`);
    } else if (!this.done && (this.finish_ === null || reader.endEvent === true)) {
      result.error = classified(
        'truncated',
        `${this.route}: the stream ended after ${this.events} event(s) without ` +
          `${reader.endEvent === true ? 'its closing event' : 'a finish reason or [DONE]'}; the server closed it early.`,
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

/** vLLM's per-request steps: 1 + accepted drafts per step (its mean_acceptance_length). */
function stepAcceptance(s: SpecStepCounts | null): number | null {
  return s !== null && s.steps > 0 ? 1 + s.accepted / s.steps : null;
}

function snippet(s: string): string {
  return s.length > MAX_SNIPPET ? JSON.stringify(s.slice(0, MAX_SNIPPET)) + '…' : JSON.stringify(s);
}
