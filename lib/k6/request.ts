// One LLM request, the only way this project sends one: the dialect builds the body, the
// transport's sender sends it and times what it can, and the outcome becomes metric samples. The
// benchmarks (lib/k6/benchmark.ts) and the public library (lib/api/) both call this function.
import type { GenerationRequest } from '../dialects/types';
import { recordRequest, type AddSample, type Outcome, type SloLimits, type Window } from '../metrics/samples';
import type { ResolvedVariant } from '../variants';
import type { Send } from './transport';

/**
 * Builds, sends and records one generation request. The outcome's event columns are the VU's
 * reused buffers: read them (lib/metrics/timing.ts) before this VU's next request.
 */
export function llmRequest(
  send: Send,
  target: ResolvedVariant,
  req: GenerationRequest,
  timeoutMs: number,
  window: Window,
  slo: SloLimits,
  add: AddSample,
): Outcome {
  const outcome = send(target, target.dialect.build(req), timeoutMs);
  recordRequest(outcome, window, slo, add, req.maxTokens, req.structured);
  return outcome;
}
