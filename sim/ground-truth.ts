// What really happened, per request and per scheduler step, so a benchmark's client-side figures can
// be checked against the truth. All times are epoch milliseconds with sub-ms precision (wall clock,
// i.e. already divided by the time scale).
import type { StepRecord } from './scheduler/batch-scheduler';

export interface EventRecord {
  /** When the bytes were handed to the socket (streams) or the tokens were committed (non-stream). */
  timeMs: number;
  /** The scheduler step end this event belongs to, as scheduled; timeMs - scheduledMs is the sim's lateness. */
  scheduledMs: number;
  tokens: number;
}

export interface RequestRecord {
  id: string;
  ordinal: number;
  route: string;
  stream: boolean;
  /** When the server read the request's headers (before its body was read or parsed). */
  arrivalMs: number;
  /**
   * How late arrivalMs may be: the request was read right after the simulator had been busy (a
   * step's writes or preparation, a batch of other requests) without reading sockets, so it may
   * have arrived at any moment of that stretch. 0 when it was read the moment it came in.
   */
  intakeLagMs: number;
  /** The largest of intakeLagMs and every event's timeMs − scheduledMs: how far this request's truth fell behind the simulator's own schedule. */
  lagMs: number;
  /** lagMs is above the threshold (--lag-threshold-ms): compare a client's figures for this request with that much slack. */
  behind: boolean;
  queueExitMs: number | null;
  firstTokenMs: number | null;
  /** Leading output tokens that were reasoning (the simulator's reasoning profile); 0 without one. */
  reasoningTokens: number;
  /** When the event carrying the first answer token (after the reasoning) went out; null without reasoning or an answer. */
  firstAnswerMs: number | null;
  events: EventRecord[];
  finishMs: number | null;
  /** length | stop | abort (server-side abort or injected reset) | error | disconnect (client went away) */
  finishReason: string | null;
  status: number;
  promptTokens: number;
  /** Of promptTokens, the images' (vision.ts: Qwen2-VL's count, start and end tokens included); 0 without images. */
  imageTokens: number;
  /** The output budget the request asked for; null when it was refused before being read. */
  maxNewTokens: number | null;
  /** The prompt's `[domain: NAME]` marker (it picks the acceptance length); null: none, or token ids. */
  domain: string | null;
  /** The LoRA adapter the request named (--lora-adapters); null: the base model. */
  adapter?: string | null;
  completionTokens: number;
  cachedTokens: number;
  verifySteps: number;
  /** Tokens committed by verify steps (the prefill's first token excluded). */
  verifyTokens: number;
  /** Verify steps that accepted exactly j draft tokens, j = 0…K (committed j + 1); null without speculation. */
  acceptedHistogram: number[] | null;
  errorClass: string | null;
  faults: string[];
  /** A pooling request (sim/api/pooling.ts): the items it carried (vectors or scores served); absent on generation. */
  items?: number;
  /**
   * A request with tools or response_format (sim/api/structured.ts): whether its reply was a
   * valid document (not spoiled by --schema-violation-rate, every planned token sent) and the
   * tokens of its tool call (0 for JSON content); absent on other requests.
   */
  structured?: { kind: 'tool' | 'json'; valid: boolean; toolCallTokens: number };
}

export interface Stats {
  count: number;
  mean: number | null;
  p50: number | null;
  p90: number | null;
  p99: number | null;
}

export interface Summary {
  fromMs: number;
  toMs: number;
  arrived: number;
  finished: number;
  errored: number;
  outputTokens: number;
  outputTokensPerSec: number;
  ttftMs: Stats;
  itlMs: Stats;
  tpotMs: Stats;
  e2eMs: Stats;
  queueMs: Stats;
  acceptLength: number | null;
  /** acceptLength per prompt domain, over the finished requests that have one. */
  acceptLengthByDomain: Record<string, number>;
  verifySteps: number;
  /** Verify steps of the finished requests that accepted exactly j draft tokens, j = 0…K; null without speculation. */
  acceptedHistogram: number[] | null;
  steps: number;
  stepLatenessMs: Stats;
  /** The threshold above which a request or step counts as behind (--lag-threshold-ms). */
  lagThresholdMs: number;
  /** Requests arriving or finishing in the window whose ground truth fell behind by more than the threshold. */
  behind: number;
  /** Per request lagMs (arriving or finishing in the window). */
  lagMs: Stats;
  /** Per request intakeLagMs (arriving in the window). */
  intakeLagMs: Stats;
  /** Per event timeMs − scheduledMs (events in the window): the sim's write lag. */
  writeLagMs: Stats;
  /** Steps in the window whose last write went out more than the threshold after the scheduled step end. */
  stepsBehind: number;
}

