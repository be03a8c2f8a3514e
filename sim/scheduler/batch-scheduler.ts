// The simulator scheduler: one loop of discrete steps with continuous batching, in real (scaled) time.
//
// At each step boundary the scheduler (1) commits the step that just ended — prefill progress, one
// token per decoding sequence (or 1 + accepted drafts under speculation), the first token of every
// sequence whose prefill completed — and hands each sequence's tokens to its sink; then (2) plans
// the next step: drops cancelled sequences, admits waiting ones (FIFO) while the running batch and
// the KV cache have room, gives every decoding sequence its decode slot and fills the rest of the
// token budget with prefill chunks; its duration comes from the latency model.
// Step boundaries are absolute times computed from the previous boundary, not from when the timer
// actually fired, so timer lateness never accumulates.
//
// A step's output is prepared while the step runs, not at its end: soon after planning, the scheduler
// draws every sequence's tokens (each sequence has its own generator, so drawing early changes no
// value) and each sink formats what it will send. At the boundary the sinks only write — one socket
// write per stream, back to back — and then do their bookkeeping, so the spread of a step's writes
// is the kernel's write cost alone and no formatting sits between the step end and the first byte.
import type { SimOptions } from '../options';
import { Rng, deriveSeed } from '../rng';
import { FIRST_OUTPUT_ID, type Tokenizer } from '../tokenizer';
import { LoopWatch, PreciseTimer, nowMs } from './clock';
import { stepMs } from './latency';
import { PrefixCache } from './prefix-cache';
import { DomainAcceptance, parseAcceptByDomain } from './speculative';
import { LoraSlots } from '../lora';

export type EngineFinish = 'length' | 'eos' | null;

/** Wall ms of work (a step's writes, its preparation) after which the scheduler lets the event loop read sockets once before going on. */
const SLICE_MS = 1;

/** One sequence's output of one step, known ahead of the step's end. */
export interface StepOutput {
  ids: number[];
  /** True when these tokens came from a speculative verify step (not the prefill's first token). */
  verify: boolean;
  /** Draft tokens accepted in that verify step (ids.length - 1 unless truncated by the limit). */
  accepted: number;
  finish: EngineFinish;
}

/**
 * Where a sequence's output goes. Per step: `prepare` while the step runs, then at its end `send`
 * for every sequence of the step back to back, then `settle` for each.
 */
export interface SeqSink {
  onScheduled(t: number, cachedTokens: number): void;
  /** Stage what this step will send. Returns true when the sink ends the sequence itself (a stop string matched, or the request is over). */
  prepare(out: StepOutput): boolean;
  /** At the step's end: write what was staged (I/O only, nothing else). */
  send(): void;
  /** After every sequence of the step has sent: records and metrics. `t` / `scheduledT`: actual and ideal step end, epoch ms. */
  settle(t: number, scheduledT: number): void;
}

/** A sink for internal probes: ends after its first output, sends nothing. */
export const SILENT_SINK: SeqSink = { onScheduled: () => undefined, prepare: () => true, send: () => undefined, settle: () => undefined };

export interface SeqInput {
  ordinal: number;
  promptIds: readonly number[];
  maxNewTokens: number;
  ignoreEos: boolean;
  /** The prompt's domain (its `[domain: NAME]` marker): picks the acceptance length; null or absent = the default. */
  domain?: string | null;
  /** The LoRA adapter it runs with (sim/lora.ts); null or absent: the base model. */
  adapter?: string | null;
}

