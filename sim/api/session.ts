// One generation request from arrival to its last byte, for every generation route of both
// engines: it applies faults, submits to the scheduler, turns committed tokens into text (stop
// strings, reasoning split, stream interval), writes SSE events or the final JSON through the
// route's Formatter, and keeps the ground-truth record and the server metrics. Routes differ only
// in how they parse the request and in their Formatter.
import type { ServerResponse } from 'node:http';
import type { SimContext } from '../context';
import { nowMs } from '../scheduler/clock';
import type { Seq, StepOutput } from '../scheduler/batch-scheduler';
import { PRE_FAULT_MESSAGES, planFaults, type FaultPlan } from '../faults';
import type { StructuredPlan } from './structured';
import type { RequestRecord } from '../ground-truth';
import { Rng, deriveSeed } from '../rng';
import { type ErrorStyle, type PreparedChunks, type SseStyle, SseWriter, errorBody, sendJson } from './common';

export interface GenRequest {
  route: string;
  /** When the request's headers arrived (before its body was read). */
  arrivalMs: number;
  /** How late the simulator may have read those headers (see LoopWatch). */
  intakeLagMs: number;
  id: string;
  stream: boolean;
  promptIds: readonly number[];
  /** Of the prompt, the images' tokens (vision.ts); absent: none. */
  imageTokens?: number;
  /** The prompt text's `[domain: NAME]` marker (see scheduler/speculative.ts); null for token ids or no marker. */
  domain: string | null;
  /** The LoRA adapter it names (sim/lora.ts); null or absent: the base model. */
  adapter?: string | null;
  maxNewTokens: number;
  ignoreEos: boolean;
  stop: readonly string[];
  /** Leading output tokens that are reasoning (chat with --reasoning-fraction); 0 otherwise. */
  reasoningTokens: number;
  /** A tool call or JSON content in place of generated text (structured.ts); absent or null: text. */
  structured?: StructuredPlan | null;
}

export interface Finish {
  kind: 'length' | 'stop' | 'abort';
  /** The stop string, or the EOS token id, that ended generation. */
  matched: string | number | null;
  message?: string;
  statusCode?: number;
}

/** Read-only view of a request's progress, for formatters. */
export interface SessionState {
  readonly req: GenRequest;
  readonly created: number;
  readonly arrivalMs: number;
  readonly ids: readonly number[];
  readonly reasoning: string;
  readonly content: string;
  readonly cachedTokens: number;
  readonly verifySteps: number;
  readonly acceptedTokens: number;
  /** Verify steps that accepted exactly j draft tokens, j = 0…K (vLLM's acceptance_histogram); empty without speculation. */
  readonly acceptedHistogram: readonly number[];
  /** Each verify step's accepted draft tokens, in order (vLLM's per_step_accepted, detailed mode). */
  readonly perStepAccepted: readonly number[];
  readonly finish: Finish | null;
  readonly finishMs: number | null;
}

/** New output since the previous event. */
export interface Delta {
  ids: number[];
  reasoning: string;
  content: string;
}

export interface Formatter {
  readonly errorStyle: ErrorStyle;
  /** How events are framed; absent: OpenAI's (bare data, [DONE] at the end). */
  readonly sse?: SseStyle;
  /** SSE payloads (without "data: ") for one event; `first` is true for the first token event. */
  event(s: SessionState, d: Delta, first: boolean): string[];
  /** Payloads after the last token event and before [DONE] (e.g. a usage-only chunk). */
  tail(s: SessionState): string[];
  /** The non-stream reply body. */
  body(s: SessionState): unknown;
  /** An error reported inside a stream whose status is already 200. */
  streamError(message: string, status: number): string;
  /** A server-side abort inside a stream (queue full), or null to use streamError. */
  abortEvent(s: SessionState): string | null;
}

const QUEUE_FULL = 'The request queue is full.';
const MALFORMED = 'data: {"text": "unterminated\n\n';

/** What one step will send for this request, staged ahead of the step's end. */
interface Staged {
  /** 'none': tokens held for a later event (stream interval); 'commit': non-stream; 'event': an SSE event; 'abort': the injected reset. */
  kind: 'none' | 'commit' | 'event' | 'abort';
  tokens: number;
  verify: boolean;
  /** The event's texts, each one HTTP chunk, prepared ahead; null: format at send (a finishing event carries e2e_latency). */
  chunks: PreparedChunks | null;
  delta: Delta | null;
  first: boolean;
  /** After this event: the injected in-stream error ends the stream. */
  streamError: boolean;
  malformed: boolean;
  /** The injected truncation: the stream ends properly after this event, with no closing event. */
  truncated: boolean;
  /** When the bytes went to the socket. */
  sentAt: number;
}

