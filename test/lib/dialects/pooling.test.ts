// Pooling requests (lib/dialects/pooling.ts): the bodies, and the captured llama-server replies
// (test/fixtures/corpus, kind embeddings or rerank) read as the manifest says the server answered:
// items, the vectors' dimension, the server's own token count, and an error's class and advice.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { poolingBody, readPooling, type PoolingTask } from '../../../lib/dialects/pooling';
import { poolingRoute } from '../../../lib/dialects/index';
import { DIALECT_NAMES } from '../../../lib/dialects/index';
import type { Prompt } from '../../../lib/dialects/types';

const DIR = join(__dirname, '..', '..', 'fixtures', 'corpus');
interface Entry {
  file: string;
  kind: string;
  route: string;
  status: number;
  captured: boolean;
  expect: { ok: boolean; class: string | null; items: number; dimension: number | null; prompt_tokens: number | null };
}
const MANIFEST = (JSON.parse(readFileSync(join(DIR, 'manifest.json'), 'utf8')) as Entry[]).filter((e) => e.kind === 'embeddings' || e.kind === 'rerank');
const ctx = (route: string) => ({ route: `POST ${route}`, dialectVar: 'DIALECT', modelVar: 'MODEL' });
const tokens = (ids: number[]): Prompt => ({ kind: 'tokens', json: JSON.stringify(ids), length: ids.length });
const text = (t: string): Prompt => ({ kind: 'text', text: t });

describe('captured pooling replies', () => {
  test('the corpus holds at least 4 real embedding replies and real rerank replies', () => {
    const real = (k: string) => MANIFEST.filter((e) => e.kind === k && e.captured && e.expect.ok).length;
    assert.ok(real('embeddings') >= 4, `${real('embeddings')} embedding replies`);
    assert.ok(real('rerank') >= 1, `${real('rerank')} rerank replies`);
  });
  for (const e of MANIFEST) {
    test(`${e.file}`, () => {
      const body = readFileSync(join(DIR, e.file), 'utf8');
      const sent = e.expect.ok ? e.expect.items : 1;
      const r = readPooling(e.kind as PoolingTask, sent, e.status, body, ctx(e.route));
      assert.equal(r.ok, e.expect.ok, r.error?.message);
      assert.equal(r.error?.class ?? null, e.expect.class);
      assert.equal(r.items, e.expect.items);
      assert.equal(r.dimension, e.expect.dimension);
      // The server's count, as its usage said: checked against the body itself, not only the manifest.
      const usage = e.expect.ok ? (JSON.parse(body) as { usage: { prompt_tokens: number } }).usage.prompt_tokens : null;
      assert.equal(r.promptTokens, usage);
      assert.equal(r.promptTokens, e.expect.prompt_tokens);
      if (e.expect.ok) {
        // One vector more or fewer than sent is a broken reply, not a success.
        assert.equal(readPooling(e.kind as PoolingTask, sent + 1, e.status, body, ctx(e.route)).error?.class, 'invalid_reply');
      }
    });
  }
  test('a server without the flag is told how to turn the route on', () => {
    const emb = MANIFEST.find((e) => e.file.endsWith('embeddings-no-flag.json'));
    const rr = MANIFEST.find((e) => e.file.endsWith('rerank-no-flag.json'));
    assert.ok(emb && rr);
    const m1 = readPooling('embeddings', 1, 501, readFileSync(join(DIR, emb.file), 'utf8'), ctx(emb.route)).error?.message ?? '';
    const m2 = readPooling('rerank', 1, 501, readFileSync(join(DIR, rr.file), 'utf8'), ctx(rr.route)).error?.message ?? '';
    assert.match(m1, /--embeddings/);
    assert.match(m2, /--reranking/);
    // A 404 for the route (a server without it) says the same; a 404 naming the model does not.
    assert.match(readPooling('embeddings', 1, 404, '{"detail":"Not Found"}', ctx('/v1/embeddings')).error?.message ?? '', /--embeddings/);
    assert.equal(
      readPooling('embeddings', 1, 404, '{"error":{"message":"The model `x` does not exist."}}', ctx('/v1/embeddings')).error?.class,
      'unknown_model',
    );
  });
});

describe('pooling replies that must not pass', () => {
  const r = (task: PoolingTask, sent: number, body: string) => readPooling(task, sent, 200, body, ctx('/v1/x'));
  test('vectors of two lengths, a missing vector, no usage, bad rerank indexes', () => {
    assert.match(r('embeddings', 2, '{"data":[{"embedding":[1,2]},{"embedding":[1,2,3]}]}').error?.message ?? '', /2, 3 dimensions/);
    assert.equal(r('embeddings', 1, '{"data":[{"embedding":[]}]}').error?.class, 'invalid_reply');
    assert.equal(r('embeddings', 1, 'not json').error?.class, 'invalid_reply');
    assert.equal(r('embeddings', 1, '{"object":"list"}').error?.class, 'invalid_reply');
    const noUsage = r('embeddings', 1, '{"data":[{"embedding":[0.5,0.5]}]}');
    assert.equal(noUsage.ok, true);
    assert.equal(noUsage.promptTokens, null, 'no usage: not measured, never a guess');
    assert.equal(noUsage.dimension, 2);
    assert.equal(r('rerank', 2, '{"results":[{"index":0,"relevance_score":1},{"index":0,"relevance_score":0.5}]}').error?.class, 'invalid_reply');
    assert.equal(r('rerank', 1, '{"results":[{"index":0}]}').error?.class, 'invalid_reply');
  });
});

describe('pooling bodies and routes', () => {
  test('embeddings: token ids as arrays, text as strings, one list', () => {
    const b = JSON.parse(poolingBody({ task: 'embeddings', items: [tokens([1, 2]), tokens([3])], model: 'm' })) as unknown;
    assert.deepEqual(b, { model: 'm', input: [[1, 2], [3]] });
    assert.deepEqual(JSON.parse(poolingBody({ task: 'embeddings', items: [text('a "b"')] })), { input: ['a "b"'] });
  });
  test('rerank: a query and text documents; token ids refused before sending', () => {
    assert.deepEqual(JSON.parse(poolingBody({ task: 'rerank', items: [text('x'), text('y')], query: text('q') })), { query: 'q', documents: ['x', 'y'] });
    assert.throws(() => poolingBody({ task: 'rerank', items: [tokens([1])], query: text('q') }), /text documents/);
    assert.throws(() => poolingBody({ task: 'rerank', items: [text('x')] }), /query/);
  });
  test('every built-in dialect says which pooling routes its servers have', () => {
    // From each dialect's traits: the OpenAI-compatible servers have both, Responses embeddings alone, Messages neither.
    const both = ['/v1/embeddings', '/v1/rerank'];
    assert.deepEqual(Object.fromEntries(DIALECT_NAMES.map((d) => [d, [poolingRoute(d, 'embeddings'), poolingRoute(d, 'rerank')]])), {
      sglang: both,
      openai: both,
      'openai-chat': both,
      llamacpp: both,
      anthropic: [null, null],
      responses: ['/v1/embeddings', null],
    });
    assert.equal(poolingRoute('llamacpp', 'rerank'), '/v1/rerank');
    assert.equal(poolingRoute('anthropic', 'embeddings'), null);
    assert.equal(poolingRoute('no-such', 'embeddings'), null);
  });
});
