import { test } from 'node:test';
import assert from 'node:assert/strict';
import { events, json, request, sim } from './helpers';

interface Usage {
  prompt_tokens: number;
  total_tokens: number;
  completion_tokens: number;
}
interface Chunk {
  id: string;
  object: string;
  created: number;
  model: string;
  choices: { index: number; text?: string; delta?: Record<string, string>; finish_reason: string | null; stop_reason?: string | null }[];
  usage?: Usage | null;
}

test('vllm POST /generate is 404 {"detail":"Not Found"} (the seed failure)', async () => {
  const s = await sim({ engine: 'vllm' });
  const r = await request(s.url, '/generate', { body: { text: 'hi', sampling_params: { max_new_tokens: 4 } } });
  assert.equal(r.status, 404);
  assert.equal(r.body, '{"detail":"Not Found"}');
  assert.equal(r.headers['content-type'], 'application/json');
  const u = await request(s.url, '/v2/whatever');
  assert.equal(u.status, 404);
  assert.equal(u.body, '{"detail":"Not Found"}');
});

test('vllm /v1/completions stream: delta text per step, usage only where asked', async () => {
  const s = await sim({ engine: 'vllm' });
  const plain = await request(s.url, '/v1/completions', { body: { model: 'qwen3-32b-sim', prompt: 'Once upon', max_tokens: 5, stream: true } });
  const ev = events<Chunk>(plain);
  assert.equal(ev.length, 5);
  assert.ok(ev.every((c) => c.object === 'text_completion' && c.usage === null && c.id.startsWith('cmpl-')));
  assert.match(
    plain.events[0]?.data ?? '',
    /^\{"id":"cmpl-[0-9a-f]{32}","object":"text_completion","created":\d+,"model":"qwen3-32b-sim","choices":\[\{"index":0,"text":"[^"]*","logprobs":null,"finish_reason":null,"stop_reason":null\}\],"usage":null\}$/,
  );
  assert.equal(ev[4]?.choices[0]?.finish_reason, 'length');
  assert.ok(plain.body.endsWith('data: [DONE]\n\n'));

  const withUsage = await request(s.url, '/v1/completions', {
    body: { prompt: [1, 2, 3, 4], max_tokens: 4, stream: true, stream_options: { include_usage: true } },
  });
  const wu = events<Chunk>(withUsage);
  assert.equal(wu.length, 5);
  const last = wu[4] as Chunk;
  assert.deepEqual(last.choices, []);
  assert.deepEqual(last.usage, { prompt_tokens: 4, total_tokens: 8, completion_tokens: 4 });
  assert.ok(wu.slice(0, 4).every((c) => c.usage === null));

  const cont = await request(s.url, '/v1/completions', {
    body: { prompt: [1, 2, 3], max_tokens: 4, stream: true, stream_options: { include_usage: true, continuous_usage_stats: true } },
  });
  const cu = events<Chunk>(cont);
  assert.deepEqual(
    cu.map((c) => c.usage?.completion_tokens),
    [1, 2, 3, 4, 4],
  );
});

test('vllm /v1/completions non-stream, stop strings, token-id prompts, batch prompts rejected', async () => {
  const s = await sim({ engine: 'vllm' });
  const r = await request(s.url, '/v1/completions', { body: { prompt: [[7, 8, 9]], max_tokens: 6 } });
  const o = json<Chunk & { usage: Usage }>(r);
  assert.equal(o.usage.prompt_tokens, 3);
  assert.equal(o.usage.completion_tokens, 6);
  assert.equal(o.choices[0]?.finish_reason, 'length');
  const def = json<Chunk & { usage: Usage }>(await request(s.url, '/v1/completions', { body: { prompt: 'x' } }));
  assert.equal(def.usage.completion_tokens, 16, 'vLLM completions default max_tokens is 16');
  const batch = await request(s.url, '/v1/completions', { body: { prompt: ['a', 'b'], max_tokens: 2 } });
  assert.equal(batch.status, 400);
  assert.equal(json<{ error: { type: string; code: number } }>(batch).error.code, 400);
  const text = o.choices[0]?.text ?? '';
  // Replay at the same arrival order on a fresh server to stop on a known substring.
  const s2 = await sim({ engine: 'vllm' });
  const stop = text.slice(4, 7);
  const st = json<Chunk>(await request(s2.url, '/v1/completions', { body: { prompt: [[7, 8, 9]], max_tokens: 6, stop } }));
  assert.equal(st.choices[0]?.finish_reason, 'stop');
  assert.equal(st.choices[0]?.stop_reason, stop);
  assert.equal(st.choices[0]?.text, text.slice(0, text.indexOf(stop)));
});

test('vllm chat stream: role-only first chunk, then content; usage chunk with choices []', async () => {
  const s = await sim({ engine: 'vllm' });
  const r = await request(s.url, '/v1/chat/completions', {
    body: { messages: [{ role: 'user', content: 'hi' }], max_completion_tokens: 3, stream: true, stream_options: { include_usage: true } },
  });
  const ev = events<Chunk>(r);
  assert.equal(ev.length, 5);
  assert.deepEqual(ev[0]?.choices[0]?.delta, { role: 'assistant', content: '' });
  assert.ok(ev.every((c) => c.object === 'chat.completion.chunk' || c.choices.length === 0));
  assert.ok(ev.slice(1, 4).every((c) => typeof c.choices[0]?.delta?.content === 'string' && !('role' in (c.choices[0]?.delta ?? {}))));
  assert.ok(!('usage' in (ev[1] as Chunk)), 'chat chunks omit unset usage');
  assert.equal(ev[3]?.choices[0]?.finish_reason, 'length');
  assert.deepEqual(ev[4]?.choices, []);
  assert.equal(ev[4]?.usage?.completion_tokens, 3);
  // ChatML prompt by the documented rule: <|im_start|> user \nhi <|im_end|> \n <|im_start|> assist ant \n
  assert.equal(ev[4]?.usage?.prompt_tokens, 9);
});

test('vllm chat with --reasoning-fraction streams reasoning_content before content; both count', async () => {
  const s = await sim({ engine: 'vllm', reasoningFraction: 0.5 });
  const r = await request(s.url, '/v1/chat/completions', {
    body: {
      messages: [{ role: 'user', content: 'think' }],
      max_tokens: 8,
      stream: true,
      stream_options: { include_usage: true, continuous_usage_stats: true },
    },
  });
  const ev = events<Chunk>(r).slice(1, -1);
  assert.equal(ev.length, 8);
  const kinds = ev.map((c) => Object.keys(c.choices[0]?.delta ?? {}).join(','));
  assert.deepEqual(kinds, ['reasoning_content', 'reasoning_content', 'reasoning_content', 'reasoning_content', 'content', 'content', 'content', 'content']);
  assert.deepEqual(
    ev.map((c) => c.usage?.completion_tokens),
    [1, 2, 3, 4, 5, 6, 7, 8],
  );
  const ns = json<{ choices: { message: { content: string; reasoning_content: string } }[] }>(
    await request(s.url, '/v1/chat/completions', { body: { messages: [{ role: 'user', content: 'think' }], max_tokens: 8 } }),
  );
  assert.ok(ns.choices[0]?.message.reasoning_content.length);
  assert.ok(ns.choices[0]?.message.content.length);
});

test('vllm errors: unknown model 404, context length 400, stream_options without stream, bad JSON', async () => {
  const s = await sim({ engine: 'vllm', maxModelLen: 50 });
  const m = await request(s.url, '/v1/completions', { body: { model: 'gpt-4', prompt: 'x' } });
  assert.equal(m.status, 404);
  assert.deepEqual(json(m), { error: { message: 'The model `gpt-4` does not exist.', type: 'NotFoundError', param: 'model', code: 404 } });
  const c = await request(s.url, '/v1/completions', { body: { prompt: Array.from({ length: 40 }, () => 5), max_tokens: 20 } });
  assert.equal(c.status, 400);
  assert.equal(
    json<{ error: { message: string } }>(c).error.message,
    "This model's maximum context length is 50 tokens. However, you requested 60 tokens (40 in the " +
      'messages, 20 in the completion). Please reduce the length of the messages or completion.',
  );
  const so = await request(s.url, '/v1/completions', { body: { prompt: 'x', stream_options: { include_usage: true } } });
  assert.equal(so.status, 400);
  const bad = await request(s.url, '/v1/chat/completions', { body: 'nope' });
  assert.equal(bad.status, 400);
  assert.equal(json<{ error: { type: string } }>(bad).error.type, 'BadRequestError');
  const miss = await request(s.url, '/v1/chat/completions', { body: { max_tokens: 3 } });
  assert.equal(miss.status, 400);
  assert.match(json<{ error: { message: string } }>(miss).error.message, /'messages'.*Field required/);
});

test('vllm /health empty 200, /v1/models with max_model_len, /version', async () => {
  const s = await sim({ engine: 'vllm' });
  const h = await request(s.url, '/health');
  assert.equal(h.status, 200);
  assert.equal(h.body, '');
  const m = json<{ data: { id: string; owned_by: string; max_model_len: number }[] }>(await request(s.url, '/v1/models'));
  assert.deepEqual([m.data[0]?.id, m.data[0]?.owned_by, m.data[0]?.max_model_len], ['qwen3-32b-sim', 'vllm', 32768]);
  const v = json<{ version: string }>(await request(s.url, '/version'));
  assert.match(v.version, /^\d+\.\d+\.\d+/);
});

test('--api-key: /v1 needs the bearer token (401 {"error":"Unauthorized"}), health stays open', async () => {
  const s = await sim({ engine: 'vllm', apiKey: 'sekret' });
  const no = await request(s.url, '/v1/completions', { body: { prompt: 'x', max_tokens: 1 } });
  assert.equal(no.status, 401);
  assert.equal(no.body, '{"error":"Unauthorized"}');
  assert.equal((await request(s.url, '/v1/models', { headers: { authorization: 'Bearer wrong' } })).status, 401);
  assert.equal((await request(s.url, '/health')).status, 200);
  const ok = await request(s.url, '/v1/completions', { body: { prompt: 'x', max_tokens: 1 }, headers: { authorization: 'Bearer sekret' } });
  assert.equal(ok.status, 200);
  const sg = await sim({ engine: 'sglang', apiKey: 'k' });
  assert.equal((await request(sg.url, '/generate', { body: { text: 'x' } })).status, 401);
  assert.equal((await request(sg.url, '/health_generate')).status, 200);
});
