import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Tokenizer } from '../../sim/tokenizer';
import { events, json, request, sim } from './helpers';

interface Meta {
  id: string;
  finish_reason: null | { type: string; length?: number; matched?: unknown; message?: string; status_code?: number };
  prompt_tokens: number;
  completion_tokens: number;
  cached_tokens: number;
  e2e_latency?: number;
  spec_verify_ct?: number;
}
interface GenOut {
  text: string;
  output_ids: number[];
  meta_info: Meta;
}

test('sglang /generate non-stream: {text, output_ids, meta_info}; input_ids count exactly', async () => {
  const s = await sim();
  const r = await request(s.url, '/generate', { body: { input_ids: [5, 6, 7, 8, 9], sampling_params: { max_new_tokens: 12, ignore_eos: true } } });
  assert.equal(r.status, 200);
  assert.match(String(r.headers['content-type']), /^application\/json/);
  const o = json<GenOut>(r);
  assert.deepEqual(Object.keys(o), ['text', 'output_ids', 'meta_info']);
  assert.equal(o.output_ids.length, 12);
  assert.ok(o.output_ids.every((id) => Number.isInteger(id) && id >= 0 && id < 151936));
  assert.equal(o.text, new Tokenizer(151936).decode(o.output_ids), 'text is the decoding of output_ids');
  assert.equal(o.meta_info.prompt_tokens, 5);
  assert.equal(o.meta_info.completion_tokens, 12);
  assert.deepEqual(o.meta_info.finish_reason, { type: 'length', length: 12 });
  assert.equal(typeof o.meta_info.e2e_latency, 'number');
  assert.match(o.meta_info.id, /^[0-9a-f]{32}$/);
  // A text prompt is tokenized by the documented rule.
  const t = await request(s.url, '/generate', { body: { text: 'Hello, world! 12345678', sampling_params: { max_new_tokens: 1 } } });
  assert.equal(json<GenOut>(t).meta_info.prompt_tokens, new Tokenizer(151936).encode('Hello, world! 12345678').length);
  assert.equal(new Tokenizer(151936).encode('Hello, world! 12345678').length, 6); // Hello , _world ! _123456 78
});

