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
  /** Δ verify steps and Δ accepted drafts at each draft position (index 0: position 1), from the server's per-position counter; null when it has none. */
  acceptedByPosition: { steps: number; accepted: number[] } | null;
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
  const steps = n.specDrafts ? delta(a, b, n.specDrafts) : null;
  const genSeconds = n.generationSeconds ? delta(a, b, n.generationSeconds) : null;
  return {
    ttftMeanMs: histMeanMs(a, b, n.ttft),
    itlMeanMs: itl,
    e2eMeanMs: histMeanMs(a, b, n.e2e),
    queueMeanMs: n.queue ? histMeanMs(a, b, n.queue) : null,
    acceptanceLength,
    acceptedByPosition: n.specAcceptedPerPos && steps !== null && steps > 0 ? perPosition(a, b, n.specAcceptedPerPos, steps) : null,
    outputTokensPerSecond: tokens !== null && seconds > 0 ? tokens / seconds : null,
    timePerTokenMs: genSeconds !== null && tokens !== null && tokens > 0 ? (genSeconds / tokens) * 1000 : null,
    prefixCache: cacheCounts(a, b),
  };
}

/** Δ of a per-position counter at each `position` label the later scrape has (0, 1, …), in position order; null when it has none. */
function perPosition(a: Snapshot, b: Snapshot, name: string, steps: number): { steps: number; accepted: number[] } | null {
  const positions = new Set<number>();
  for (const s of b.samples) if (s.name === name && /^\d+$/.test(s.labels.position ?? '')) positions.add(Number(s.labels.position));
  if (positions.size === 0) return null;
  const accepted: number[] = [];
  for (let p = 0; p <= Math.max(...positions); p++) {
    const at = (x: Snapshot) => total(x.samples, name, (l) => l.position === String(p)) ?? 0;
    accepted.push(Math.max(0, at(b) - at(a)));
  }
  return { steps, accepted };
}