/** Linear-interpolated percentile (numpy's default) of a sorted array. */
function pct(sorted: readonly number[], p: number): number | null {
  if (sorted.length === 0) return null;
  const x = (sorted.length - 1) * p;
  const lo = Math.floor(x);
  const hi = Math.ceil(x);
  return (sorted[lo] as number) + ((sorted[hi] as number) - (sorted[lo] as number)) * (x - lo);
}

export function stats(values: number[]): Stats {
  const sorted = Float64Array.from(values).sort();
  const arr = Array.from(sorted);
  let sum = 0;
  for (const v of arr) sum += v;
  return { count: arr.length, mean: arr.length ? sum / arr.length : null, p50: pct(arr, 0.5), p90: pct(arr, 0.9), p99: pct(arr, 0.99) };
}

export class Recorder {
  readonly requests: RequestRecord[] = [];
  readonly steps: StepRecord[] = [];

  /** Keeps the newest `limit` requests and 10 × limit steps, so a long run does not grow without bound. */
  constructor(
    private readonly limit = 100_000,
    private readonly lagThresholdMs = 5,
  ) {}

  add(r: RequestRecord): void {
    this.requests.push(r);
    // Trim in batches of 10% so the cost of splice is amortised.
    if (this.requests.length > this.limit * 1.1) this.requests.splice(0, this.requests.length - this.limit);
  }

  /** A generation request refused before it reached the scheduler (validation, auth, not ready). */
  addRejected(route: string, arrivalMs: number, intakeLagMs: number, status: number, errorClass: string): void {
    this.add({
      id: '',
      ordinal: -1,
      route,
      stream: false,
      arrivalMs,
      intakeLagMs,
      lagMs: intakeLagMs,
      behind: intakeLagMs > this.lagThresholdMs,
      queueExitMs: null,
      firstTokenMs: null,
      reasoningTokens: 0,
      firstAnswerMs: null,
      events: [],
      finishMs: performance.timeOrigin + performance.now(),
      finishReason: 'error',
      status,
      promptTokens: 0,
      imageTokens: 0,
      maxNewTokens: null,
      domain: null,
      adapter: null,
      completionTokens: 0,
      cachedTokens: 0,
      verifySteps: 0,
      verifyTokens: 0,
      acceptedHistogram: null,
      errorClass,
      faults: [],
    });
  }

  addStep(s: StepRecord): void {
    this.steps.push(s);
    if (this.steps.length > this.limit * 11) this.steps.splice(0, this.steps.length - this.limit * 10);
  }

  /** Clears the records (not the server's lifetime counters, as /get_server_info and /metrics are the server's own). */
  reset(): void {
    this.requests.length = 0;
    this.steps.length = 0;
  }

  since(sinceMs: number): RequestRecord[] {
    return this.requests.filter((r) => r.arrivalMs >= sinceMs || r.finishMs === null || r.finishMs >= sinceMs);
  }

