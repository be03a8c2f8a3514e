// The embeddings and rerank bundles against real llama-servers (test/real-engine/servers.ts), one
// started with --embeddings --pooling mean, one with --reranking, on real k6. The tiny generated
// model (make-models.py) has no pooling type of its own, hence --pooling mean; rank pooling scores
// with its output head, so it reranks too (scores meaningless, counts real).
//
// Embeddings: token-id items of ISL tokens get no BOS, so the server's usage, summed by the suite,
// must be exactly items × ISL, and every vector 1,024 floats (the model's width). Rerank: text, so
// its tokens are the server's alone; the suite must report what the replies said, items = ok ×
// BATCH. A generous GRACEFUL_STOP lets every request end: this CPU model pools about 20 tokens/s.
// About 10 s for embeddings; rerank (another server, ~12 s) runs with TEST_LONG=1 only, for CI's budget.
// test-runner: alone (llama.cpp uses both cores)
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { explain, RUNNERS } from '../scenarios/harness';
import { llamaUnavailableReason, startLlamaServer, type LlamaServer } from './servers';

interface PoolingJson {
  runs: Array<{ ok: number; failed: number; items: number; input_tokens: number | null; dimension: number | null; items_per_second: number | null }>;
}

const ISL = 8;
const long = process.env.TEST_LONG === '1' ? null : 'TEST_LONG=1 runs it (a second llama-server, rerank of text documents, ~12 s)';
const common = { CONCURRENCY: '1', SLICES: '1', GRACEFUL_STOP: '15s', WARMUP_REQUESTS: '0', CACHE_RESET: 'never', TRANSPORT: 'http', ISL: String(ISL) };

for (const runner of RUNNERS) {
  describe(`pooling on real llama.cpp, ${runner.name}`, async () => {
    const unavailable = runner.skip ?? (await llamaUnavailableReason());
    let emb: LlamaServer | null = null;
    let rr: LlamaServer | null = null;
    before(async () => {
      if (unavailable) return;
      [emb, rr] = await Promise.all([
        startLlamaServer({ parallel: 1, ctx: 1024, extraArgs: ['--embeddings', '--pooling', 'mean'] }),
        long === null ? startLlamaServer({ parallel: 1, ctx: 1024, extraArgs: ['--reranking'] }) : null,
      ]);
    });
    after(async () => {
      await Promise.all([emb?.stop(), rr?.stop()]);
    });

    test('embeddings: items × ISL tokens by the server, one 1,024-float dimension', { skip: unavailable ?? false }, async () => {
      const run = await runner.run('embeddings', { ...common, TARGET_URL: (emb as LlamaServer).url, BATCH: '2', DURATION: '3s' }, 120_000);
      assert.equal(run.result.exitCode, 0, explain(run));
      const p = (run.summary as unknown as { pooling: PoolingJson }).pooling;
      const r = p.runs[0];
      assert.ok(r.ok >= 1 && r.failed === 0, explain(run));
      assert.equal(r.items, 2 * r.ok);
      assert.equal(r.input_tokens, r.items * ISL, 'the server counted each token-id item as ISL tokens');
      assert.equal(r.dimension, 1024);
    });

    test('rerank: a score per document, tokens from the replies', { skip: unavailable ?? long ?? false }, async () => {
      const run = await runner.run('rerank', { ...common, TARGET_URL: (rr as LlamaServer).url, BATCH: '2', DURATION: '4s' }, 120_000);
      assert.equal(run.result.exitCode, 0, explain(run));
      const r = (run.summary as unknown as { pooling: PoolingJson }).pooling.runs[0];
      assert.ok(r.ok >= 1 && r.failed === 0, explain(run));
      assert.equal(r.items, 2 * r.ok);
      assert.ok(r.input_tokens !== null && r.input_tokens > r.items * ISL, `query and document per pair, BOS and separators: ${r.input_tokens}`);
      assert.equal(r.dimension, null, 'scores, not vectors');
    });
  });
}
