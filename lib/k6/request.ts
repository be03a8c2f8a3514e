// One LLM request, the only way this project sends one: the dialect builds the body, the
// transport's sender sends it and times what it can, and the outcome becomes metric samples. The
// benchmarks (lib/k6/lifecycle/bundle-init.ts) and the public library (lib/api/) both call this function.
import type { GenerationRequest } from '../dialects/types';
import { recordRequest, type Outcome, type Recording } from '../metrics/samples';
import type { ResolvedVariant } from '../variants';
import type { Send } from './transport';

/**
 * Builds, sends and records one generation request. The outcome's event columns are the VU's
 * reused buffers: read them (lib/metrics/timing.ts) before this VU's next request.
 */
export function llmRequest(send: Send, variant: ResolvedVariant, req: GenerationRequest, timeoutMs: number, to: Recording): Outcome {
  const outcome = send(variant, variant.dialect.build(req), timeoutMs);
  recordRequest(outcome, to.window, to.slo, to.add, req);
  return outcome;
}
