// Prometheus text exposition under each server's own metric names, labels and buckets.
// Histograms observe server-side wall seconds. As on the real servers, the inter-token histogram
// gets one observation per scheduler step that produced output (not per token), so under speculative
// decoding it over-states per-token latency: that is the server's behaviour, kept on purpose.
import type { BatchScheduler, StepRecord } from './scheduler/batch-scheduler';
import type { MetricsProfile } from './imitations';

class Histogram {
  readonly counts: number[];
  sum = 0;
  count = 0;

  constructor(readonly buckets: readonly number[]) {
    this.counts = new Array<number>(buckets.length).fill(0);
  }

  observe(v: number): void {
    this.observeMany(v, v, 1);
  }

  /** Adds `sum` to the sum and `n` observations of `v` to the buckets and count. */
  observeMany(v: number, sum: number, n: number): void {
    this.sum += sum;
    this.count += n;
    for (let i = 0; i < this.buckets.length; i++) if (v <= (this.buckets[i] as number)) (this.counts[i] as number) += n;
  }
}

/** Python's float formatting as prometheus_client prints it: 3 -> 3.0, Infinity -> +Inf. */
function num(v: number): string {
  if (v === Infinity) return '+Inf';
  if (Number.isInteger(v) && Math.abs(v) < 1e16) return v.toFixed(1);
  return String(v);
}

/** Rolling window for the throughput and acceptance gauges, as the servers' periodic stats logger. */
const WINDOW_MS = 5000;

export class Metrics {
  private readonly labels: string;
  private readonly ttft: Histogram;
  private readonly itl: Histogram;
  private readonly e2e: Histogram;
  private readonly queue: Histogram;
  private readonly finishedByReason = new Map<string, number>();
  private readonly recent: { t: number; tokens: number; verifySteps: number; verifyTokens: number; hits: number; queries: number }[] = [];

  constructor(
    private readonly n: MetricsProfile,
    model: string,
    private readonly scheduler: BatchScheduler,
  ) {
    this.labels = `model_name="${model.replace(/["\\\n]/g, '_')}"${this.n.extraLabels}`;
    this.ttft = new Histogram(this.n.ttftBuckets);
    this.itl = new Histogram(this.n.itlBuckets);
    this.e2e = new Histogram(this.n.e2eBuckets);
    this.queue = new Histogram(this.n.e2eBuckets);
  }

  observeTtft(s: number): void {
    this.ttft.observe(s);
  }
  /**
   * One output step's gap for one request, carrying `tokens` tokens. vLLM observes the gap once per
   * step; SGLang spreads it over the step's tokens (count += tokens, sum += gap, bucket gap/tokens).
   */
  observeItl(s: number, tokens: number): void {
    if (this.n.itlObservation === 'per-token') this.itl.observeMany(s / tokens, s, tokens);
    else this.itl.observe(s);
  }
  observeE2e(s: number): void {
    this.e2e.observe(s);
  }
  observeQueue(s: number): void {
    this.queue.observe(s);
  }
  requestFinished(reason: string): void {
    this.finishedByReason.set(reason, (this.finishedByReason.get(reason) ?? 0) + 1);
  }

  onStep(r: StepRecord): void {
    const c = this.scheduler.counters;
    this.recent.push({
      t: r.actualMs,
      tokens: c.generationTokens,
      verifySteps: c.verifySteps,
      verifyTokens: c.verifyTokens,
      hits: c.prefixHits,
      queries: c.prefixQueries,
    });
    while (this.recent.length > 2 && (this.recent[0] as { t: number }).t < r.actualMs - WINDOW_MS) this.recent.shift();
  }

  /** Generated tokens/s, mean accept length and prefix-cache hit rate over the last few seconds. */
  windowRates(): { throughput: number; acceptLength: number; cacheHitRate: number } {
    const first = this.recent[0];
    const last = this.recent[this.recent.length - 1];
    if (!first || !last || last.t <= first.t) return { throughput: 0, acceptLength: 0, cacheHitRate: 0 };
    const dv = last.verifySteps - first.verifySteps;
    const dq = last.queries - first.queries;
    return {
      throughput: ((last.tokens - first.tokens) / (last.t - first.t)) * 1000,
      acceptLength: dv > 0 ? (last.verifyTokens - first.verifyTokens) / dv : 0,
      cacheHitRate: dq > 0 ? (last.hits - first.hits) / dq : 0,
    };
  }