export class Seq {
  readonly rng: Rng;
  cancelled = false;
  done = false;
  cachedTokens = 0;
  prefillLeft = 0;
  generated = 0;
  /** Tokens drawn, a step ahead of `generated` while a prepared step waits for its end. */
  drawn = 0;
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

interface Emission {
  seq: Seq;
  out: StepOutput;
  /** The sink ends the sequence after this step (stop string, or over). */
  ends: boolean;
}

interface PlannedStep {
  prefill: [Seq, number][];
  decode: Seq[];
  scheduledEnd: number;
  durationMs: number;
  /** The step's output, in batch order, as far as prepared. */
  emissions: Emission[];
  /** How many of prefill + decode have been prepared; the step is prepared when it reaches their total. */
  prepared: number;
}

export interface StepRecord {
  scheduledMs: number;
  /** When the step's end was acted on (the timer fired). */
  actualMs: number;
  /** When the step's last socket write returned; sentMs − scheduledMs is the step's write lag. */
  sentMs: number;
  durationMs: number;
  batch: number;
  prefillTokens: number;
  tokens: number;
}

/** Lifetime counters, read by /metrics and /get_server_info. */
export interface EngineCounters {
  /** Prompt tokens of admitted requests, cached ones included (as both servers' prompt_tokens count them). */
  promptTokens: number;
  /** Prompt tokens looked up in the prefix cache, and found there (prefix caching on). */
  prefixQueries: number;
  prefixHits: number;
  /** Resets of the prefix cache (its reset route). */
  prefixResets: number;
  generationTokens: number;
  steps: number;
  verifySteps: number;
  verifyTokens: number;
  draftTokens: number;
  acceptedTokens: number;
  acceptedPerPos: number[];
}

export class BatchScheduler {
  private readonly waiting: Seq[] = [];
  private waitHead = 0;
  private running: Seq[] = [];
  private current: PlannedStep | null = null;
  /** The step in flight when the engine hung; it completes (with its full duration) once the engine resumes. */
  private suspended: PlannedStep | null = null;
  private readonly timer: PreciseTimer;
  private readonly cache: PrefixCache | null;
  private readonly acceptance: DomainAcceptance | null;
  private readonly lora: LoraSlots;
  private kvReserved = 0;
  private stalled = false;
  private stopped = false;
  /** A step's writes are under way (they may span several loop turns). */
  sending = false;
  readonly counters: EngineCounters;
  /** When the scheduler last produced an output token (epoch ms); SGLang's health check watches this. */
  lastOutputMs = 0;
  /** Called when a step starts, with what it does, and when the scheduler goes idle (null): the GPUs' power follows. */
  onStepStart: ((load: { prefillTokens: number; decodingSeqs: number } | null) => void) | null = null;
  /** Called once per committed step (for ground truth and throughput gauges). */
  onStepRecord: ((r: StepRecord) => void) | null = null;

  constructor(
    private readonly o: SimOptions,
    private readonly tokenizer: Tokenizer,
    /** Told about the scheduler's long synchronous stretches (so arrivals read after one know they may be late). */
    private readonly loop: LoopWatch = new LoopWatch(),
  ) {
    this.timer = new PreciseTimer(o.timerSpinMs);
    this.cache = o.prefixCaching ? new PrefixCache(o.blockSize, Math.floor(o.kvCapacity / o.blockSize)) : null;
    this.lora = new LoraSlots(o.maxLoras, o.loraLoadMs);
    this.acceptance = o.spec === 'none' ? null : new DomainAcceptance(o.specAcceptLength, o.specDraftTokens, parseAcceptByDomain(o.specAcceptByDomain));
    this.counters = {
      promptTokens: 0,
      prefixQueries: 0,
      prefixHits: 0,
      prefixResets: 0,
      generationTokens: 0,
      steps: 0,
      verifySteps: 0,
      verifyTokens: 0,
      draftTokens: 0,
      acceptedTokens: 0,
      acceptedPerPos: new Array<number>(o.spec === 'none' ? 0 : o.specDraftTokens).fill(0),
    };
  }