export class Session implements SessionState {
  readonly created = Math.floor(Date.now() / 1000);
  readonly arrivalMs: number;
  ids: number[] = [];
  reasoning = '';
  content = '';
  cachedTokens = 0;
  verifySteps = 0;
  acceptedTokens = 0;
  acceptedHistogram: number[];
  perStepAccepted: number[] = [];
  finish: Finish | null = null;
  finishMs: number | null = null;
  private readonly record: RequestRecord;
  private readonly sse: SseWriter | null;
  private readonly plan: FaultPlan;
  private seq: Seq | null = null;
  private pending: Delta = { ids: [], reasoning: '', content: '' };
  private pendingSteps = 0;
  private staged: Staged | null = null;
  /** The reply has been ended (or reset) by a step's send; its record is completed in settle. */
  private responded = false;
  private sentTokens = 0;
  private lastEventMs: number | null = null;
  private malformedSent = false;
  private readonly maxStopLen: number;

  constructor(
    private readonly ctx: SimContext,
    private readonly res: ServerResponse,
    readonly req: GenRequest,
    private readonly fmt: Formatter,
    ordinal: number,
  ) {
    this.arrivalMs = req.arrivalMs;
    this.acceptedHistogram = new Array<number>(ctx.o.spec === 'none' ? 0 : ctx.o.specDraftTokens + 1).fill(0);
    this.maxStopLen = req.stop.reduce((m, s) => Math.max(m, s.length), 0);
    this.record = {
      id: req.id,
      ordinal,
      route: req.route,
      stream: req.stream,
      arrivalMs: this.arrivalMs,
      intakeLagMs: req.intakeLagMs,
      lagMs: req.intakeLagMs,
      behind: req.intakeLagMs > ctx.o.lagThresholdMs,
      queueExitMs: null,
      firstTokenMs: null,
      reasoningTokens: 0,
      firstAnswerMs: null,
      events: [],
      finishMs: null,
      finishReason: null,
      status: 200,
      promptTokens: req.promptIds.length,
      imageTokens: req.imageTokens ?? 0,
      maxNewTokens: req.maxNewTokens,
      domain: req.domain,
      adapter: req.adapter ?? null,
      completionTokens: 0,
      cachedTokens: 0,
      verifySteps: 0,
      verifyTokens: 0,
      acceptedHistogram: ctx.o.spec === 'none' ? null : new Array<number>(ctx.o.specDraftTokens + 1).fill(0),
      errorClass: null,
      faults: [],
    };
    ctx.recorder.add(this.record);
    const f = ctx.o.faults;
    this.plan = planFaults(f, new Rng(deriveSeed(ctx.o.seed, ordinal, 0xfa)), req.stream);
    if (f.stall) this.record.faults.push('stall');
    const openaiStalled = f.stallOpenai && req.route.startsWith('/v1/');
    if (openaiStalled) this.record.faults.push('stall_openai');
    if (f.slowFactor !== 1) this.record.faults.push(`slow_x${f.slowFactor}`);
    if (this.plan.pre) this.record.faults.push(`error_${this.plan.pre}`);
    if (this.plan.mid) this.record.faults.push(this.plan.mid);

    if (this.plan.pre) {
      this.sse = null;
      this.fail(this.plan.pre, PRE_FAULT_MESSAGES[this.plan.pre], `fault_${this.plan.pre}`);
      return;
    }
    this.sse = req.stream ? new SseWriter(res, fmt.sse) : null;
    res.on('close', () => this.onClientClose());
    // A hung OpenAI layer: the request never reaches the engine, and nothing comes back.
    if (openaiStalled) return;
    this.seq = ctx.scheduler.submit(
      { ordinal, promptIds: req.promptIds, maxNewTokens: req.maxNewTokens, ignoreEos: req.ignoreEos, domain: req.domain, adapter: req.adapter },
      {
        onScheduled: (t, cached) => this.onScheduled(t, cached),
        prepare: (out) => this.prepare(out),
        send: () => this.send(),
        settle: (t, sch) => this.settle(t, sch),
      },
    );
    if (!this.seq) this.queueFull();
  }

  /** An error reply before any token (nothing has been sent yet): a JSON error body. */
  private fail(status: number, message: string, errorClass: string): void {
    this.record.status = status;
    this.record.errorClass = errorClass;
    this.record.finishReason = 'error';
    this.record.finishMs = nowMs();
    sendJson(this.res, status, errorBody(this.fmt.errorStyle, status, message));
  }