test('sglang /generate stream: headers first, cumulative text and new output_ids per step, finish_reason only at the end, [DONE]', async () => {
  const s = await sim();
  const r = await request(s.url, '/generate', { body: { text: 'a b c', sampling_params: { max_new_tokens: 6, ignore_eos: true }, stream: true } });
  assert.equal(r.headers['content-type'], 'text/event-stream; charset=utf-8');
  assert.match(r.body, /^data: \{"text":/);
  assert.ok(r.body.endsWith('data: [DONE]\n\n'));
  const evs = events<GenOut>(r);
  assert.equal(evs.length, 6, 'one event per step');
  for (let i = 0; i < evs.length; i++) {
    const e = evs[i] as GenOut;
    assert.equal(e.meta_info.completion_tokens, i + 1);
    assert.equal(e.output_ids.length, 1, 'output_ids carry only the new tokens');
    if (i > 0) assert.ok(e.text.startsWith((evs[i - 1] as GenOut).text), 'cumulative text');
    assert.equal(e.meta_info.finish_reason === null, i < evs.length - 1);
    assert.equal('e2e_latency' in e.meta_info, i === evs.length - 1);
  }
  assert.ok(r.headersMs < (r.events[0]?.t ?? 0), 'headers arrive before the first token');
});

test('sglang --incremental-streaming-output streams deltas; --stream-interval batches steps', async () => {
  const s = await sim({ incrementalStreamingOutput: true, streamInterval: 3 });
  const r = await request(s.url, '/generate', { body: { input_ids: [1, 2], sampling_params: { max_new_tokens: 10, ignore_eos: true }, stream: true } });
  const evs = events<GenOut>(r);
  // First token at once, then every 3 steps, the last at finish: 1, 4, 7, 10.
  assert.deepEqual(
    evs.map((e) => e.meta_info.completion_tokens),
    [1, 4, 7, 10],
  );
  assert.deepEqual(
    evs.map((e) => e.output_ids.length),
    [1, 3, 3, 3],
  );
  const full = await request(s.url, '/generate', { body: { input_ids: [1, 2], sampling_params: { max_new_tokens: 10, ignore_eos: true } } });
  assert.equal(json<GenOut>(full).output_ids.length, 10);
});

test('sglang stop strings end generation with {"type":"stop","matched":...}; EOS with the token id', async () => {
  const s = await sim({ eosRate: 0.3 });
  const base = await request(s.url, '/generate', { body: { input_ids: [42], sampling_params: { max_new_tokens: 30, ignore_eos: true } } });
  const text = json<GenOut>(base).text;
  const stop = text.slice(10, 13);
  // The same prompt at a different arrival gives different text, so stop on a string from this reply.
  const s2 = await sim({ eosRate: 0.3 });
  const r = await request(s2.url, '/generate', { body: { input_ids: [42], sampling_params: { max_new_tokens: 30, ignore_eos: true, stop: [stop] } } });
  const o = json<GenOut>(r);
  assert.deepEqual(o.meta_info.finish_reason, { type: 'stop', matched: stop });
  assert.equal(o.text, text.slice(0, text.indexOf(stop)));
  const eos = await request(s.url, '/generate', { body: { input_ids: [42], sampling_params: { max_new_tokens: 200 } } });
  const e = json<GenOut>(eos);
  assert.equal(e.meta_info.finish_reason?.type, 'stop');
  assert.equal(e.meta_info.finish_reason?.matched, 151645);
  assert.ok(e.meta_info.completion_tokens < 200);
});

test('sglang errors: context length, missing prompt, malformed JSON, unknown route', async () => {
  const s = await sim({ maxModelLen: 100 });
  const long = await request(s.url, '/generate', { body: { input_ids: Array.from({ length: 120 }, (_, i) => i), sampling_params: { max_new_tokens: 4 } } });
  assert.equal(long.status, 400);
  assert.deepEqual(json(long), { error: { message: "The input (120 tokens) is longer than the model's context length (100 tokens)." } });
  const over = await request(s.url, '/generate', { body: { input_ids: [1, 2, 3], sampling_params: { max_new_tokens: 98 } } });
  assert.equal(over.status, 400);
  assert.match(
    json<{ error: { message: string } }>(over).error.message,
    /maximum context length of 100 tokens. You requested a total of 101 tokens: 3 tokens from the input messages and 98 tokens/,
  );
  const none = await request(s.url, '/generate', { body: { sampling_params: {} } });
  assert.equal(none.status, 400);
  assert.deepEqual(json(none), { error: { message: 'Either text, input_ids or input_embeds should be provided.' } });
  const bad = await request(s.url, '/generate', { body: '{"text": "x",' });
  assert.equal(bad.status, 400);
  assert.match(json<{ error: { message: string } }>(bad).error.message, /JSON decode error/);
  const oov = await request(s.url, '/generate', { body: { input_ids: [1, 999999] } });
  assert.equal(oov.status, 400);
  const nf = await request(s.url, '/nope');
  assert.equal(nf.status, 404);
  assert.equal(nf.body, '{"detail":"Not Found"}');
  const na = await request(s.url, '/generate', { method: 'GET' });
  assert.equal(na.status, 405);
  assert.equal(na.body, '{"detail":"Method Not Allowed"}');
});

test('sglang info and health routes', async () => {
  const s = await sim({ spec: 'mtp' });
  const h = await request(s.url, '/health');
  assert.equal(h.status, 200);
  assert.equal(h.body, '');
  const t0 = performance.now();
  const hg = await request(s.url, '/health_generate');
  assert.equal(hg.status, 200);
  // It checks for output once a (model) second: 50 ms at time-scale 20.
  assert.ok(performance.now() - t0 >= 45, 'health_generate answers at its first once-a-second check');
  const mi = json<{ model_path: string; is_generation: boolean }>(await request(s.url, '/get_model_info'));
  assert.equal(mi.model_path, 'qwen3-32b-sim');
  assert.equal(mi.is_generation, true);
  await request(s.url, '/generate', { body: { input_ids: [1], sampling_params: { max_new_tokens: 64, ignore_eos: true } } });
  const si = json<{ internal_states: { avg_spec_accept_length: number }[]; speculative_algorithm: string; context_length: number }>(
    await request(s.url, '/get_server_info'),
  );
  assert.equal(si.speculative_algorithm, 'NEXTN');
  assert.equal(si.context_length, 32768);
  const al = si.internal_states[0]?.avg_spec_accept_length ?? 0;
  assert.ok(al > 1 && al <= 4, `lifetime AL ${al}`);
  const models = json<{ object: string; data: { id: string; owned_by: string; max_model_len: number }[] }>(await request(s.url, '/v1/models'));
  assert.equal(models.object, 'list');
  assert.equal(models.data[0]?.id, 'qwen3-32b-sim');
  assert.equal(models.data[0]?.owned_by, 'sglang');
  assert.equal(models.data[0]?.max_model_len, 32768);
});

test('sglang serves the OpenAI routes too, with its flat error shape', async () => {
  const s = await sim({ maxModelLen: 64 });
  const c = await request(s.url, '/v1/completions', { body: { model: 'anything', prompt: 'hi', max_tokens: 3, stream: true } });
  const evs = events<{ choices: { text: string; matched_stop: null; finish_reason: string | null }[]; usage: null }>(c);
  assert.equal(evs.length, 3);
  assert.ok(evs.every((e) => 'matched_stop' in (e.choices[0] ?? {}) && e.usage === null));
  assert.equal(evs[2]?.choices[0]?.finish_reason, 'length');
  const chat = await request(s.url, '/v1/chat/completions', { body: { messages: [{ role: 'user', content: 'hi' }], max_tokens: 2 } });
  assert.equal(json<{ choices: { message: { role: string } }[] }>(chat).choices[0]?.message.role, 'assistant');
  const err = await request(s.url, '/v1/completions', { body: { prompt: [1, 2, 3], max_tokens: 100 } });
  assert.equal(err.status, 400);
  const e = json<Record<string, unknown>>(err);
  assert.equal(e.object, 'error');
  assert.equal(e.code, 400);
  assert.match(String(e.message), /maximum context length of 64 tokens/);
});