  /**
   * Empties the prefix cache, as SGLang's /flush_cache and vLLM's /reset_prefix_cache do; refused
   * (false) while requests run or wait, as both servers refuse it.
   */
  resetPrefixCache(): boolean {
    if (this.numRunning > 0 || this.numWaiting > 0) return false;
    this.cache?.clear();
    return true;
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
    // A step whose writes have begun finishes them; the fault then holds the next one.
    if (stalled && this.sending) return;
    if (stalled) {
      // A hung engine: the step in flight does not complete while the fault lasts. Its output may
      // already be prepared (tokens drawn, bytes staged), so it is kept and completes after the
      // fault clears, with its full duration from then.
      this.timer.cancel();
      this.suspended ??= this.current;
      this.current = null;
    } else if (this.suspended && !this.stopped && !this.current) {
      const step = this.suspended;
      this.suspended = null;
      step.scheduledEnd = nowMs() + step.durationMs;
      this.arm(step);
    } else this.kick();
  }

  stop(): void {
    this.stopped = true;
    this.timer.cancel();
    this.current = null;
    this.suspended = null;
  }

  private kick(): void {
    if (this.current || this.suspended || this.stalled || this.stopped) return;
    this.startStep(nowMs());
  }

  private startStep(t0: number): void {
    const plan = this.plan(t0);
    if (!plan) {
      this.current = null;
      this.onStepStart?.(null);
      return;
    }
    this.arm(plan);
  }

  private arm(step: PlannedStep): void {
    this.current = step;
    let prefillTokens = 0;
    for (const [, chunk] of step.prefill) prefillTokens += chunk;
    this.onStepStart?.({ prefillTokens, decodingSeqs: step.decode.length });
    this.timer.at(step.scheduledEnd, () => this.endStep());
    // Prepare after the I/O that is waiting now has been read, not inside the caller (the previous
    // step's commit or a request handler), a slice per loop turn; endStep prepares the rest itself
    // if this has not finished by then.
    const slice = (): void => {
      if (this.current !== step) return;
      const from = nowMs();
      const done = this.prepare(step, from + SLICE_MS);
      this.loop.busy(from);
      if (!done) setImmediate(slice);
    };
    setImmediate(slice);
  }

  private endStep(): void {
    const step = this.current;
    if (!step) return;
    const actual = nowMs();
    this.prepare(step);
    // Sequences cancelled while the step ran (the client went away) get nothing.
    const live = step.emissions.filter((e) => !e.seq.cancelled);
    const prefill = step.prefill.filter(([s]) => !s.cancelled);
    this.sending = true;
    this.sendSlice(step, live, prefill, 0, actual);
  }

