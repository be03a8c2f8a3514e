// Server-side figures over a measurement window, from two scrapes of the server's /metrics: the
// differences of histogram sums and counts give exact window means, and of the speculative
// decoding counters the window's acceptance length (not the server's lifetime average).
import { engineById, metricNames, type EngineId, type MetricNames } from '../engines/index';

export type { EngineId };
import { parsePromText, total, type ScrapedSample } from './promtext';

export interface Snapshot {
  engine: EngineId;
  samples: ScrapedSample[];
  /** Client clock when scraped. */
  atMs: number;
}

export function snapshot(engine: EngineId, text: string, atMs: number): Snapshot {
  return { engine, samples: parsePromText(text), atMs };
}

export interface WindowFigures {
  ttftMeanMs: number | null;
  itlMeanMs: number | null;
  e2eMeanMs: number | null;
  queueMeanMs: number | null;
  acceptanceLength: number | null;
  outputTokensPerSecond: number | null;
  /** llama.cpp: Δ generation seconds / Δ generated tokens, in ms (see llm_server_time_per_token). */
  timePerTokenMs: number | null;
  /** Prompt tokens served from the prefix cache and looked up in it over the window (the server's counters); null: it counts none. */
  prefixCache: CacheCounts | null;
}

export interface CacheCounts {
  hitTokens: number;
  queryTokens: number;
}

function delta(a: Snapshot, b: Snapshot, name: string): number | null {
  const x = total(a.samples, name);
  const y = total(b.samples, name);
  return x === null || y === null ? null : y - x;
}

/** Mean of a histogram over the window: Δsum / Δcount, in ms; null without observations. */
function histMeanMs(a: Snapshot, b: Snapshot, base: string | null): number | null {
  if (base === null) return null;
  const dSum = delta(a, b, `${base}_sum`);
  const dCount = delta(a, b, `${base}_count`);
  if (dSum === null || dCount === null || dCount <= 0) return null;
  return (dSum / dCount) * 1000;
}

/**
 * Per-token ITL over the window: the gaps the server summed, divided by the tokens after each
 * request's first. The histograms' own means differ by server (vLLM observes one gap per output
 * step, however many tokens it carried; SGLang one per token), so count is not used.
 */
function itlPerTokenMs(a: Snapshot, b: Snapshot, n: MetricNames): number | null {
  if (n.ttft === null) return null;
  const tokens = delta(a, b, n.generationTokens);
  const firsts = delta(a, b, `${n.ttft}_count`);
  if (tokens === null || firsts === null || tokens - firsts <= 0) return null;
  for (const name of n.itl) {
    const sum = delta(a, b, `${name}_sum`);
    if (sum !== null) return (sum / (tokens - firsts)) * 1000;
  }
  return null;
}

/** Δhits and Δqueries of the engine's prefix-cache counters (lib/engines: `prefixCache.counters`); null when a counter is missing. */
export function cacheCounts(a: Snapshot, b: Snapshot): CacheCounts | null {
  const c = engineById(a.engine)?.prefixCache?.counters;
  if (!c) return null;
  const hitTokens = delta(a, b, c.hits);
  let queryTokens = 0;
  for (const name of c.queries) {
    const d = delta(a, b, name);
    if (d === null) return null;
    queryTokens += d;
  }
  return hitTokens === null ? null : { hitTokens, queryTokens };
}

export function windowFigures(a: Snapshot, b: Snapshot): WindowFigures {
  const n = metricNames(a.engine);
  if (n === null) throw new Error(`no /metrics names for engine '${a.engine}'`);
  const itl = itlPerTokenMs(a, b, n);
  let acceptanceLength: number | null = null;
  if (n.specDrafts && n.specAccepted) {
    const drafts = delta(a, b, n.specDrafts);
    const accepted = delta(a, b, n.specAccepted);
    // Each draft round commits the accepted tokens plus one bonus token from the verify pass.
    if (drafts !== null && accepted !== null && drafts > 0) acceptanceLength = 1 + accepted / drafts;
  }
  const tokens = delta(a, b, n.generationTokens);
  const seconds = (b.atMs - a.atMs) / 1000;
  const genSeconds = n.generationSeconds ? delta(a, b, n.generationSeconds) : null;
  return {
    ttftMeanMs: histMeanMs(a, b, n.ttft),
    itlMeanMs: itl,
    e2eMeanMs: histMeanMs(a, b, n.e2e),
    queueMeanMs: n.queue ? histMeanMs(a, b, n.queue) : null,
    acceptanceLength,
    outputTokensPerSecond: tokens !== null && seconds > 0 ? tokens / seconds : null,
    timePerTokenMs: genSeconds !== null && tokens !== null && tokens > 0 ? (genSeconds / tokens) * 1000 : null,
    prefixCache: cacheCounts(a, b),
  };
}
