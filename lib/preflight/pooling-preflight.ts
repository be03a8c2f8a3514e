// A pooling benchmark's preflight (embeddings, rerank): after the variant is identified (its API and
// model, from GETs), one request of one short item on the benchmark's route instead of a one-token
// generation. A server that has the route but not turned on (llama.cpp without --embeddings or
// --reranking: 501) fails here, before any load, with the flag to start it with.
import type { HttpPort } from '../http-port';
import type { BenchConfig, VariantConfig } from '../config/config-types';
import { classifyTransport } from '../dialects/errors';
import { poolingRoute, type DialectName } from '../dialects/index';
import { poolingBody, readPooling, type PoolingResult } from '../dialects/pooling';
import type { Prompt } from '../dialects/types';
import { requestHeaders } from '../variants';
import type { PreflightReason } from './reasons';

/** The check's item: a short text both routes and every tokenizer take. */
const CHECK_TEXT = 'The quick brown fox jumps over the lazy dog.';

/** Why the check failed, in preflight's words: run.ts throws it. */
export interface PoolingRefusal {
  reason: PreflightReason;
  message: string;
}

/** One pooling request of one item: its reply read, or why the variant cannot run this benchmark. */
export function checkPooling(
  io: HttpPort,
  cfg: Pick<BenchConfig, 'pooling' | 'preflightTimeoutMs'>,
  v: VariantConfig,
  dialect: DialectName,
  model: string,
): PoolingResult | PoolingRefusal {
  const p = cfg.pooling;
  if (!p) throw new Error('k6-llm-bench: checkPooling outside a pooling benchmark');
  const route = poolingRoute(dialect, p.task);
  if (route === null)
    return {
      reason: 'wrong_dialect',
      message: `${v.variant}: the server speaks ${dialect} (${v.vars.dialect}=${v.dialect}), whose servers have no ${p.task} route.`,
    };
  const text: Prompt = { kind: 'text', text: CHECK_TEXT };
  const body = poolingBody({ task: p.task, items: [text], query: p.task === 'rerank' ? text : undefined, model: model || undefined });
  const ctx = { route: `POST ${route}`, dialectVar: v.vars.dialect, modelVar: v.vars.model, model };
  const res = io.post(v.url + route, body, { headers: requestHeaders(v, undefined, dialect), timeoutMs: cfg.preflightTimeoutMs, name: ctx.route });
  if (res.status === 0) {
    const e = classifyTransport(res.errorCode, res.error, ctx.route, v.url, cfg.preflightTimeoutMs);
    return { reason: e.class === 'timeout' ? 'stalled' : 'unreachable', message: `${v.variant}: ${e.message}` };
  }
  const r = readPooling(p.task, 1, res.status, res.body, ctx);
  if (r.ok) return r;
  const reason: PreflightReason =
    r.error?.class === 'wrong_dialect' ? 'no_pooling_route' : r.error?.class === 'unknown_model' ? 'unknown_model' : 'generation_failed';
  return { reason, message: `${v.variant}: the ${p.task} check (one item) failed: ${r.error?.message ?? 'unknown error'}` };
}