  /**
   * The step's writes, back to back, nothing but I/O between them; after each SLICE_MS of
   * writing the loop reads sockets once (new requests get their arrival time, and wait to be worked
   * on until the writes are done), then the writes go on.
   */
  private sendSlice(step: PlannedStep, live: Emission[], prefill: [Seq, number][], from: number, actual: number): void {
    if (this.stopped) return;
    const t0 = nowMs();
    let i = from;
    while (i < live.length) {
      (live[i++] as Emission).seq.sink.send();
      if ((i & 7) === 0 && nowMs() - t0 > SLICE_MS) break;
    }
    this.loop.busy(t0);
    if (i < live.length) {
      setImmediate(() => this.sendSlice(step, live, prefill, i, actual));
      return;
    }
    const sentMs = nowMs();
    this.sending = false;
    this.commit(step, live, prefill, actual, sentMs);
    this.loop.busy(sentMs);
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
    const ms = stepMs(o, { prefillTokens, decodingSeqs: decode.length, contextTokens }) + this.lora.takeLoadMs();
    return { prefill, decode, scheduledEnd: t0 + ms / o.timeScale, durationMs: ms / o.timeScale, emissions: [], prepared: 0 };
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
    const adapters = new Set<string>();
    for (const r of this.running) if (r.input.adapter) adapters.add(r.input.adapter);
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
      // A batch holds at most --max-loras distinct adapters: one more waits, and so does the queue behind it.
      if (!this.lora.admit(s.input.adapter, adapters)) break;
      if (s.input.adapter) adapters.add(s.input.adapter);
      this.waitHead++;
      s.reserved = need;
      this.kvReserved += need;
      const promptLen = s.input.promptIds.length;
      if (this.cache) {
        s.blockHashes = this.cache.blockHashes(s.input.promptIds);
        // At least one prompt token is always computed: its logits give the first output token.
        s.cachedTokens = Math.min(this.cache.match(s.blockHashes) * o.blockSize, promptLen - 1);
        this.counters.prefixQueries += promptLen;
        this.counters.prefixHits += s.cachedTokens;
        this.counters.promptTokens += s.cachedTokens;
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

  /**
   * Draws the sequences' tokens for the step, in batch order, and lets each sink stage what it will
   * send; stops once past `untilMs` (true when the whole step is prepared).
   */
  private prepare(step: PlannedStep, untilMs = Infinity): boolean {
    const np = step.prefill.length;
    const total = np + step.decode.length;
    const em = step.emissions;
    while (step.prepared < total) {
      const k = step.prepared++;
      if (k < np) {
        const [s, chunk] = step.prefill[k] as [Seq, number];
        // The prefill's last chunk yields the first output token.
        if (!s.cancelled && s.prefillLeft === chunk) em.push(this.draw(s, 1, false, 0));
      } else {
        const s = step.decode[k - np] as Seq;
        if (s.cancelled || s.done) continue;
        if (this.acceptance) {
          const accepted = this.acceptance.forDomain(s.input.domain ?? null).drawAccepted(s.rng);
          em.push(this.draw(s, accepted + 1, true, accepted));
        } else em.push(this.draw(s, 1, false, 0));
      }
      if ((k & 15) === 15 && nowMs() > untilMs) break;
    }
    return step.prepared >= total;
  }

  /** Draws up to `want` tokens for a sequence and hands them to its sink to stage. */
  private draw(s: Seq, want: number, verify: boolean, accepted: number): Emission {
    const ids: number[] = [];
    let finish: EngineFinish = null;
    const eosRate = s.input.ignoreEos && !this.o.eosDespiteIgnore ? 0 : this.o.eosRate;
    const hi = this.tokenizer.vocabSize - 3;
    for (let i = 0; i < want && s.drawn < s.input.maxNewTokens; i++) {
      if (eosRate > 0 && s.rng.next() < eosRate) {
        ids.push(this.tokenizer.eosId);
        s.drawn++;
        finish = 'eos';
        break;
      }
      ids.push(s.rng.int(FIRST_OUTPUT_ID, hi));
      s.drawn++;
    }
    if (!finish && s.drawn >= s.input.maxNewTokens) finish = 'length';
    const out: StepOutput = { ids, verify, accepted: Math.min(accepted, Math.max(0, ids.length - 1)), finish };
    return { seq: s, out, ends: s.sink.prepare(out) };
  }

  /** After the step's writes: scheduler state, counters and every sink's bookkeeping. */
  private commit(step: PlannedStep, live: Emission[], prefill: [Seq, number][], actual: number, sentMs: number): void {
    const c = this.counters;
    c.steps++;
    for (const [s, chunk] of prefill) {
      s.prefillLeft -= chunk;
      c.promptTokens += chunk;
      if (s.prefillLeft === 0) this.cache?.insert(s.blockHashes);
    }
    let tokens = 0;
    for (const { seq: s, out, ends } of live) {
      const n = out.ids.length;
      s.generated += n;
      tokens += n;
      if (out.verify) {
        c.verifySteps++;
        c.verifyTokens += n;
        c.draftTokens += this.o.specDraftTokens;
        c.acceptedTokens += n - 1;
        for (let i = 0; i < n - 1; i++) (c.acceptedPerPos[i] as number)++;
      }
      s.sink.settle(actual, step.scheduledEnd);
      if (out.finish || ends) s.done = true;
    }
    c.generationTokens += tokens;
    if (tokens > 0) this.lastOutputMs = actual;
    let prefillTokens = 0;
    for (const [, chunk] of step.prefill) prefillTokens += chunk;
    this.onStepRecord?.({
      scheduledMs: step.scheduledEnd,
      actualMs: actual,
      sentMs,
      durationMs: step.durationMs,
      batch: step.decode.length + step.prefill.length,
      prefillTokens,
      tokens,
    });
  }
}
