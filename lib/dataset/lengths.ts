// Prompt lengths in tokens for dataset prompts: from the server's own tokenizer when it has a
// tokenize route, otherwise a stated estimate (characters ÷ 4, named as an estimate wherever it is
// shown). The lengths filter prompts (MIN/MAX prompt tokens) and sort them into the ISL axis.
//
// Tokenize routes are part of each engine profile (lib/engines: vLLM /tokenize with a messages form
// that renders the chat template, SGLang /v1/tokenize, llama.cpp /tokenize); other servers have none
// and the estimate applies.
import { engineById } from '../engines/index';
import { DatasetError, turnsText, type DatasetItem, type Turn } from './format';

export interface TokenizeCall {
  method: 'POST';
  /** Appended to the variant's base URL. */
  path: string;
  body: string;
}

/**
 * The request that counts `input`'s tokens on this engine (a profile id, lib/engines), or null when
 * it has no tokenize route (then use estimateTokens). `input` is a text prompt or the messages of a
 * chat request.
 */
export function tokenizeRequest(engine: string, model: string | null, input: string | readonly Turn[]): TokenizeCall | null {
  const route = engineById(engine)?.tokenize;
  if (!route) return null;
  const o: Record<string, unknown> = {};
  if (route.sendsModel && model) o.model = model;
  if (route.messages && typeof input !== 'string') {
    o.messages = input.map((t) => ({ role: t.role, content: t.content }));
    o.add_generation_prompt = true;
  } else {
    o[route.textField] = typeof input === 'string' ? input : turnsText(input);
    o[route.specialField] = true;
  }
  return { method: 'POST', path: route.path, body: JSON.stringify(o) };
}

/** The token count in a tokenize reply body, or null when the body is not one (an error, a 404 page…). */
export function parseTokenizeReply(engine: string, body: string): number | null {
  const route = engineById(engine)?.tokenize;
  if (!route) return null;
  let v: unknown;
  try {
    v = JSON.parse(body);
  } catch {
    return null;
  }
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return null;
  const o = v as Record<string, unknown>;
  if (route.countField !== null) {
    const c = o[route.countField];
    if (typeof c === 'number' && Number.isSafeInteger(c) && c >= 0) return c;
  }
  if (Array.isArray(o.tokens) && (o.tokens.length === 0 || typeof o.tokens[0] === 'number' || (typeof o.tokens[0] === 'object' && o.tokens[0] !== null)))
    return o.tokens.length;
  return null;
}

/** Characters per token of the estimate: about right for English prose on BPE tokenizers; code and non-Latin text differ. */
export const ESTIMATE_CHARS_PER_TOKEN = 4;

/** Estimated tokens of a text: characters ÷ 4, at least 1. An estimate, and to be called one. */
export function estimateTokens(text: string): number {
  return Math.max(1, Math.round(text.length / ESTIMATE_CHARS_PER_TOKEN));
}

/** Where lengths came from, for every message and report line that shows them. */
export type LengthSource = { kind: 'server'; route: string } | { kind: 'estimate' };

export function describeLengths(src: LengthSource): string {
  return src.kind === 'server' ? `counted by the server (${src.route})` : `estimated as characters ÷ ${ESTIMATE_CHARS_PER_TOKEN} (no tokenize route)`;
}

export interface LengthFilter {
  /** Keep prompts of at least this many tokens; null: no lower bound. */
  minTokens: number | null;
  /** Keep prompts of at most this many tokens; null: no upper bound. */
  maxTokens: number | null;
}

/**
 * The indices of the items whose count lies within the filter. Throws DatasetError when none
 * does, with the range the counts do span and how they were obtained.
 */
export function filterByLength(source: string, counts: readonly number[], filter: LengthFilter, how: LengthSource): number[] {
  const lo = filter.minTokens ?? 0;
  const hi = filter.maxTokens ?? Infinity;
  const keep: number[] = [];
  let min = Infinity;
  let max = 0;
  for (let i = 0; i < counts.length; i++) {
    const c = counts[i];
    if (c < min) min = c;
    if (c > max) max = c;
    if (c >= lo && c <= hi) keep.push(i);
  }
  if (keep.length === 0) {
    const range = filter.maxTokens === null ? `at least ${lo}` : filter.minTokens === null ? `at most ${hi}` : `between ${lo} and ${hi}`;
    const span = counts.length === 0 ? 'there are no prompts' : `the prompts have ${min} to ${max} tokens, ${describeLengths(how)}`;
    throw new DatasetError(`${source}: no prompt has ${range} tokens: ${span}`);
  }
  return keep;
}

export interface LengthBucket {
  /** The ISL axis value this bucket stands for. */
  isl: number;
  /** Token counts in [lo, hi) belong here. */
  lo: number;
  hi: number;
  /** Item indices, in item order. */
  indices: number[];
  /** Mean token count of the bucket's prompts (null when empty): what a report shows next to the ISL. */
  meanTokens: number | null;
}

export interface LengthBuckets {
  buckets: LengthBucket[];
  /** Items shorter or longer than every bucket: not sent. */
  outside: number[];
}

/**
 * Sorts items into the ISL axis by token count. Neighbouring axis values split at their geometric
 * mean (so 128 and 1024 split at 362); the outer edges mirror the nearest split (the first bucket
 * reaches as far below its ISL as its upper edge is above it), and a one-value axis takes
 * [ISL/2, 2·ISL). So each bucket holds the prompts closest to its ISL on a log scale. Buckets come
 * in the axis's order.
 */
export function bucketByLength(items: readonly DatasetItem[], counts: readonly number[], islAxis: readonly number[]): LengthBuckets {
  if (items.length !== counts.length) throw new RangeError(`${items.length} items but ${counts.length} counts`);
  const axis = [...islAxis].sort((a, b) => a - b);
  const edges: number[] = [];
  for (let i = 0; i + 1 < axis.length; i++) edges.push(Math.sqrt(axis[i] * axis[i + 1]));
  // Buckets in the axis's own order; bounds from its sorted order.
  const buckets: LengthBucket[] = islAxis.map((isl) => {
    const i = axis.indexOf(isl);
    const lo = i > 0 ? edges[i - 1] : axis.length > 1 ? (isl * isl) / edges[0] : isl / 2;
    const hi = i < edges.length ? edges[i] : axis.length > 1 ? (isl * isl) / edges[i - 1] : isl * 2;
    return { isl, lo, hi, indices: [], meanTokens: null };
  });
  const outside: number[] = [];
  const sums = new Array<number>(buckets.length).fill(0);
  for (let i = 0; i < counts.length; i++) {
    const c = counts[i];
    let b = -1;
    for (let j = 0; j < buckets.length; j++) {
      if (c >= buckets[j].lo && c < buckets[j].hi) {
        b = j;
        break;
      }
    }
    if (b < 0) outside.push(i);
    else {
      buckets[b].indices.push(i);
      sums[b] += c;
    }
  }
  buckets.forEach((bk, j) => (bk.meanTokens = bk.indices.length ? sums[j] / bk.indices.length : null));
  return { buckets, outside };
}
