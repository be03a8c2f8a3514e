// A token-id prompt beyond the model's vocabulary: the simulated SGLang and vLLM refuse it with
// 400, and the dialects' classification tells the user to lower VOCAB_SIZE.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createDialect, type DialectName } from '../../lib/dialects/index';
import { request, sim } from './helpers';

const prompt = { kind: 'tokens' as const, json: '[1000,1500,31999]', length: 3 };

for (const [engine, name] of [
  ['sglang', 'sglang'],
  ['vllm', 'openai'],
] as Array<['sglang' | 'vllm', DialectName]>) {
  test(`${engine} simulator with a 2000-token vocabulary: 400 classified with VOCAB_SIZE advice`, async () => {
    const s = await sim({ engine, vocabSize: 2000 });
    const d = createDialect(name, { dialectVar: 'DIALECT', modelVar: 'MODEL' });
    const w = d.build({ prompt, maxTokens: 2, ignoreEos: true, temperature: 0, stream: false, model: 'qwen3-32b-sim' });
    const r = await request(s.url, w.path, { body: w.body });
    assert.equal(r.status, 400);
    const result = d.parseBody(r.status, r.body, String(r.headers['content-type'] ?? ''));
    assert.equal(result.error?.class, 'bad_request');
    assert.match(result.error?.message ?? '', /out of vocabulary.*set VOCAB_SIZE to the model's vocabulary size or less/);
  });
}
