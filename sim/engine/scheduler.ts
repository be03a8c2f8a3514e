// The engine: one loop of discrete steps with continuous batching, in real (scaled) time.
//
// At each step boundary the engine (1) commits the step that just ended — prefill progress, one
// token per decoding sequence (or 1 + accepted drafts under speculation), the first token of every
// sequence whose prefill completed — and hands each sequence's tokens to its sink; then (2) plans
// the next step: drops cancelled sequences, admits waiting ones (FIFO) while the running batch and
// the KV cache have room, gives every decoding sequence its decode slot and fills the rest of the
// token budget with prefill chunks; its duration comes from the latency model.
// Step boundaries are absolute times computed from the previous boundary, not from when the timer
// actually fired, so timer lateness never accumulates.
import type { SimOptions } from '../options';
import { Rng, deriveSeed } from '../rng';
import { FIRST_OUTPUT_ID, type Tokenizer } from '../tokenizer';
import { PreciseTimer, nowMs } from './clock';
import { stepMs } from './latency';
import { PrefixCache } from './prefix-cache';
import { DomainAcceptance, parseAcceptByDomain } from './speculative';

export type EngineFinish = 'length' | 'eos' | null;

export interface StepCommit {
  ids: number[];
  /** Actual and scheduled (ideal) wall time of the step end, epoch ms. */
  t: number;
  scheduledT: number;
  /** True when these tokens came from a speculative verify step (not the prefill's first token). */
  verify: boolean;
  /** Draft tokens accepted in that verify step (ids.length - 1 unless truncated by the limit). */
  accepted: number;
  finish: EngineFinish;
}

export interface SeqSink {
  onScheduled(t: number, cachedTokens: number): void;
  /** Returns true when the sink ends the sequence itself (a stop string matched). */
  onStep(commit: StepCommit): boolean;
}

export interface SeqInput {
  ordinal: number;
  promptIds: readonly number[];
  maxNewTokens: number;
  ignoreEos: boolean;
  /** The prompt's domain (its `[domain: NAME]` marker): picks the acceptance length; null or absent = the default. */
  domain?: string | null;
}

export class Seq {
  readonly rng: Rng;
  cancelled = false;
  done = false;
  cachedTokens = 0;
  prefillLeft = 0;
  generated = 0;
  reserved = 0;
  blockHashes: number[] = [];

  constructor(
    readonly input: SeqInput,
    readonly sink: SeqSink,
    seed: number,
  ) {
    this.rng = new Rng(deriveSeed(seed, input.ordinal));
  }
}

interface PlannedStep {
  prefill: [Seq, number][];
  decode: Seq[];
  scheduledEnd: number;
  durationMs: number;
}

export interface StepRecord {
  scheduledMs: number;
  actualMs: number;
  durationMs: number;
  batch: number;
  prefillTokens: number;
  tokens: number;
}

/** Lifetime counters, read by /metrics and /get_server_info. */
export interface EngineCounters {
  promptTokens: number;
  generationTokens: number;
  steps: number;
  verifySteps: number;
  verifyTokens: number;
  draftTokens: number;
  acceptedTokens: number;
  acceptedPerPos: number[];
}

export class Engine {
  private readonly waiting: Seq[] = [];
  private waitHead = 0;
  private running: Seq[] = [];
  private current: PlannedStep | null = null;
  private readonly timer: PreciseTimer;
  private readonly cache: PrefixCache | null;
  private readonly acceptance: DomainAcceptance | null;
  private kvReserved = 0;
  private stalled = false;
  private stopped = false;
  readonly counters: EngineCounters;
  /** When the engine last produced an output token (epoch ms); SGLang's health check watches this. */
  lastOutputMs = 0;
  /** Called once per committed step (for ground truth and throughput gauges). */
  onStepRecord: ((r: StepRecord) => void) | null = null;

