// Pooling requests: embeddings (OpenAI's /v1/embeddings) and rerank (the /v1/rerank shape vLLM,
// SGLang and llama.cpp share). Which dialect's server offers which route is a trait of the dialect
// (DialectTraits.pooling; poolingRoute in index.ts reads it); the bodies, the reading of a reply
// and its errors are pure.
import { classified, classifyStatus, serverMessage, type RequestContext } from './errors';
import type { ClassifiedError, Prompt } from './types';

export type PoolingTask = 'embeddings' | 'rerank';
export const POOLING_TASKS: readonly PoolingTask[] = ['embeddings', 'rerank'];

/** A dialect's pooling routes (its traits' `pooling`): null where servers that speak it have none. */
export type PoolingRoutes = Readonly<Record<PoolingTask, string | null>>;

/**
 * The OpenAI-compatible pooling routes: SGLang, vLLM and llama.cpp serve both on their
 * OpenAI-compatible port (beside the native /generate and /completion routes too).
 */
export const OPENAI_POOLING: PoolingRoutes = { embeddings: '/v1/embeddings', rerank: '/v1/rerank' };

/** How each engine turns a route on, for the message of a server that answers it 404 or 501. */
export const ENABLE: Readonly<Record<PoolingTask, string>> = {
  embeddings:
    'llama.cpp: start llama-server with --embeddings (and --pooling mean for a model without a pooling ' +
    'type); vLLM: serve an embedding model (--runner pooling); SGLang: --is-embedding',
  rerank:
    'llama.cpp: start llama-server with --reranking (a model with a rank head); vLLM: serve a ' +
    'cross-encoder or reranker model (--runner pooling); SGLang: --is-embedding with a cross-encoder ' +
    'model',
};

/** One pooling request: the items (embeddings' inputs, rerank's documents) and rerank's query. */
export interface PoolingRequest {
  task: PoolingTask;
  items: readonly Prompt[];
  /** Rerank only: the query the documents are scored against. */
  query?: Prompt;
  model?: string;
}

/** A prompt as a JSON value: its token ids as they are, its text quoted. */
function json(p: Prompt): string {
  return p.kind === 'tokens' ? p.json : JSON.stringify(p.text);
}

/** The body: `input` a list of items (token-id arrays or strings), or `query` and `documents`. */
export function poolingBody(req: PoolingRequest): string {
  const model = req.model ? `"model":${JSON.stringify(req.model)},` : '';
  const items = req.items.map(json).join(',');
  if (req.task === 'embeddings') return `{${model}"input":[${items}]}`;
  if (req.query === undefined) throw new Error('k6-llm-bench: a rerank request needs a query');
  if (req.items.some((p) => p.kind !== 'text') || req.query.kind !== 'text')
    throw new Error('k6-llm-bench: rerank takes text documents (llama.cpp refuses token ids: "documents" must be a non-empty string array)');
  return `{${model}"query":${json(req.query)},"documents":[${items}]}`;
}

/** A pooling reply, read. Token counts only from the server's usage; null when it said none. */
export interface PoolingResult {
  ok: boolean;
  status: number;
  /** Vectors (embeddings) or scores (rerank) the reply carried. */
  items: number;
  /** Embeddings: the vectors' one length; null for rerank, or a reply without vectors. */
  dimension: number | null;
  promptTokens: number | null;
  error: ClassifiedError | null;
}

const failedWith = (status: number, error: ClassifiedError): PoolingResult => ({ ok: false, status, items: 0, dimension: null, promptTokens: null, error });

/** usage.prompt_tokens when it is a count, else null (never a guess). */
function usageTokens(o: Record<string, unknown>): number | null {
  const u = o.usage;
  if (u === null || typeof u !== 'object') return null;
  const t = (u as Record<string, unknown>).prompt_tokens;
  return typeof t === 'number' && Number.isInteger(t) && t >= 0 ? t : null;
}

/**
 * Reads a reply to a request of `sent` items. A 2xx body must hold one vector (embeddings) or one
 * score (rerank) per item, the vectors all of one length; anything else is invalid_reply.
 */
export function readPooling(task: PoolingTask, sent: number, status: number, body: string, ctx: RequestContext): PoolingResult {
  if (status < 200 || status >= 300) return failedWith(status, classifyPoolingStatus(task, status, body, ctx));
  let o: unknown;
  try {
    o = JSON.parse(body);
  } catch {
    return failedWith(status, classified('invalid_reply', `${ctx.route} → ${status}: the body is not JSON ('${serverMessage(body)}').`));
  }
  if (o === null || typeof o !== 'object' || Array.isArray(o))
    return failedWith(status, classified('invalid_reply', `${ctx.route} → ${status}: the body is not a JSON object.`));
  const rec = o as Record<string, unknown>;
  const list = task === 'embeddings' ? rec.data : rec.results;
  const field = task === 'embeddings' ? 'data' : 'results';
  if (!Array.isArray(list)) {
    const said = serverMessage(body);
    return failedWith(status, classified('invalid_reply', `${ctx.route} → ${status}: no ${field} list in the reply${said ? ` ('${said}')` : ''}.`));
  }
  const promptTokens = usageTokens(rec);
  const bad = (why: string) => ({ ...failedWith(status, classified('invalid_reply', `${ctx.route} → ${status}: ${why}.`)), items: list.length, promptTokens });
  if (list.length !== sent) return bad(`${list.length} ${task === 'embeddings' ? 'vectors' : 'scores'} for the ${sent} items sent`);
  if (task === 'rerank') {
    const indexes = new Set<number>();
    for (const r of list as Array<Record<string, unknown> | null>) {
      if (r === null || typeof r !== 'object' || typeof r.relevance_score !== 'number' || typeof r.index !== 'number')
        return bad('a result without a numeric index and relevance_score');
      indexes.add(r.index);
    }
    if (indexes.size !== sent || [...indexes].some((i) => i < 0 || i >= sent)) return bad(`the results' indexes are not each of the ${sent} documents once`);
    return { ok: true, status, items: sent, dimension: null, promptTokens, error: null };
  }
  const dims = new Set<number>();
  for (const d of list as Array<Record<string, unknown> | null>) {
    const v = d !== null && typeof d === 'object' ? d.embedding : undefined;
    // A base64 vector (encoding_format) is a string: this suite asks for floats, so a string is not what it asked.
    if (!Array.isArray(v) || v.length === 0) return bad('an item without an embedding array');
    dims.add(v.length);
  }
  if (dims.size > 1) return bad(`vectors of ${[...dims].join(', ')} dimensions in one reply`);
  return { ok: true, status, items: sent, dimension: [...dims][0], promptTokens, error: null };
}

/** A non-2xx status: a route the server has but has not turned on (501, or a 404 for the route) says how to turn it on. */
export function classifyPoolingStatus(task: PoolingTask, status: number, body: string, ctx: RequestContext): ClassifiedError {
  const msg = serverMessage(body);
  const said = msg ? `: '${msg}'` : '';
  if (status === 501 || (status === 404 && !/model/i.test(msg))) {
    return classified('wrong_dialect', `${ctx.route} → ${status}${said}. The server does not serve ${task} as started: ${ENABLE[task]}.`);
  }
  // llama.cpp: an item longer than the physical batch (-ub) cannot be pooled (500 "input (N tokens) is too large to process").
  if (/too large to process|physical batch size/i.test(msg)) {
    return classified(
      'context_length',
      `${ctx.route} → ${status}${said}. An item is longer than the server's batch: lower ISL, or start llama-server ` +
        `with a larger --ubatch-size (and --batch-size).`,
    );
  }
  return classifyStatus(status, body, ctx);
}
