// The pooling iteration (embeddings, rerank): BATCH prompts of the cell's ISL from the run's prompt
// source (rerank: one more for its query, all text), one POST to the dialect's pooling route over
// k6/http (these routes do not stream, whatever TRANSPORT says), the reply read and recorded.
import http from 'k6/http';
import { classifyTransport, classified } from '../dialects/errors';
import { poolingRoute } from '../dialects/index';
import { poolingBody, readPooling, type PoolingResult } from '../dialects/pooling';
import type { Prompt } from '../dialects/types';
import { asGeneration, recordPooling } from '../metrics/pooling-samples';
import type { Outcome } from '../metrics/samples';
import type { ResolvedVariant } from '../variants';
import type { Bench } from './lifecycle/each-vu-bench';
import type { VuRun } from './lifecycle/each-run';

/** Sends one pooling request of the VU's current run; the outcome (no output, no events) for the loop's gap, log and back-off. */
export function poolingIteration(b: Bench, cur: VuRun): Outcome {
  const pool = b.cfg.pooling;
  if (!pool) throw new Error('k6-llm-bench: a pooling iteration outside a pooling benchmark');
  const { run, variant } = cur;
  // Rerank's documents are text (llama.cpp refuses token ids there); embeddings take what the dialect takes.
  const promptsFor: ResolvedVariant = pool.task === 'rerank' && variant.promptKind !== 'text' ? { ...variant, promptKind: 'text' } : variant;
  const n = run.cell.batch ?? 1;
  const items: Prompt[] = [];
  for (let i = 0; i < n; i++) items.push(b.source.next(run, promptsFor).prompt);
  const query = pool.task === 'rerank' ? b.source.next(run, promptsFor).prompt : undefined;
  const route = poolingRoute(variant.dialect.name, pool.task);
  const vars = b.cfg.variants.find((v) => v.variant === variant.variant)?.vars;
  const ctx = { route: `POST ${route ?? '(none)'}`, dialectVar: vars?.dialect ?? 'DIALECT', modelVar: vars?.model ?? 'MODEL', model: variant.model };
  const startMs = Date.now();
  let result: PoolingResult;
  if (route === null) {
    result = {
      ok: false,
      status: 0,
      items: 0,
      dimension: null,
      promptTokens: null,
      error: classified('wrong_dialect', `${variant.dialect.name} has no ${pool.task} route.`),
    };
  } else {
    const res = http.post(variant.url + route, poolingBody({ task: pool.task, items, query, model: variant.model || undefined }), variant.params);
    result =
      res.status === 0
        ? {
            ok: false,
            status: 0,
            items: 0,
            dimension: null,
            promptTokens: null,
            error: classifyTransport(res.error_code, res.error, ctx.route, variant.url, b.cfg.requestTimeoutMs),
          }
        : readPooling(pool.task, n, res.status, typeof res.body === 'string' ? res.body : '', ctx);
  }
  const endMs = Date.now();
  recordPooling(result, startMs, endMs, { window: cur.window, slo: b.slo, add: b.add });
  return { result: asGeneration(result), startMs, endMs, events: null };
}