  private queueFull(): void {
    this.finish = { kind: 'abort', matched: null, message: QUEUE_FULL, statusCode: 503 };
    if (!this.sse) this.fail(503, QUEUE_FULL, 'queue_full');
    this.record.errorClass = 'queue_full';
    this.record.finishReason = 'abort';
    if (!this.sse) return;
    // The stream is already 200: the rejection arrives as an event.
    this.finishMs = this.record.finishMs = nowMs();
    this.sse.data(this.fmt.abortEvent(this) ?? this.fmt.streamError(QUEUE_FULL, 503));
    this.sse.end();
  }

  private onClientClose(): void {
    // The reply was complete (or reset on purpose) before the client closed: not a disconnect.
    if (this.record.finishMs !== null || this.responded) return;
    if (this.seq) this.ctx.scheduler.cancel(this.seq);
    this.record.finishMs = nowMs();
    this.record.finishReason = 'disconnect';
    this.record.errorClass = 'client_disconnect';
  }

  private onScheduled(t: number, cached: number): void {
    this.record.queueExitMs = t;
    this.cachedTokens = this.record.cachedTokens = cached;
    this.ctx.metrics.observeQueue((t - this.arrivalMs) / 1000);
  }

  /** Ahead of the step's end: takes the step's tokens and stages what the step will send. */
  private prepare(out: StepOutput): boolean {
    if (this.record.finishMs !== null) return true;
    if (out.verify) {
      this.verifySteps++;
      this.acceptedTokens += out.accepted;
      (this.acceptedHistogram[out.accepted] as number)++;
      if (this.ctx.o.perRequestSpecDecodeMetrics === 'detailed') this.perStepAccepted.push(out.accepted);
    }
    const stopped = this.append(out.ids);
    if (!this.finish && out.finish === 'length') this.finish = { kind: 'length', matched: null };
    if (!this.finish && out.finish === 'eos') this.finish = { kind: 'stop', matched: this.ctx.tokenizer.eosId };
    this.pendingSteps++;
    const st: Staged = {
      kind: 'none',
      tokens: out.ids.length,
      verify: out.verify,
      chunks: null,
      delta: null,
      first: false,
      streamError: false,
      malformed: false,
      truncated: false,
      sentAt: 0,
    };
    this.staged = st;
    if (!this.sse) {
      // Nothing is sent until the end; the record notes when the tokens came into being.
      this.pending = { ids: [], reasoning: '', content: '' };
      st.kind = 'commit';
      return stopped;
    }
    const first = this.sentTokens === 0;
    if (this.finish || first || this.pendingSteps >= this.ctx.o.streamInterval) this.stageEvent(st, first);
    return stopped;
  }

  private stageEvent(st: Staged, first: boolean): void {
    const sse = this.sse as SseWriter;
    const faults = this.ctx.o.faults;
    // The reset comes with the event after the k-th token, so the first k tokens have had a step's
    // time to reach the client (a reset discards whatever the client has not read yet).
    if (this.plan.mid === 'abort' && this.sentTokens >= faults.faultAfterTokens) {
      st.kind = 'abort';
      return;
    }
    const d = this.pending;
    this.pending = { ids: [], reasoning: '', content: '' };
    this.pendingSteps = 0;
    st.kind = 'event';
    st.delta = d;
    st.first = first;
    this.sentTokens += d.ids.length;
    if (this.finish) return; // formatted at send: the last event carries the end-to-end latency
    const texts = [sse.events(this.fmt.event(this, d, first))];
    const mid = this.plan.mid;
    if (mid && this.sentTokens >= faults.faultAfterTokens) {
      if (mid === 'malformed' && !this.malformedSent) {
        texts.push(MALFORMED);
        this.malformedSent = st.malformed = true;
      }
      if (mid === 'stream_error') {
        texts.push(sse.events([this.fmt.streamError('Simulated engine error during generation.', 500)]));
        st.streamError = true;
      }
      if (mid === 'truncate') st.truncated = true;
    }
    st.chunks = sse.prepare(texts);
  }

  /** At the step's end: the staged bytes go out, nothing else. */
  private send(): void {
    const st = this.staged;
    if (!st || this.record.finishMs !== null) return;
    if (!this.sse) {
      // A non-stream reply is written when its last tokens are committed.
      if (this.finish) {
        st.sentAt = nowMs();
        this.responded = true;
        sendJson(this.res, 200, this.fmt.body(this));
      }
      return;
    }
    if (st.kind === 'abort') {
      st.sentAt = nowMs();
      this.responded = true;
      this.sse.reset();
      return;
    }
    if (st.kind !== 'event') return;
    let chunks = st.chunks;
    if (!chunks) {
      const payloads = this.fmt.event(this, st.delta as Delta, st.first);
      payloads.push(...this.fmt.tail(this));
      chunks = this.sse.prepare([this.sse.events(payloads)]);
    }
    st.sentAt = nowMs();
    this.sse.write(chunks);
    if (this.finish || st.streamError || st.truncated) {
      this.responded = true;
      if (st.truncated) this.sse.endBare();
      else this.sse.end();
    }
  }

