// Prompt pools, built once per test and shared by all VUs through SharedArray (k6 keeps one copy
// instead of one per VU). Token prompts are stored pre-serialised as JSON array strings.
//
// Reading a SharedArray element is not free: k6 decodes it on every access, and before v2.2 it
// also walked every character of a string element to "freeze" it, which cost hundreds of µs per
// request for a 1k-token prompt. So each VU keeps the few elements it uses (see promptIndex).
import { SharedArray } from 'k6/data';
import { TOKEN_ID_FLOOR, type BenchConfig } from '../config/config-types';
import type { Prompt } from '../dialects/types';
import { DIALECT_TRAITS } from '../dialects/index';
import { poolLengths, textPromptPool, tokenPromptPool, type PromptKind, type PromptSpec } from '../workload/seeded-prompts';

export interface PromptPools {
  prompt(isl: number, kind: PromptKind, index: number): Prompt;
}

export function createPromptPools(cfg: BenchConfig, kinds: PromptKind[]): PromptPools {
  const pools = new Map<string, { items: ArrayLike<string>; lengths: number[] }>();
  for (const isl of cfg.isl) {
    const spec: PromptSpec = {
      isl,
      poolSize: cfg.promptPool,
      seed: cfg.seed,
      vocabSize: cfg.vocabSize,
      idFloor: TOKEN_ID_FLOOR,
      sharedPrefix: cfg.sharedPrefix,
      spread: cfg.islSpread,
    };
    const lengths = poolLengths(spec);
    for (const kind of kinds) {
      const name = `prompts:${kind}:${isl}:${cfg.seed}:${cfg.promptPool}:${cfg.vocabSize}:${cfg.sharedPrefix}:${cfg.islSpread}`;
      const items = new SharedArray(name, () => (kind === 'tokens' ? tokenPromptPool(spec) : textPromptPool(spec)));
      pools.set(`${kind}:${isl}`, { items: items as unknown as ArrayLike<string>, lengths });
    }
  }
  const cache = new Map<string, Prompt>();
  return {
    prompt(isl, kind, index) {
      const key = `${kind}:${isl}:${index}`;
      let p = cache.get(key);
      if (p === undefined) {
        const pool = pools.get(`${kind}:${isl}`);
        if (!pool) throw new Error(`no ${kind} prompt pool for ISL ${isl}`);
        const i = index % cfg.promptPool;
        p = kind === 'tokens' ? { kind, json: pool.items[i], length: pool.lengths[i] } : { kind, text: pool.items[i] };
        cache.set(key, p);
      }
      return p;
    },
  };
}

/** The prompt kinds the configured variants may need: chat takes text, the others token ids. */
export function neededKinds(cfg: BenchConfig): PromptKind[] {
  const kinds = new Set<PromptKind>();
  for (const v of cfg.variants) kinds.add(v.dialect !== 'auto' && !DIALECT_TRAITS[v.dialect].tokenIds ? 'text' : 'tokens');
  // Rerank's documents and query are text on every server.
  if (cfg.pooling?.task === 'rerank') kinds.add('text');
  return [...kinds];
}
