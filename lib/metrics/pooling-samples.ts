// The samples of one pooling request (embeddings, rerank). What every request records (success,
// errors, e2e, input tokens, the slice counts) comes from recordRequest, the reply given as a
// generation result with no output; the items, the vectors' dimension and the per-slice items and
// tokens are recorded here. Pure, so Node tests check the arithmetic.
import type { PoolingResult } from '../dialects/pooling';
import type { GenerationResult } from '../dialects/types';
import { recordRequest, type Outcome, type Recording } from './samples';
import { sliceOf } from './timing';

const SLICE_TAGS: Array<Record<string, string>> = [];
const sliceTags = (k: number) => (SLICE_TAGS[k] ??= { slice: String(k) });

/** A pooling reply as a generation result: its input tokens the server's, no output (null: not a count of 0). */
export function asGeneration(r: PoolingResult): GenerationResult {
  return {
    ok: r.ok,
    status: r.status,
    text: '',
    promptTokens: r.promptTokens,
    completionTokens: null,
    cachedTokens: null,
    finishReason: null,
    tokenEvents: 0,
    specVerifySteps: null,
    acceptanceLength: null,
    error: r.error,
  };
}

export function recordPooling(r: PoolingResult, startMs: number, endMs: number, { window: w, slo, add }: Recording): void {
  const outcome: Outcome = { result: asGeneration(r), startMs, endMs, events: null };
  recordRequest(outcome, w, slo, add);
  if (!r.ok) return;
  add('poolItems', r.items);
  if (r.dimension !== null) add('poolDimension', r.dimension);
  if (r.promptTokens !== null) add('poolUsageReplies', 1);
  const k = sliceOf(endMs, w);
  if (k < 0) return;
  add('windowItems', r.items, sliceTags(k));
  if (r.promptTokens !== null) add('windowPoolTokens', r.promptTokens, sliceTags(k));
}
