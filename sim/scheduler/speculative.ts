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

// ---- Acceptance per prompt domain -----------------------------------------------------------------
// Real acceptance depends on the text: code and math accept long drafts, open chat short ones. The
// simulator sees only the prompt text, so it takes the domain from a marker line the benchmark adds
// on request: the first `[domain: NAME]` anywhere in the prompt (for chat, in any message). No
// marker, or a token-id prompt, gives no domain and the configured --spec-accept-length.

const DOMAIN_MARKER_RE = /\[domain: ?([A-Za-z][A-Za-z0-9_-]{0,31})\]/;

/** The domain a prompt text declares with `[domain: NAME]`, or null. */
export function domainOf(text: string): string | null {
  if (text.indexOf('[domain:') < 0) return null;
  const m = DOMAIN_MARKER_RE.exec(text);
  return m ? (m[1] as string) : null;
}

/**
 * Parses `code=6,math=5,chat=2` into mean acceptance lengths per domain. Throws an Error whose
 * message says what is wrong (the option layer names the option).
 */
export function parseAcceptByDomain(raw: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const part of raw.split(',')) {
    const p = part.trim();
    if (p === '') continue;
    const m = /^([A-Za-z][A-Za-z0-9_-]{0,31})\s*=\s*(\d+(?:\.\d+)?)$/.exec(p);
    if (!m) throw new Error(`'${p}' is not DOMAIN=LENGTH (e.g. code=6,chat=2)`);
    if (out.has(m[1] as string)) throw new Error(`domain ${m[1]} is given twice`);
    out.set(m[1] as string, Number(m[2]));
  }
  return out;
}

/** One acceptance model per configured domain, and the default one for every other prompt. */
export class DomainAcceptance {
  private readonly byDomain = new Map<string, AcceptanceModel>();
  readonly fallback: AcceptanceModel;

  constructor(meanAl: number, draftTokens: number, perDomain: ReadonlyMap<string, number> = new Map()) {
    this.fallback = new AcceptanceModel(meanAl, draftTokens);
    for (const [d, al] of perDomain) this.byDomain.set(d, new AcceptanceModel(al, draftTokens));
  }

  forDomain(domain: string | null): AcceptanceModel {
    return (domain !== null ? this.byDomain.get(domain) : undefined) ?? this.fallback;
  }
}
