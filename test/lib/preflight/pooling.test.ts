// The pooling benchmarks' preflight check (lib/preflight/pooling-preflight.ts): one item on the dialect's
// pooling route; llama.cpp's captured 501 (no --embeddings / --reranking) becomes no_pooling_route
// with the flag to start it with, nothing listening is unreachable, a dialect without the route
// says so before sending anything.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { checkPooling } from '../../../lib/preflight/pooling-preflight';
import type { HttpPort, HttpReply } from '../../../lib/http-port';
import type { BenchConfig, VariantConfig } from '../../../lib/config/config-types';

const CORPUS = join(__dirname, '..', '..', 'fixtures', 'corpus', 'llamacpp');
const t = {
  variant: 'target',
  url: 'http://h:1',
  dialect: 'auto',
  apiKey: '',
  vars: { url: 'TARGET_URL', dialect: 'DIALECT', model: 'MODEL', apiKey: 'API_KEY' },
} as unknown as VariantConfig;
const cfg = (task: 'embeddings' | 'rerank'): Pick<BenchConfig, 'pooling' | 'preflightTimeoutMs'> => ({
  pooling: { task, batch: [1] },
  preflightTimeoutMs: 1000,
});

function port(reply: Partial<HttpReply>): HttpPort & { sent: Array<{ url: string; body: string }> } {
  const sent: Array<{ url: string; body: string }> = [];
  const r: HttpReply = { status: 200, body: '', contentType: 'application/json', error: '', errorCode: 0, ...reply };
  return { sent, get: () => r, post: (url, body) => (sent.push({ url, body }), r), sleep: () => undefined, now: () => 0 };
}

test('a llama-server without the flag: no_pooling_route, and the flag named', () => {
  for (const [task, file, flag] of [
    ['embeddings', 'b11669-pool-embeddings-no-flag.json', '--embeddings'],
    ['rerank', 'b11669-pool-rerank-no-flag.json', '--reranking'],
  ] as const) {
    const io = port({ status: 501, body: readFileSync(join(CORPUS, file), 'utf8') });
    const r = checkPooling(io, cfg(task), t, 'llamacpp', 'm');
    assert.ok('reason' in r && r.reason === 'no_pooling_route', JSON.stringify(r));
    assert.match(r.message, new RegExp(flag));
    assert.equal(io.sent[0].url, `http://h:1/v1/${task}`);
  }
});

test('a served route: the reply read; nothing listening: unreachable; no route on the dialect: nothing sent', () => {
  const ok = checkPooling(port({ body: readFileSync(join(CORPUS, 'b11669-pool-embeddings-one.json'), 'utf8') }), cfg('embeddings'), t, 'openai', 'm');
  assert.ok(!('reason' in ok) && ok.ok && ok.dimension === 1024);
  const down = checkPooling(port({ status: 0, error: 'dial tcp: connection refused', errorCode: 1212 }), cfg('embeddings'), t, 'openai', 'm');
  assert.ok('reason' in down && down.reason === 'unreachable', JSON.stringify(down));
  const io = port({});
  const none = checkPooling(io, cfg('rerank'), t, 'responses', 'm');
  assert.ok('reason' in none && none.reason === 'wrong_dialect' && /no rerank route/.test(none.message));
  assert.equal(io.sent.length, 0);
});
