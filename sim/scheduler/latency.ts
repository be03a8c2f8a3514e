// The step-time model (model milliseconds), kept apart from the scheduler so it can be read and
// tested as a formula:
//   plain step  = base + prefillTokenMs·prefillTokens + decodeSeqMs·decodingSeqs + ctxMsPer1k·contextTokens/1000
//   spec step   = plain step + draftMs + verifyTokenMs·decodingSeqs·verifyTokens
// The verify term grows with batch × verify width: cheap at batch 1 (memory-bound step, verify
// almost free) and dominant at high batch (compute-bound), which is why speculation helps less there.
import type { SimOptions } from '../options';

export interface StepLoad {
  prefillTokens: number;
  decodingSeqs: number;
  contextTokens: number;
}

export function stepMs(o: SimOptions, load: StepLoad): number {
  let ms = o.stepBaseMs + o.prefillTokenMs * load.prefillTokens + o.decodeSeqMs * load.decodingSeqs + (o.ctxMsPer1k * load.contextTokens) / 1000;
  if (o.spec !== 'none' && load.decodingSeqs > 0) ms += o.specDraftMs + o.specVerifyTokenMs * load.decodingSeqs * o.specVerifyTokens;
  return ms * o.faults.slowFactor;
}
