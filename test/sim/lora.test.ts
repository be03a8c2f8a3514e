// The simulator's LoRA adapters: listed, named by each engine's field, unknown ones refused with the
// engine's error, recorded in the truth; a batch holds at most --max-loras distinct adapters and a
// cold one costs a load.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LoraSlots } from '../../sim/lora';
import { resolveOptions } from '../../sim/options';
import { json, request, sim } from './helpers';

test('LoraSlots: at most max distinct adapters in a batch; a cold one is charged once; the least recently used unused one is evicted', () => {
  const s = new LoraSlots(2, 30);
  assert.equal(s.admit(null, new Set()), true, 'the base model needs no slot');
  assert.equal(s.admit('a', new Set()), true);
  assert.equal(s.takeLoadMs(), 30, 'a was cold');
  assert.equal(s.admit('a', new Set(['a'])), true);
  assert.equal(s.takeLoadMs(), 0, 'a is loaded now');
  assert.equal(s.admit('b', new Set(['a'])), true);
  assert.equal(s.admit('c', new Set(['a', 'b'])), false, 'a third adapter waits for a slot');
  assert.equal(s.takeLoadMs(), 30);
  // With only b still running, c comes in and evicts a (least recently used and unused).
  assert.equal(s.admit('c', new Set(['b'])), true);
  assert.equal(s.admit('a', new Set(['b', 'c'])), false);
  assert.equal(s.admit('a', new Set()), true);
  assert.equal(s.loads, 4, 'a, b, c, then a again after its eviction');
});

test('--lora-adapters: bad names are refused', () => {
  assert.throws(() => resolveOptions({ loraAdapters: 'a,,b' }), /--lora-adapters: invalid adapter name ''/);
  assert.throws(() => resolveOptions({ loraAdapters: 'a,a' }), /named twice/);
});

test('vLLM: adapters listed in /v1/models with their parent, named by model; an unknown model 404s; the truth records the adapter', async () => {
  const s = await sim({ engine: 'vllm', loraAdapters: 'sql,chat' });
  const models = json<{ data: Array<{ id: string; parent: string | null }> }>(await request(s.url, '/v1/models'));
  assert.deepEqual(
    models.data.map((m) => [m.id, m.parent]),
    [
      ['qwen3-32b-sim', null],
      ['sql', 'qwen3-32b-sim'],
      ['chat', 'qwen3-32b-sim'],
    ],
  );
  assert.equal((await request(s.url, '/v1/completions', { body: { model: 'sql', prompt: [1001, 1002], max_tokens: 2 } })).status, 200);
  assert.equal((await request(s.url, '/v1/completions', { body: { model: 'qwen3-32b-sim', prompt: [1001, 1002], max_tokens: 3 } })).status, 200);
  const bad = await request(s.url, '/v1/completions', { body: { model: 'nope', prompt: [1001], max_tokens: 2 } });
  assert.equal(bad.status, 404);
  assert.match(bad.body, /The model `nope` does not exist\./);
  const recs = s
    .groundTruth()
    .requests.filter((r) => r.status === 200)
    .map((r) => [r.maxNewTokens, r.adapter]);
  assert.deepEqual(recs, [
    [2, 'sql'],
    [3, null],
  ]);
});

test("SGLang /generate: lora_path names the adapter; an unknown one gets SGLang's 400", async () => {
  const s = await sim({ engine: 'sglang', loraAdapters: 'sql' });
  assert.equal((await request(s.url, '/generate', { body: { input_ids: [5, 6], sampling_params: { max_new_tokens: 2 }, lora_path: 'sql' } })).status, 200);
  const bad = await request(s.url, '/generate', { body: { input_ids: [5, 6], sampling_params: { max_new_tokens: 2 }, lora_path: 'x' } });
  assert.equal(bad.status, 400);
  assert.match(bad.body, /The following requested LoRA adapters are not loaded: x\\nLoaded adapters: dict_keys\(\['sql'\]\)/);
  assert.deepEqual(
    s
      .groundTruth()
      .requests.filter((r) => r.status === 200)
      .map((r) => r.adapter),
    ['sql'],
  );
});

test('mixing adapters shrinks the batch: 4 requests of 4 adapters under --max-loras 1 run one at a time, of one adapter together', async () => {
  const s = await sim({ engine: 'vllm', loraAdapters: 'a,b,c,d', maxLoras: 1, loraLoadMs: 0 });
  const send = (model: string) => request(s.url, '/v1/completions', { body: { model, prompt: [1001, 1002, 1003], max_tokens: 8, ignore_eos: true } });
  await Promise.all(['a', 'b', 'c', 'd'].map(send));
  await Promise.all(['a', 'a', 'a', 'a'].map(send));
  // Four adapters one at a time: 4 × 8 steps of one sequence each; then one adapter: 8 steps of all four.
  const batches = s.groundTruth().steps.map((x) => x.batch);
  assert.ok(
    batches.slice(0, 32).every((b) => b === 1),
    `mixed adapters: one sequence per batch: ${batches.join(',')}`,
  );
  // The second four arrive over a step or two, then share every step.
  assert.equal(Math.max(...batches.slice(32)), 4, `one adapter: all four together: ${batches.join(',')}`);
  assert.ok(batches.length < 32 + 16, `one adapter: about 8 steps, not 32: ${batches.join(',')}`);
});