  /** Aggregates over [fromMs, toMs); by default from the first arrival until now. */
  summary(fromMs?: number, toMs: number = performance.timeOrigin + performance.now()): Summary {
    if (fromMs === undefined) {
      fromMs = toMs;
      for (const r of this.requests) fromMs = Math.min(fromMs, r.arrivalMs);
    }
    const from = fromMs;
    const inWin = (t: number | null): t is number => t !== null && t >= from && t < toMs;
    let arrived = 0;
    let finished = 0;
    let errored = 0;
    let outputTokens = 0;
    let verifySteps = 0;
    let verifyTokens = 0;
    let histogram: number[] | null = null;
    const ttft: number[] = [];
    const itl: number[] = [];
    const tpot: number[] = [];
    const e2e: number[] = [];
    const queue: number[] = [];
    const byDomain = new Map<string, { steps: number; tokens: number }>();
    const lag: number[] = [];
    const intakeLag: number[] = [];
    const writeLag: number[] = [];
    let behind = 0;
    for (const r of this.requests) {
      if (inWin(r.arrivalMs)) {
        arrived++;
        intakeLag.push(r.intakeLagMs);
      }
      for (const e of r.events) {
        if (!inWin(e.timeMs)) continue;
        outputTokens += e.tokens;
        writeLag.push(e.timeMs - e.scheduledMs);
      }
      if (inWin(r.arrivalMs) || inWin(r.finishMs)) {
        lag.push(r.lagMs);
        if (r.behind) behind++;
      }
      if (!inWin(r.finishMs)) continue;
      if (r.errorClass !== null) {
        errored++;
        continue;
      }
      finished++;
      verifySteps += r.verifySteps;
      verifyTokens += r.verifyTokens;
      if (r.acceptedHistogram) histogram = addCounts(histogram, r.acceptedHistogram);
      if (r.domain !== null && r.verifySteps > 0) {
        const d = byDomain.get(r.domain) ?? { steps: 0, tokens: 0 };
        d.steps += r.verifySteps;
        d.tokens += r.verifyTokens;
        byDomain.set(r.domain, d);
      }
      e2e.push(r.finishMs - r.arrivalMs);
      if (r.queueExitMs !== null) queue.push(r.queueExitMs - r.arrivalMs);
      if (r.firstTokenMs !== null) ttft.push(r.firstTokenMs - r.arrivalMs);
      if (r.firstTokenMs !== null && r.completionTokens > 1) tpot.push((r.finishMs - r.firstTokenMs) / (r.completionTokens - 1));
      // Per-token ITL: an event's gap is shared by the tokens it carries, each counted once.
      for (let i = 1; i < r.events.length; i++) {
        const e = r.events[i] as EventRecord;
        if (e.tokens === 0) continue;
        const gap = (e.timeMs - (r.events[i - 1] as EventRecord).timeMs) / e.tokens;
        for (let k = 0; k < e.tokens; k++) itl.push(gap);
      }
    }
    const lateness: number[] = [];
    let stepsBehind = 0;
    for (const s of this.steps) {
      if (!inWin(s.actualMs)) continue;
      lateness.push(s.actualMs - s.scheduledMs);
      if (s.sentMs - s.scheduledMs > this.lagThresholdMs) stepsBehind++;
    }
    return {
      fromMs: from,
      toMs,
      arrived,
      finished,
      errored,
      outputTokens,
      outputTokensPerSec: toMs > from ? outputTokens / ((toMs - from) / 1000) : 0,
      ttftMs: stats(ttft),
      itlMs: stats(itl),
      tpotMs: stats(tpot),
      e2eMs: stats(e2e),
      queueMs: stats(queue),
      acceptLength: verifySteps ? verifyTokens / verifySteps : null,
      acceptLengthByDomain: Object.fromEntries([...byDomain].map(([d, v]) => [d, v.tokens / v.steps])),
      verifySteps,
      acceptedHistogram: histogram,
      steps: lateness.length,
      stepLatenessMs: stats(lateness),
      lagThresholdMs: this.lagThresholdMs,
      behind,
      lagMs: stats(lag),
      intakeLagMs: stats(intakeLag),
      writeLagMs: stats(writeLag),
      stepsBehind,
    };
  }
}

/** Element-wise sum of two count arrays (the longer one's length). */
function addCounts(into: number[] | null, add: readonly number[]): number[] {
  const out = into ?? [];
  for (let i = 0; i < add.length; i++) out[i] = (out[i] ?? 0) + (add[i] as number);
  return out;
}