  /** After the step's writes: the ground truth and the metrics. */
  private settle(t: number, scheduledT: number): void {
    const st = this.staged;
    this.staged = null;
    if (!st || this.record.finishMs !== null) return;
    if (st.verify) {
      this.record.verifySteps++;
      this.record.verifyTokens += st.tokens;
      // A verify step commits its accepted drafts and one bonus token.
      if (this.record.acceptedHistogram) (this.record.acceptedHistogram[st.tokens - 1] as number)++;
    }
    if (st.kind === 'commit') {
      this.noteEvent(t, scheduledT, st.tokens);
      // A non-stream request ends when its reply is written.
      if (this.finish) this.complete(st.sentAt || t);
      return;
    }
    if (st.kind === 'abort') {
      if (this.seq) this.ctx.scheduler.cancel(this.seq);
      this.record.finishMs = st.sentAt;
      this.record.finishReason = 'abort';
      this.record.errorClass = 'fault_abort';
      return;
    }
    if (st.kind !== 'event') return;
    this.noteEvent(st.sentAt, scheduledT, (st.delta as Delta).ids.length);
    if (this.finish) return this.complete(st.sentAt);
    if (st.streamError || st.truncated) {
      if (this.seq) this.ctx.scheduler.cancel(this.seq);
      this.record.finishMs = st.sentAt;
      this.record.finishReason = 'error';
      this.record.errorClass = st.truncated ? 'fault_truncate' : 'fault_stream_error';
    }
  }

  /** Appends tokens, splitting reasoning from content and cutting at a stop string. True if stopped. */
  private append(ids: number[]): boolean {
    const tok = this.ctx.tokenizer;
    const contentBefore = this.content.length;
    const plan = this.req.structured;
    for (const id of ids) {
      const piece = plan ? (plan.pieces[this.ids.length] ?? '') : tok.decodeOne(id);
      this.ids.push(id);
      this.pending.ids.push(id);
      if (this.ids.length <= this.req.reasoningTokens) {
        this.reasoning += piece;
        this.pending.reasoning += piece;
      } else this.content += piece;
    }
    for (const stop of this.req.stop) {
      if (stop.length === 0) continue;
      const at = this.content.indexOf(stop, Math.max(0, contentBefore - this.maxStopLen));
      if (at >= 0) {
        this.content = this.content.slice(0, at);
        this.finish = { kind: 'stop', matched: stop };
        break;
      }
    }
    const newContent = this.content.length > contentBefore ? this.content.slice(contentBefore) : '';
    this.pending.content += newContent;
    return this.finish?.kind === 'stop' && typeof this.finish.matched === 'string';
  }

  private noteEvent(t: number, scheduledMs: number, tokens: number): void {
    const r = this.record;
    r.events.push({ timeMs: t, scheduledMs, tokens });
    const reasoning = this.req.reasoningTokens;
    if (reasoning > 0) {
      r.reasoningTokens = Math.min(r.completionTokens + tokens, reasoning);
      if (r.firstAnswerMs === null && r.completionTokens + tokens > reasoning) r.firstAnswerMs = t;
    }
    r.completionTokens += tokens;
    // The simulator's own lateness against its schedule: the ground truth says when it fell behind.
    if (t - scheduledMs > r.lagMs) {
      r.lagMs = t - scheduledMs;
      r.behind = r.lagMs > this.ctx.o.lagThresholdMs;
    }
    if (r.firstTokenMs === null && tokens > 0) {
      r.firstTokenMs = t;
      this.ctx.metrics.observeTtft((t - this.arrivalMs) / 1000);
    } else if (this.lastEventMs !== null && tokens > 0) this.ctx.metrics.observeItl((t - this.lastEventMs) / 1000, tokens);
    if (tokens > 0) this.lastEventMs = t;
  }

  private complete(t: number): void {
    this.finishMs = this.record.finishMs = t;
    const f = this.finish as Finish;
    this.record.finishReason = f.kind;
    const plan = this.req.structured;
    if (plan) {
      const n = this.record.completionTokens;
      this.record.structured = {
        kind: plan.kind,
        valid: !plan.violated && f.kind !== 'abort' && n === plan.pieces.length,
        toolCallTokens: plan.kind === 'tool' ? n : 0,
      };
    }
    this.ctx.metrics.observeE2e((t - this.arrivalMs) / 1000);
    this.ctx.metrics.requestFinished(f.kind);
  }
}
