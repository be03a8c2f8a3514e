// Setup's part of a dataset run: how long each prompt is, in tokens as the server counts them
// (its tokenize route, where it has one) or as the stated estimate (characters ÷ 4), and which
// items each ISL bucket sends. Items are examined in the seeded order (the store's order) until
// every bucket holds PROMPT_POOL of them, so a bucket's prompts are the first of the seeded order
// that fit it, the same for every variant. Pure: the tokenize requests go through an HttpPort.
import type { HttpPort } from '../http-port';
import { DatasetError, type DatasetFormat, type Turn } from './format';
import { engineById } from '../engines/index';
import { bucketByLength, describeLengths, parseTokenizeReply, tokenizeRequest, type LengthFilter, type LengthSource } from './lengths';

/** Which breakdowns a DATASET run's report has: its domain and turn tag values. */
export interface DatasetShape {
  /** The domain tag values; a breakdown needs two or more. */
  domains: readonly string[];
  /** The turn tag values (multi-turn runs with conversations of two or more user turns); [] otherwise. */
  turns: readonly string[];
}

export interface DatasetBucket {
  isl: number;
  /** Token counts in [lo, hi) belong here. */
  lo: number;
  hi: number;
  /** Store indices of the items this bucket sends, in seeded order (at most PROMPT_POOL). */
  items: number[];
  /** Their first request's token count (what the benchmark intends to send). */
  tokens: number[];
}

/** Handed from setup to every VU and to the report (setup data): keep it small. */
export interface DatasetPlan {
  source: string;
  lengths: LengthSource;
  /** The variant whose server counted the tokens; null for the estimate. */
  countedBy: string | null;
  /** Items in the dataset, and how many were examined (counted) to fill the buckets. */
  total: number;
  examined: number;
  /** Examined items left out by DATASET_MIN_TOKENS / DATASET_MAX_TOKENS, and those outside every bucket. */
  filtered: number;
  outside: number;
  buckets: DatasetBucket[];
  notes: string[];
  /** The domain and turn tag values (for the report's breakdowns). */
  shape: DatasetShape;
  format: DatasetFormat;
  /** Items that set their own output_tokens (the rest use OSL). */
  withOutputTokens: number;
  /** Conversations left out for having no user text. */
  skipped: number;
}

/** Counts the tokens of one item's first request; null when the count failed. */
export interface Counter {
  source: LengthSource;
  variant: string | null;
  count(index: number): number | null;
}

export interface PlanOptions {
  source: string;
  total: number;
  shape: DatasetShape;
  format: DatasetFormat;
  withOutputTokens: number;
  skipped: number;
  isl: readonly number[];
  pool: number;
  filter: LengthFilter;
  counter: Counter;
  /** Stop counting with the server after this many calls or once `expired()` (setup has a deadline). */
  maxCalls: number;
  expired: () => boolean;
}

/** Most tokenize calls setup makes: beyond it the buckets keep what they have. */
export const MAX_TOKENIZE_CALLS = 20_000;
/** Time setup gives the tokenize calls (added to k6's setupTimeout for dataset runs). */
export const TOKENIZE_BUDGET_MS = 90_000;