  constructor(
    private readonly o: SimOptions,
    private readonly tokenizer: Tokenizer,
  ) {
    this.timer = new PreciseTimer(o.timerSpinMs);
    this.cache = o.prefixCaching ? new PrefixCache(o.blockSize, Math.floor(o.kvCapacity / o.blockSize)) : null;
    this.acceptance = o.spec === 'none' ? null : new DomainAcceptance(o.specAcceptLength, o.specDraftTokens, parseAcceptByDomain(o.specAcceptByDomain));
    this.counters = {
      promptTokens: 0,
      generationTokens: 0,
      steps: 0,
      verifySteps: 0,
      verifyTokens: 0,
      draftTokens: 0,
      acceptedTokens: 0,
      acceptedPerPos: new Array<number>(o.spec === 'none' ? 0 : o.specDraftTokens).fill(0),
    };
  }

  get numRunning(): number {
    return this.running.length;
  }

  get numWaiting(): number {
    return this.waiting.length - this.waitHead;
  }

  /** Tokens held in the KV cache by running sequences (prompt processed + generated). */
  get kvUsedTokens(): number {
    let n = 0;
    for (const s of this.running) n += s.input.promptIds.length - s.prefillLeft + s.generated;
    return n;
  }

  /** Queues a sequence; false when the waiting queue is full. */
  submit(input: SeqInput, sink: SeqSink): Seq | null {
    if (this.o.maxQueue > 0 && this.numWaiting >= this.o.maxQueue) return null;
    const seq = new Seq(input, sink, this.o.seed);
    this.waiting.push(seq);
    this.kick();
    return seq;
  }

  /** The client went away or a fault ended the request: drop it at the next boundary. */
  cancel(seq: Seq): void {
    seq.cancelled = true;
  }

  setStalled(stalled: boolean): void {
    this.stalled = stalled;
    if (stalled) {
      // A hung engine: the step in flight never completes.
      this.timer.cancel();
      this.current = null;
    } else this.kick();
  }

  stop(): void {
    this.stopped = true;
    this.timer.cancel();
    this.current = null;
  }

  private kick(): void {
    if (this.current || this.stalled || this.stopped) return;
    this.startStep(nowMs());
  }

  private startStep(t0: number): void {
    const plan = this.plan(t0);
    if (!plan) {
      this.current = null;
      return;
    }
    this.current = plan;
    this.timer.at(plan.scheduledEnd, () => this.endStep());
  }

  private endStep(): void {
    const step = this.current;
    if (!step) return;
    const actual = nowMs();
    this.commit(step, actual);
    this.current = null;
    if (this.stalled || this.stopped) return;
    // Keep the ideal schedule unless the process fell far behind (overload): then restart from now
    // rather than firing a burst of back-to-back catch-up steps.
    const behind = actual - step.scheduledEnd;
    this.startStep(behind > 50 ? actual : step.scheduledEnd);
  }

  private plan(t0: number): PlannedStep | null {
    const o = this.o;
    if (this.running.some((s) => s.cancelled || s.done)) this.running = this.running.filter((s) => this.keepOrRelease(s));
    this.admit();
    if (this.running.length === 0) return null;
    let budget = o.maxBatchedTokens;
    const perDecode = o.spec === 'none' ? 1 : 1 + o.specDraftTokens;
    const decode: Seq[] = [];
    const prefill: [Seq, number][] = [];
    let contextTokens = 0;
    let prefillTokens = 0;
    for (const s of this.running) {
      if (s.prefillLeft === 0 && budget >= perDecode) {
        decode.push(s);
        budget -= perDecode;
        contextTokens += s.input.promptIds.length + s.generated;
      }
    }
    for (const s of this.running) {
      if (budget <= 0) break;
      if (s.prefillLeft > 0) {
        const chunk = Math.min(s.prefillLeft, budget);
        prefill.push([s, chunk]);
        budget -= chunk;
        prefillTokens += chunk;
      }
    }
    const ms = stepMs(o, { prefillTokens, decodingSeqs: decode.length, contextTokens });
    return { prefill, decode, scheduledEnd: t0 + ms / o.timeScale, durationMs: ms / o.timeScale };
  }

  private keepOrRelease(s: Seq): boolean {
    if (!s.cancelled && !s.done) return true;
    this.kvReserved -= s.reserved;
    s.reserved = 0;
    return false;
  }

