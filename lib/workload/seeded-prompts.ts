// Deterministic prompts of exact length. Token-id prompts are exact: the server counts exactly
// `length` input tokens. Text prompts (for chat) are approximate: see textPrompt.
import { randInt, rngFor, type Rng } from '../stats/rng';

/** Token ids for the dialects that accept them, text for the rest (chat). */
export type PromptKind = 'tokens' | 'text';

export interface PromptSpec {
  /** Mean input length in tokens. */
  isl: number;
  /** Number of distinct prompts in the pool. */
  poolSize: number;
  seed: number;
  /** Token ids are drawn from [idFloor, vocabSize): low ids hold special and control tokens. */
  vocabSize: number;
  idFloor: number;
  /** First `sharedPrefix` tokens are the same in every prompt of the pool (exercises prefix caches). */
  sharedPrefix: number;
  /**
   * Relative spread of lengths: prompt i has length round(isl × (1 − spread + 2·spread·u_i)) with u_i
   * evenly spaced in [0, 1] and shuffled, so the pool's mean length is isl (to rounding) and lengths
   * lie in [isl·(1−spread), isl·(1+spread)]. 0 gives every prompt exactly isl tokens.
   */
  spread: number;
}

/** The lengths of a pool, per the spread rule above. */
export function poolLengths(spec: PromptSpec): number[] {
  const { isl, poolSize, spread } = spec;
  const rng = rngFor(spec.seed, `lengths:${isl}:${poolSize}:${spread}`);
  const lengths: number[] = [];
  for (let i = 0; i < poolSize; i++) {
    const u = poolSize === 1 ? 0.5 : i / (poolSize - 1);
    lengths.push(Math.max(1, Math.round(isl * (1 - spread + 2 * spread * u))));
  }
  shuffle(lengths, rng);
  return lengths;
}

/** Token-id prompts, each serialised once as a JSON array string (what the request body splices in). */
export function tokenPromptPool(spec: PromptSpec): string[] {
  const prefix = randomIds(rngFor(spec.seed, 'prefix'), spec.sharedPrefix, spec);
  const rng = rngFor(spec.seed, `tokens:${spec.isl}`);
  return poolLengths(spec).map((len) => {
    const own = randomIds(rng, Math.max(0, len - prefix.length), spec);
    const ids = prefix.length >= len ? prefix.slice(0, len) : prefix.concat(own);
    return '[' + ids.join(',') + ']';
  });
}

function randomIds(rng: Rng, n: number, spec: PromptSpec): number[] {
  const out = new Array<number>(n);
  for (let i = 0; i < n; i++) out[i] = randInt(rng, spec.idFloor, spec.vocabSize);
  return out;
}

// Common short English words: most BPE tokenizers encode each as one token with its leading space.
export const WORDS = (
  'the of and to in is was for on are as with his they at be this from have or by one had not but what all were ' +
  'when we there can an your which their said if do will each about how up out them then she many some so these ' +
  'would other into has more her two like him see time could no make than first been its who now people my made ' +
  'over did down only way find use may water long little very after words called just where most know get through ' +
  'back much before go good new write our used me man too any day same right look think also around another came ' +
  'come work three word must because does part even place well such here take why things help put years different ' +
  'away again off went old number great tell men say small every found still between name should home big give air ' +
  'line set own under read last never us left end along while might next sound below saw something thought both few'
).split(' ');

/**
 * A text prompt of about `isl` tokens: `isl` words drawn from common one-token English words,
 * separated by spaces. Tokenizers differ, so the true count is whatever the server reports as
 * prompt_tokens (typically isl to 1.1×isl); reports use the server's count, never this estimate.
 */
export function textPromptPool(spec: PromptSpec): string[] {
  const prefixRng = rngFor(spec.seed, 'text-prefix');
  const prefix: string[] = [];
  for (let i = 0; i < spec.sharedPrefix; i++) prefix.push(WORDS[randInt(prefixRng, 0, WORDS.length)]);
  const rng = rngFor(spec.seed, `text:${spec.isl}`);
  return poolLengths(spec).map((len) => {
    const words = prefix.slice(0, len);
    while (words.length < len) words.push(WORDS[randInt(rng, 0, WORDS.length)]);
    return words.join(' ');
  });
}

function shuffle<T>(xs: T[], rng: Rng): void {
  for (let i = xs.length - 1; i > 0; i--) {
    const j = Math.floor(rng() * (i + 1));
    [xs[i], xs[j]] = [xs[j], xs[i]];
  }
}

/**
 * Which prompt of a pool of `pool` a VU sends next. The pool is cut into `slots` blocks of
 * ceil(pool / slots) prompts and VU slot s cycles through block s: all VUs together cover the pool
 * evenly, and each VU touches only its own block, so the copies a VU keeps stay small however
 * many VUs run.
 */
export function promptIndex(slot: number, counter: number, slots: number, pool: number): number {
  const block = Math.max(1, Math.ceil(pool / slots));
  return ((slot % slots) * block + (counter % block)) % pool;
}
