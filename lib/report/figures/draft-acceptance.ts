// A run's speculative acceptance from the counts its requests left: the acceptance length named by
// where it came from, with its interval, and acceptance by draft position (vLLM's per-request
// histograms). Pure arithmetic over the summary's counts; run-figures.ts reads them.
import type { Interval } from '../../stats/bootstrap';
import { ratioEstimate } from '../../stats/t-interval';

/** Where an acceptance length came from, most direct first: a run takes the first it has. */
export const ACCEPTANCE_SOURCES = {
  'vllm-metrics': "each reply's metrics.speculative_decoding (vLLM --per-request-spec-decode-metrics): 1 + accepted drafts / verify steps",
  meta_info: "each reply's meta_info (SGLang): output tokens / spec_verify_ct, the prefill's token included",
  'server-metrics': "the server's /metrics counters over the steady window: 1 + Δaccepted / Δdrafts",
} as const;
export type AcceptanceSource = keyof typeof ACCEPTANCE_SOURCES;

export interface Acceptance {
  /** Tokens committed per verify step over the run's requests (or the server's window). */
  value: number;
  source: AcceptanceSource;
  /**
   * 95 %: the half-width from the steady slices' batches (a ratio estimator's t interval); null when fewer than 2
   * slices had verify steps, or from /metrics.
   */
  ci: Interval | null;
}

export interface AcceptanceByPosition {
  /** vllm-metrics: the replies' histograms; server-metrics: the server's per-position counters over the steady window. */
  source: Extract<AcceptanceSource, 'vllm-metrics' | 'server-metrics'>;
  /** Verify steps counted. */
  steps: number;
  /** Steps that accepted exactly j drafts: j = 0 … 15, the last bin 16 or more; null from the server's counters, which count positions, not steps. */
  histogram: number[] | null;
  /** Position i = 1, 2, …: the share of steps that accepted it (accepted ≥ i), up to the deepest position any step accepted. */
  byPosition: number[];
}

/** What run-figures.ts hands over: a run's counts, each 0 where nothing was counted. */
export interface AcceptanceCounts {
  verifySteps: number;
  /** Tokens those steps committed (llm_spec_output_tokens). */
  committed: number;
  /** Per steady slice: verify steps and committed tokens of the requests that ended in it. */
  sliceSteps: number[];
  sliceCommitted: number[];
  /** llm_spec_steps_by_accepted by bin. */
  histogram: number[];
  /** Draft tokens the requests reported (llm_spec_draft_tokens): vLLM's per-request counts say them, SGLang's meta_info does not. */
  drafted: number;
  /** The server's window acceptance length (/metrics), null when it gave none. */
  serverValue: number | null;
}

export function acceptanceOf(c: AcceptanceCounts): Acceptance | null {
  if (c.verifySteps > 0) {
    const value = c.committed / c.verifySteps;
    // The whole run's ratio, with the spread its steady slices show (they hold most of its requests).
    const est = ratioEstimate(c.sliceCommitted, c.sliceSteps, 0.95);
    const h = est?.ci ? (est.ci.hi - est.ci.lo) / 2 : null;
    // Steps with drafts or a histogram beside them are vLLM's counts (its histogram may be malformed and dropped); steps alone, SGLang's.
    const source: AcceptanceSource = sum(c.histogram) > 0 || c.drafted > 0 ? 'vllm-metrics' : 'meta_info';
    return { value, source, ci: h === null ? null : { lo: value - h, hi: value + h } };
  }
  if (c.serverValue !== null) return { value: c.serverValue, source: 'server-metrics', ci: null };
  return null;
}

export function acceptanceByPosition(histogram: readonly number[]): AcceptanceByPosition | null {
  const steps = sum(histogram);
  if (steps === 0) return null;
  // Steps with accepted ≥ i, from the deepest bin down.
  const atLeast: number[] = [];
  let n = 0;
  for (let i = histogram.length - 1; i >= 1; i--) atLeast[i - 1] = n += histogram[i] as number;
  return { source: 'vllm-metrics', steps, histogram: [...histogram], byPosition: shares(atLeast, steps) };
}

/** The server's Δ accepted drafts at each position over Δ verify steps; null without steps. */
export function serverPositions(steps: number, accepted: readonly number[]): AcceptanceByPosition | null {
  if (!(steps > 0)) return null;
  return { source: 'server-metrics', steps, histogram: null, byPosition: shares(accepted, steps) };
}

/** count ÷ steps for each position, up to the deepest one any step accepted. */
function shares(counts: readonly number[], steps: number): number[] {
  let deepest = 0;
  for (let i = 0; i < counts.length; i++) if ((counts[i] as number) > 0) deepest = i + 1;
  return counts.slice(0, deepest).map((c) => c / steps);
}

function sum(xs: readonly number[]): number {
  let s = 0;
  for (const x of xs) s += x;
  return s;
}