  /** `cacheConfig`: the labels of vLLM's cache_config_info gauge (shown when the profile has it). */
  render(kvCapacity: number, cacheConfig: Record<string, string> = {}): string {
    const p = this.n.prefix;
    const L = this.labels;
    const out: string[] = [];
    const head = (name: string, type: string, help: string): void => {
      out.push(`# HELP ${p}${name} ${help}`, `# TYPE ${p}${name} ${type}`);
    };
    const gauge = (name: string, help: string, v: number): void => {
      head(name, 'gauge', help);
      out.push(`${p}${name}{${L}} ${num(v)}`);
    };
    const counter = (name: string, help: string, v: number, extra = ''): void => {
      head(name, 'counter', help);
      out.push(`${p}${name}_total{${L}${extra}} ${num(v)}`);
    };
    const hist = (name: string, help: string, h: Histogram): void => {
      head(name, 'histogram', help);
      h.buckets.forEach((b, i) => out.push(`${p}${name}_bucket{${L},le="${num(b)}"} ${num(h.counts[i] as number)}`));
      out.push(`${p}${name}_bucket{${L},le="+Inf"} ${num(h.count)}`, `${p}${name}_count{${L}} ${num(h.count)}`, `${p}${name}_sum{${L}} ${num(h.sum)}`);
    };
    const e = this.scheduler;
    const c = e.counters;
    const rates = this.windowRates();
    gauge(this.n.running, 'Number of requests in the running batch.', e.numRunning);
    gauge(this.n.waiting, 'Number of requests waiting to be scheduled.', e.numWaiting);
    gauge(this.n.kvUsage, 'KV-cache usage (fraction of capacity).', e.kvUsedTokens / kvCapacity);
    if (this.n.cacheConfigInfo) {
      head('cache_config_info', 'gauge', 'Information of the LLMEngine CacheConfig');
      out.push(
        `${p}cache_config_info{${Object.entries({ ...cacheConfig, engine: '0' })
          .map(([k, v]) => `${k}="${v}"`)
          .join(',')}} 1.0`,
      );
    }
    counter('prompt_tokens', 'Number of prefill tokens processed.', c.promptTokens);
    counter('generation_tokens', 'Number of generation tokens processed.', c.generationTokens);
    const pc = this.n.prefixCache;
    if (pc.queries !== null) counter(pc.queries, 'Prefix cache queries, in terms of number of queried tokens.', c.prefixQueries);
    counter(pc.hits, 'Number of cached prompt tokens.', c.prefixHits, pc.hitLabels);
    if (pc.hitRateGauge !== null) gauge(pc.hitRateGauge, 'The prefix cache hit rate.', rates.cacheHitRate);
    hist(this.n.ttft, 'Histogram of time to first token in seconds.', this.ttft);
    hist(this.n.itl, 'Histogram of inter-token latency in seconds.', this.itl);
    hist(this.n.e2e, 'Histogram of end-to-end request latency in seconds.', this.e2e);
    hist(this.n.queue, 'Histogram of time spent waiting in the queue in seconds.', this.queue);
    if (this.n.windowGauges) {
      gauge('gen_throughput', 'The generation throughput (token/s).', rates.throughput);
      gauge('spec_accept_length', 'The average acceptance length of speculative decoding.', rates.acceptLength);
    }
    if (this.n.finishedCounter === 'num_requests') {
      let total = 0;
      for (const v of this.finishedByReason.values()) total += v;
      counter('num_requests', 'Number of requests processed.', total);
    } else {
      head('request_success', 'counter', 'Count of successfully processed requests.');
      for (const [reason, v] of this.finishedByReason) out.push(`${p}request_success_total{${L},finished_reason="${reason}"} ${num(v)}`);
    }
    if (this.n.specDecodeCounters && c.acceptedPerPos.length > 0) {
      counter('spec_decode_num_drafts', 'Number of spec decoding drafts.', c.verifySteps);
      counter('spec_decode_num_draft_tokens', 'Number of draft tokens.', c.draftTokens);
      counter('spec_decode_num_accepted_tokens', 'Number of accepted tokens.', c.acceptedTokens);
      head('spec_decode_num_accepted_tokens_per_pos', 'counter', 'Accepted tokens per draft position.');
      c.acceptedPerPos.forEach((v, i) => out.push(`${p}spec_decode_num_accepted_tokens_per_pos_total{${L},position="${i}"} ${num(v)}`));
    }
    return out.join('\n') + '\n';
  }
}
