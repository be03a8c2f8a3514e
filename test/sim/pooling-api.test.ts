// The simulator's pooling routes (sim/api/pooling.ts): the reply shapes the suite's reader takes
// (lib/dialects/pooling.ts), deterministic vectors, usage and the ground truth's items and tokens,
// and a pass that batches what waits (two requests at once cost less than two in a row).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { request, sim, nowMs } from './helpers';
import { readPooling } from '../../lib/dialects/pooling';
import { EMBEDDING_DIM } from '../../sim/api/pooling';

const ctx = (route: string) => ({ route: `POST ${route}`, dialectVar: 'DIALECT', modelVar: 'MODEL' });
const ids = (from: number, n: number) => Array.from({ length: n }, (_, i) => from + i);

test('embeddings: one vector per item, one dimension, usage and truth agree, same item same vector', async () => {
  const s = await sim({ engine: 'vllm' });
  const body = { model: 'qwen3-32b-sim', input: [ids(100, 16), ids(200, 16), ids(100, 16)] };
  const r = await request(s.url, '/v1/embeddings', { body });
  const read = readPooling('embeddings', 3, r.status, r.body, ctx('/v1/embeddings'));
  assert.equal(read.ok, true, read.error?.message);
  assert.equal(read.dimension, EMBEDDING_DIM);
  assert.equal(read.promptTokens, 48);
  const data = (JSON.parse(r.body) as { data: Array<{ embedding: number[] }> }).data;
  assert.deepEqual(data[0].embedding, data[2].embedding);
  assert.notDeepEqual(data[0].embedding, data[1].embedding);
  const truth = (await request(s.url, '/sim/requests')).body;
  const rec = (JSON.parse(truth) as Array<{ route: string; items?: number; promptTokens: number }>).filter((x) => x.route === '/v1/embeddings');
  assert.deepEqual(
    rec.map((x) => [x.items, x.promptTokens]),
    [[3, 48]],
  );
  // A string is one item; a wrong model is vLLM's 404.
  const one = await request(s.url, '/v1/embeddings', { body: { input: 'hello world' } });
  assert.equal(readPooling('embeddings', 1, one.status, one.body, ctx('/v1/embeddings')).ok, true);
  const bad = await request(s.url, '/v1/embeddings', { body: { model: 'other', input: 'x' } });
  assert.equal(readPooling('embeddings', 1, bad.status, bad.body, ctx('/v1/embeddings')).error?.class, 'unknown_model');
});

test('rerank: a score per document, the query counted once per document', async () => {
  const s = await sim({ engine: 'sglang' });
  const r = await request(s.url, '/v1/rerank', { body: { query: 'alpha beta', documents: ['gamma', 'delta epsilon', 'zeta'] } });
  const read = readPooling('rerank', 3, r.status, r.body, ctx('/v1/rerank'));
  assert.equal(read.ok, true, read.error?.message);
  const truth = JSON.parse((await request(s.url, '/sim/requests')).body) as Array<{ route: string; items?: number; promptTokens: number }>;
  const rec = truth.find((x) => x.route === '/v1/rerank');
  assert.equal(rec?.items, 3);
  assert.equal(read.promptTokens, rec?.promptTokens);
  const ids = await request(s.url, '/v1/rerank', { body: { query: 'q', documents: [[1, 2]] } });
  assert.equal(ids.status, 400);
});

test('a pass batches what waits: four requests at once end sooner than four in a row would', async () => {
  // stepBaseMs dominates at 16 tokens: one pass costs about base, four in a row about 4 × base.
  const s = await sim({ engine: 'vllm', timeScale: 1, stepBaseMs: 60, prefillTokenMs: 0.01 });
  const body = { input: [ids(100, 16)] };
  const t0 = nowMs();
  await request(s.url, '/v1/embeddings', { body });
  const single = nowMs() - t0;
  const t1 = nowMs();
  await Promise.all([1, 2, 3, 4].map(() => request(s.url, '/v1/embeddings', { body })));
  const four = nowMs() - t1;
  assert.ok(single >= 55, `one request ${single.toFixed(0)} ms`);
  // At most two passes (the first request alone, the other three together), never four.
  assert.ok(four < 3 * single, `four at once ${four.toFixed(0)} ms vs one ${single.toFixed(0)} ms`);
});
