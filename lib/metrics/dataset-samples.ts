// The samples a dataset request adds to recordRequest's: the prompt and output lengths the
// server counted (their distribution is what was actually sent) and, for first-turn requests,
// how the server's prompt count compares with the length the benchmark intended. Pure.
import type { GenerationResult } from '../dialects/types';
import type { AddSample } from './samples';

export function recordDatasetRequest(r: GenerationResult, intended: number | null, add: AddSample): void {
  if (!r.ok) return;
  if (r.promptTokens !== null) {
    add('promptLength', r.promptTokens);
    if (intended !== null && intended > 0) add('lengthRatio', r.promptTokens / intended);
  }
  if (r.completionTokens !== null) add('outputLength', r.completionTokens);
}