  private admit(): void {
    const o = this.o;
    // The actual time, not the ideal step start: a queue exit is never recorded before the finish that made room.
    const now = nowMs();
    while (this.waitHead < this.waiting.length && this.running.length < o.maxRunning) {
      const s = this.waiting[this.waitHead] as Seq;
      if (s.cancelled) {
        this.waitHead++;
        continue;
      }
      // Reserve the whole request up front (prompt + output limit), so an admitted request never
      // has to be preempted; the head of the queue blocks the rest (FIFO, as both servers default to).
      const need = s.input.promptIds.length + s.input.maxNewTokens;
      if (this.kvReserved + need > o.kvCapacity) break;
      this.waitHead++;
      s.reserved = need;
      this.kvReserved += need;
      const promptLen = s.input.promptIds.length;
      if (this.cache) {
        s.blockHashes = this.cache.blockHashes(s.input.promptIds);
        // At least one prompt token is always computed: its logits give the first output token.
        s.cachedTokens = Math.min(this.cache.match(s.blockHashes) * o.blockSize, promptLen - 1);
      }
      s.prefillLeft = promptLen - s.cachedTokens;
      this.running.push(s);
      s.sink.onScheduled(now, s.cachedTokens);
    }
    // Compact the queue array now and then instead of shifting on every admission.
    if (this.waitHead > 1024 && this.waitHead * 2 > this.waiting.length) {
      this.waiting.splice(0, this.waitHead);
      this.waitHead = 0;
    }
  }

  private commit(step: PlannedStep, actual: number): void {
    const c = this.counters;
    c.steps++;
    let tokens = 0;
    for (const [s, chunk] of step.prefill) {
      if (s.cancelled) continue;
      s.prefillLeft -= chunk;
      c.promptTokens += chunk;
      if (s.prefillLeft === 0) {
        this.cache?.insert(s.blockHashes);
        tokens += this.emit(s, 1, false, 0, step, actual);
      }
    }
    for (const s of step.decode) {
      if (s.cancelled || s.done) continue;
      if (this.acceptance) {
        const accepted = this.acceptance.forDomain(s.input.domain ?? null).drawAccepted(s.rng);
        const n = this.emit(s, accepted + 1, true, accepted, step, actual);
        tokens += n;
        c.verifySteps++;
        c.verifyTokens += n;
        c.draftTokens += this.o.specDraftTokens;
        c.acceptedTokens += n - 1;
        for (let i = 0; i < n - 1; i++) (c.acceptedPerPos[i] as number)++;
      } else tokens += this.emit(s, 1, false, 0, step, actual);
    }
    c.generationTokens += tokens;
    if (tokens > 0) this.lastOutputMs = actual;
    let prefillTokens = 0;
    for (const [, chunk] of step.prefill) prefillTokens += chunk;
    this.onStepRecord?.({
      scheduledMs: step.scheduledEnd,
      actualMs: actual,
      durationMs: step.durationMs,
      batch: step.decode.length + step.prefill.length,
      prefillTokens,
      tokens,
    });
  }

  /** Draws up to `want` tokens for a sequence and hands them to its sink; returns the count. */
  private emit(s: Seq, want: number, verify: boolean, accepted: number, step: PlannedStep, actual: number): number {
    const ids: number[] = [];
    let finish: EngineFinish = null;
    const eosRate = s.input.ignoreEos ? 0 : this.o.eosRate;
    const hi = this.tokenizer.vocabSize - 3;
    for (let i = 0; i < want && s.generated < s.input.maxNewTokens; i++) {
      if (eosRate > 0 && s.rng.next() < eosRate) {
        ids.push(this.tokenizer.eosId);
        s.generated++;
        finish = 'eos';
        break;
      }
      ids.push(s.rng.int(FIRST_OUTPUT_ID, hi));
      s.generated++;
    }
    if (!finish && s.generated >= s.input.maxNewTokens) finish = 'length';
    const stopped = s.sink.onStep({
      ids,
      t: actual,
      scheduledT: step.scheduledEnd,
      verify,
      accepted: Math.min(accepted, Math.max(0, ids.length - 1)),
      finish,
    });
    if (finish || stopped) s.done = true;
    return ids.length;
  }
}
