// Acceptance model for speculative decoding. Each draft position is accepted with probability α
// while every earlier one was (a chain: the first rejection ends the step), up to K draft tokens; the
// verify pass adds one bonus token. So a step commits 1 + a tokens, a ∈ [0, K], and
//   E[tokens per step] = AL(α) = 1 + α + α² + … + α^K.
// α is solved from the configured mean AL by bisection; AL(α) is increasing in α, so this converges.
import type { Rng } from '../rng';

export function expectedAcceptLength(alpha: number, k: number): number {
  let s = 1;
  let p = 1;
  for (let i = 0; i < k; i++) {
    p *= alpha;
    s += p;
  }
  return s;
}

export function solveAlpha(meanAl: number, k: number): number {
  if (meanAl <= 1) return 0;
  if (meanAl >= k + 1) return 1;
  let lo = 0;
  let hi = 1;
  for (let i = 0; i < 60; i++) {
    const mid = (lo + hi) / 2;
    if (expectedAcceptLength(mid, k) < meanAl) lo = mid;
    else hi = mid;
  }
  return (lo + hi) / 2;
}

export class AcceptanceModel {
  readonly alpha: number;

  constructor(
    readonly meanAl: number,
    readonly draftTokens: number,
  ) {
    this.alpha = solveAlpha(meanAl, draftTokens);
  }

  /** Accepted draft tokens in one verify step (0..K); the step commits this + 1. */
  drawAccepted(rng: Rng): number {
    let a = 0;
    while (a < this.draftTokens && rng.next() < this.alpha) a++;
    return a;
  }
}
