// The pooling routes: POST /v1/embeddings (OpenAI's shape) and POST /v1/rerank (the shape vLLM,
// SGLang and llama.cpp share). Their own queue beside the generation engine: a pooling pass is a
// prefill without decode, so each pass takes every request waiting at its start as one batch and
// costs stepBaseMs + prefillTokenMs × its tokens (model ms, divided by the time scale). Vectors and
// scores are deterministic (a hash of the seed and the item's tokens); each request's items and
// tokens go into the ground truth (RequestRecord.items).
import type { ServerResponse } from 'node:http';
import type { SimContext } from '../context';
import { nowMs } from '../scheduler/clock';
import type { RequestRecord } from '../ground-truth';
import { Rng, deriveSeed, hashInts } from '../rng';
import { HttpError, readJsonObject, sendJson, type Json, type RouteContext, type Router } from './common';
import { checkModel } from './openai';
import { missing, tokenIds } from './params';

/** The embeddings' dimension: every vector this simulator returns has this many floats. */
export const EMBEDDING_DIM = 256;

export const EMBEDDINGS_ROUTE = '/v1/embeddings';
export const RERANK_ROUTE = '/v1/rerank';

interface Pending {
  tokens: number;
  reply: () => void;
}

/** One pooling worker per server: a pass takes all that waits, as one batch. */
class PoolingQueue {
  private waiting: Pending[] = [];
  private busy = false;

  constructor(private readonly ctx: SimContext) {}

  submit(p: Pending): void {
    this.waiting.push(p);
    if (!this.busy) this.pass();
  }

  private pass(): void {
    const batch = this.waiting;
    this.waiting = [];
    if (batch.length === 0) {
      this.busy = false;
      return;
    }
    this.busy = true;
    const { o } = this.ctx;
    const tokens = batch.reduce((s, p) => s + p.tokens, 0);
    const ms = (o.stepBaseMs + o.prefillTokenMs * tokens) / o.timeScale;
    setTimeout(() => {
      for (const p of batch) p.reply();
      this.pass();
    }, ms);
  }
}

/** An item's token ids: a string through the tokenizer, or a list of ids as they are. */
function itemIds(ctx: SimContext, v: unknown, field: string): number[] {
  if (typeof v === 'string') {
    const ids = ctx.tokenizer.encode(v);
    if (ids.length === 0) throw new HttpError(400, `${field}: an item cannot be empty.`, field);
    return ids;
  }
  return tokenIds(v, field, ctx);
}

/** `input`: a string, a list of strings, a list of ids (one item) or a list of id lists. */
function embeddingItems(ctx: SimContext, body: Json): number[][] {
  const input = body.input;
  if (input === undefined || input === null) missing('input');
  if (typeof input === 'string') return [itemIds(ctx, input, 'input')];
  if (!Array.isArray(input) || input.length === 0) throw new HttpError(400, 'input: a string or a non-empty list.', 'input');
  if (typeof input[0] === 'number') return [itemIds(ctx, input, 'input')];
  return input.map((v) => itemIds(ctx, v, 'input'));
}

/** A unit vector drawn from the seed and the item's ids: the same item always gets the same vector. */
function vector(seed: number, ids: number[]): number[] {
  const r = new Rng(deriveSeed(seed, hashInts(ids), 0xe3));
  const v = Array.from({ length: EMBEDDING_DIM }, () => r.next() * 2 - 1);
  const norm = Math.sqrt(v.reduce((s, x) => s + x * x, 0));
  return v.map((x) => Math.round((x / norm) * 1e6) / 1e6);
}

/** A rerank route's query and documents (strings only, as llama.cpp takes them). */
function rerankInput(ctx: SimContext, body: Json): { query: number[]; docs: number[][] } {
  if (typeof body.query !== 'string') missing('query');
  const docs = body.documents;
  if (!Array.isArray(docs) || docs.length === 0 || docs.some((d) => typeof d !== 'string'))
    throw new HttpError(400, '"documents" must be a non-empty string array', 'documents');
  return { query: itemIds(ctx, body.query, 'query'), docs: docs.map((d) => itemIds(ctx, d, 'documents')) };
}

/** One pooling request's work: its route, its items (inputs or documents) and its tokens. */
interface PoolingWork {
  route: string;
  items: number;
  tokens: number;
}

function record(ctx: SimContext, rc: RouteContext, { route, items, tokens }: PoolingWork): RequestRecord {
  return {
    id: '',
    ordinal: ctx.nextOrdinal(),
    route,
    stream: false,
    arrivalMs: rc.arrivalMs,
    intakeLagMs: rc.intakeLagMs,
    lagMs: rc.intakeLagMs,
    behind: false,
    queueExitMs: null,
    firstTokenMs: null,
    reasoningTokens: 0,
    firstAnswerMs: null,
    events: [],
    finishMs: null,
    finishReason: null,
    status: 200,
    promptTokens: tokens,
    imageTokens: 0,
    maxNewTokens: null,
    domain: null,
    completionTokens: 0,
    cachedTokens: 0,
    verifySteps: 0,
    verifyTokens: 0,
    acceptedHistogram: null,
    errorClass: null,
    faults: [],
    items,
  };
}

/** Queues the request's pass and answers when it ends; the record is the truth of what was served. */
function serve(ctx: SimContext, queue: PoolingQueue, rc: RouteContext, work: PoolingWork, body: () => Json): void {
  const { tokens } = work;
  const rec = record(ctx, rc, work);
  queue.submit({
    tokens,
    reply: () => {
      rec.finishMs = nowMs();
      rec.finishReason = 'stop';
      ctx.recorder.add(rec);
      sendJson(rc.res as ServerResponse, 200, body());
    },
  });
}

export function addPoolingRoutes(router: Router, ctx: SimContext): void {
  const queue = new PoolingQueue(ctx);
  const usage = (n: number) => ({ prompt_tokens: n, total_tokens: n });
  router.add('POST', EMBEDDINGS_ROUTE, async (rc) => {
    const body = await readJsonObject(rc.req);
    checkModel(ctx, body);
    const items = embeddingItems(ctx, body);
    const tokens = items.reduce((s, ids) => s + ids.length, 0);
    serve(ctx, queue, rc, { route: EMBEDDINGS_ROUTE, items: items.length, tokens }, () => ({
      object: 'list',
      model: ctx.o.model,
      data: items.map((ids, index) => ({ object: 'embedding', index, embedding: vector(ctx.o.seed, ids) })),
      usage: usage(tokens),
    }));
  });
  router.add('POST', RERANK_ROUTE, async (rc) => {
    const body = await readJsonObject(rc.req);
    checkModel(ctx, body);
    const { query, docs } = rerankInput(ctx, body);
    // Each document is scored with the query beside it, as a cross-encoder reads them: the query's tokens count once per document.
    const tokens = docs.reduce((s, d) => s + query.length + d.length, 0);
    serve(ctx, queue, rc, { route: RERANK_ROUTE, items: docs.length, tokens }, () => {
      const results = docs.map((d, index) => ({ index, relevance_score: vector(ctx.o.seed, [...query, ...d])[0] }));
      return { object: 'list', model: ctx.o.model, results: results.sort((a, b) => b.relevance_score - a.relevance_score), usage: usage(tokens) };
    });
  });
}