export function planDataset(o: PlanOptions): DatasetPlan {
  const shape = bucketByLength([], [], o.isl).buckets;
  const buckets: DatasetBucket[] = shape.map((b) => ({ isl: b.isl, lo: Math.ceil(b.lo), hi: Math.ceil(b.hi), items: [], tokens: [] }));
  const plan: DatasetPlan = {
    source: o.source,
    lengths: o.counter.source,
    countedBy: o.counter.variant,
    total: o.total,
    examined: 0,
    filtered: 0,
    outside: 0,
    buckets,
    notes: [],
    shape: o.shape,
    format: o.format,
    withOutputTokens: o.withOutputTokens,
    skipped: o.skipped,
  };
  const lo = o.filter.minTokens ?? 0;
  const hi = o.filter.maxTokens ?? Infinity;
  let open = buckets.length;
  let min = Infinity;
  let max = 0;
  const server = o.counter.source.kind === 'server';
  for (let i = 0; i < o.total && open > 0; i++) {
    if (server && (plan.examined >= o.maxCalls || o.expired())) {
      plan.notes.push(
        `stopped counting after ${plan.examined} of ${o.total} prompts (` +
          `${plan.examined >= o.maxCalls ? `at most ${o.maxCalls} tokenize calls` : 'the setup time budget'}): some ISL buckets hold fewer ` +
          `than PROMPT_POOL=${o.pool} prompts.`,
      );
      break;
    }
    const c = o.counter.count(i);
    plan.examined++;
    if (c === null) {
      plan.notes.push(`the tokenize route stopped answering after ${plan.examined - 1} prompts: the buckets keep the prompts counted so far.`);
      break;
    }
    if (c < min) min = c;
    if (c > max) max = c;
    if (c < lo || c > hi) {
      plan.filtered++;
      continue;
    }
    const b = buckets.find((x) => c >= x.lo && c < x.hi);
    if (!b) {
      plan.outside++;
      continue;
    }
    if (b.items.length >= o.pool) continue;
    b.items.push(i);
    b.tokens.push(c);
    if (b.items.length === o.pool) open--;
  }
  const how = describeLengths(o.counter.source);
  if (plan.examined > 0 && plan.filtered === plan.examined) {
    const range = o.filter.maxTokens === null ? `at least ${lo}` : o.filter.minTokens === null ? `at most ${hi}` : `between ${lo} and ${hi}`;
    throw new DatasetError(
      `${o.source}: no prompt has ${range} tokens (DATASET_MIN_TOKENS/DATASET_MAX_TOKENS): the prompts have ${min} to ${max} tokens, ${how}.`,
    );
  }
  const empty = buckets.filter((b) => b.items.length === 0);
  if (empty.length > 0) {
    const which = empty.map((b) => `ISL ${b.isl} (${b.lo} to ${b.hi - 1} tokens)`).join(', ');
    throw new DatasetError(
      `${o.source}: no prompt for ${which}: the ${plan.examined} prompts examined have ${min} to ${max} tokens, ${how}; set ISL to lengths in that range` +
        (max > 0 ? `, e.g. ISL=${suggestIsl(min, max)}` : '') +
        '.',
    );
  }
  for (const b of buckets) {
    if (b.items.length < o.pool && !plan.notes.some((n) => n.startsWith('stopped'))) {
      plan.notes.push(`ISL ${b.isl}: ${b.items.length} prompts of ${b.lo} to ${b.hi - 1} tokens in the dataset, fewer than PROMPT_POOL=${o.pool}.`);
    }
  }
  return plan;
}

/** A geometric middle of the counts' range, rounded: one ISL whose bucket [ISL/2, 2·ISL) is likely to be populated. */
function suggestIsl(min: number, max: number): number {
  return Math.max(1, Math.round(Math.sqrt(Math.max(1, min) * max)));
}

/** The estimate as a Counter: the lengths the store computed at init. */
export function estimateCounter(estimate: (index: number) => number): Counter {
  return { source: { kind: 'estimate' }, variant: null, count: estimate };
}

/** A variant that may count tokens: its server software, model and request headers. */
export interface CountingVariant {
  variant: string;
  url: string;
  /** vllm, sglang or llamacpp; anything else has no tokenize route. */
  engine: string | null;
  model: string;
  headers: Record<string, string>;
  /** The requests it is sent are chat messages (the count should include the chat template where the route can). */
  chat: boolean;
}

const TOKENIZE_TIMEOUT_MS = 10_000;

/**
 * The first variant (in slot order) whose tokenize route answers with a count for the first item,
 * as a Counter; null when none does (then the estimate applies). `firstRequest(i, chat)` is the
 * i-th item's first request as sent: text, or the chat messages.
 */
export function serverCounter(
  io: HttpPort,
  variants: readonly CountingVariant[],
  firstRequest: (index: number, chat: boolean) => string | Turn[],
): Counter | null {
  for (const v of variants) {
    if (v.engine === null) continue;
    const one = (index: number): number | null => {
      const call = tokenizeRequest(v.engine as string, v.model || null, firstRequest(index, v.chat));
      if (call === null) return null;
      const res = io.post(v.url + call.path, call.body, { headers: v.headers, timeoutMs: TOKENIZE_TIMEOUT_MS, name: `${call.method} ${call.path}` });
      return res.status === 200 ? parseTokenizeReply(v.engine as string, res.body) : null;
    };
    const probe = one(0);
    if (probe === null) continue;
    const call = tokenizeRequest(v.engine, null, '') as { method: string; path: string };
    let first: number | null = probe;
    return {
      source: { kind: 'server', route: `${call.method} ${call.path} of ${v.variant}` },
      variant: v.variant,
      count: (index) => {
        if (index === 0 && first !== null) {
          const c = first;
          first = null;
          return c;
        }
        return one(index);
      },
    };
  }
  return null;
}

/** The profile whose tokenize route a variant uses: its own, else the one its /metrics names; null: none. */
export function tokenizeEngine(metrics: string | null, engine: string | null): string | null {
  for (const id of [engine, metrics]) if (engineById(id)?.tokenize) return id;
  return null;
}
