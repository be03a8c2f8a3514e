import { test } from 'node:test';
import assert from 'node:assert/strict';
import { events, json, request, sim, sleep } from './helpers';

const genBody = (maxNew: number, stream = false) => ({ input_ids: [1, 2, 3], sampling_params: { max_new_tokens: maxNew, ignore_eos: true }, stream });

test('stall: health and /v1/models answer 200, a stream gets headers and never a token, /health_generate 503s', async () => {
  const s = await sim({ faults: { stall: true }, healthGenerateTimeoutMs: 2000 }); // 100 ms at time-scale 20
  assert.equal((await request(s.url, '/health')).status, 200);
  assert.equal((await request(s.url, '/v1/models')).status, 200);
  const r = await request(s.url, '/generate', { body: genBody(5, true), timeoutMs: 300 });
  assert.equal(r.status, 200, 'stream headers were sent');
  assert.equal(r.events.length, 0);
  assert.equal(r.error?.code, 'ETIMEDOUT');
  const t0 = performance.now();
  const hg = await request(s.url, '/health_generate');
  assert.equal(hg.status, 503);
  assert.ok(performance.now() - t0 >= 95, 'answers only after its deadline');
  await sleep(20);
  const rec = s.groundTruth().requests[0];
  assert.equal(rec?.finishReason, 'disconnect');
  assert.deepEqual(rec?.faults, ['stall']);
  // Clearing the fault at run time un-wedges the engine.
  s.setFaults({ stall: false });
  assert.equal((await request(s.url, '/health_generate')).status, 200);
  assert.equal(json<{ output_ids: number[] }>(await request(s.url, '/generate', { body: genBody(5) })).output_ids.length, 5);
});

test('stallOpenai: the OpenAI routes hang while SGLang /generate answers; on vLLM every generation route hangs', async () => {
  const s = await sim({ faults: { stallOpenai: true } });
  assert.equal((await request(s.url, '/health')).status, 200);
  assert.equal((await request(s.url, '/v1/models')).status, 200);
  assert.equal(json<{ output_ids: number[] }>(await request(s.url, '/generate', { body: genBody(3) })).output_ids.length, 3, 'the native route answers');
  const chat = await request(s.url, '/v1/chat/completions', { body: { messages: [{ role: 'user', content: 'hi' }], max_tokens: 2 }, timeoutMs: 200 });
  assert.equal(chat.status, 0, 'no reply at all');
  assert.equal(chat.error?.code, 'ETIMEDOUT');
  const comp = await request(s.url, '/v1/completions', { body: { prompt: 'x', max_tokens: 2, stream: true }, timeoutMs: 200 });
  assert.equal(comp.status, 200, 'stream headers were sent');
  assert.equal(comp.events.length, 0);
  await sleep(20);
  const recs = s.groundTruth().requests;
  assert.deepEqual(
    recs.map((r) => [r.route, r.faults, r.finishReason]),
    [
      ['/generate', [], 'length'],
      ['/v1/chat/completions', ['stall_openai'], 'disconnect'],
      ['/v1/completions', ['stall_openai'], 'disconnect'],
    ],
  );
  // Switched off at run time (POST /sim/faults), the OpenAI routes answer again.
  assert.equal((await request(s.url, '/sim/faults', { body: { stallOpenai: false } })).status, 200);
  assert.equal((await request(s.url, '/v1/completions', { body: { prompt: 'x', max_tokens: 2 } })).status, 200);

  const v = await sim({ engine: 'vllm' });
  assert.equal((await request(v.url, '/sim/faults', { body: { stallOpenai: true } })).status, 200);
  assert.equal((await request(v.url, '/health')).status, 200);
  assert.equal((await request(v.url, '/v1/completions', { body: { prompt: 'x', max_tokens: 2 }, timeoutMs: 200 })).error?.code, 'ETIMEDOUT');
  assert.equal((await request(v.url, '/generate', { body: genBody(2) })).status, 404, 'vLLM has no native route');
});

test('runtime admin route flips faults and rejects bad values with the option message', async () => {
  const s = await sim({ engine: 'vllm' });
  const set = await request(s.url, '/sim/faults', { body: { stall: true, slowFactor: 2 } });
  assert.equal(set.status, 200);
  assert.equal(json<{ stall: boolean }>(await request(s.url, '/sim/faults')).stall, true);
  const r = await request(s.url, '/v1/completions', { body: { prompt: 'x', max_tokens: 2, stream: true }, timeoutMs: 150 });
  assert.equal(r.events.length, 0);
  const bad = await request(s.url, '/sim/faults', { body: { slowFactor: -1 } });
  assert.equal(bad.status, 400);
  assert.match(json<{ error: string }>(bad).error, /fault slowFactor: invalid value -1; allowed: a number from 0.01 to 10000/);
  const unknown = await request(s.url, '/sim/faults', { body: { explode: true } });
  assert.equal(unknown.status, 400);
  assert.match(json<{ error: string }>(unknown).error, /fault explode: unknown fault/);
});

test('error rates: each class answers in the server shape and is recorded', async () => {
  const cases = [
    ['vllm', 'errorRate429', 429, { error: { message: 'Simulated rate limit: too many requests.', type: 'TooManyRequestsError', param: null, code: 429 } }],
    ['vllm', 'errorRate500', 500, { error: { message: 'Simulated internal server error.', type: 'InternalServerError', param: null, code: 500 } }],
    ['sglang', 'errorRate503', 503, { error: { message: 'Simulated service unavailable.' } }],
    ['sglang', 'errorRate400', 400, { error: { message: 'Simulated bad request.' } }],
  ] as const;
  for (const [engine, key, status, body] of cases) {
    const s = await sim({ engine, faults: { [key]: 1 } });
    const r =
      engine === 'vllm'
        ? await request(s.url, '/v1/completions', { body: { prompt: 'x', stream: true } })
        : await request(s.url, '/generate', { body: genBody(3, true) });
    assert.equal(r.status, status);
    assert.deepEqual(json(r), body);
    assert.equal(s.groundTruth().requests[0]?.errorClass, `fault_${status}`);
  }
  // A fractional rate hits about that share, reproducibly for a seed.
  const s = await sim({ faults: { errorRate429: 0.3 } });
  const statuses = [];
  for (let i = 0; i < 60; i++) statuses.push((await request(s.url, '/generate', { body: genBody(1) })).status);
  const hits = statuses.filter((x) => x === 429).length;
  assert.ok(hits > 8 && hits < 30, `${hits} of 60`);
});

test('abort mid-stream: the connection is reset after --fault-after-tokens', async () => {
  const s = await sim({ engine: 'vllm', timeScale: 2, faults: { abortRate: 1, faultAfterTokens: 3 } });
  const r = await request(s.url, '/v1/completions', { body: { prompt: 'x', max_tokens: 20, stream: true } });
  assert.equal(r.status, 200);
  // A reset discards what the client had not read yet, so at most the first 3 events arrive.
  assert.ok(events(r).length <= 3);
  assert.equal(r.error?.code, 'ECONNRESET');
  await sleep(10);
  const rec = s.groundTruth().requests[0];
  assert.equal(rec?.completionTokens, 3, 'three tokens were sent before the reset');
  assert.equal(rec?.finishReason, 'abort');
  assert.equal(rec?.errorClass, 'fault_abort');
});

test('in-stream error under HTTP 200: SGLang and vLLM shapes, then [DONE]', async () => {
  const g = await sim({ faults: { streamErrorRate: 1, faultAfterTokens: 2 } });
  const r = await request(g.url, '/generate', { body: genBody(10, true) });
  assert.equal(r.status, 200);
  const ev = r.events.map((e) => e.data);
  assert.equal(ev.length, 4);
  assert.deepEqual(JSON.parse(ev[2] as string), { error: { message: 'Simulated engine error during generation.' } });
  assert.equal(ev[3], '[DONE]');
  const v = await sim({ engine: 'vllm', faults: { streamErrorRate: 1, faultAfterTokens: 1 } });
  const rv = await request(v.url, '/v1/chat/completions', { body: { messages: [{ role: 'user', content: 'x' }], max_tokens: 10, stream: true } });
  const evs = rv.events.map((e) => e.data);
  assert.deepEqual(JSON.parse(evs.at(-2) as string), {
    error: { message: 'Simulated engine error during generation.', type: 'InternalServerError', param: null, code: 500 },
  });
  assert.equal(evs.at(-1), '[DONE]');
  assert.equal(v.groundTruth().requests[0]?.errorClass, 'fault_stream_error');
});

test('truncate: the stream ends properly after --fault-after-tokens, without [DONE] or a closing event', async () => {
  const s = await sim({ engine: 'vllm', faults: { truncateRate: 1, faultAfterTokens: 3 } });
  const r = await request(s.url, '/v1/completions', { body: { prompt: 'x', max_tokens: 20, stream: true } });
  assert.equal(r.status, 200);
  assert.equal(r.error, undefined, 'the body ended cleanly (no reset, no broken chunk)');
  assert.equal(r.events.length, 3, 'one event per token up to the truncation');
  assert.ok(
    r.events.every((e) => e.data !== '[DONE]' && JSON.parse(e.data).choices[0].finish_reason === null),
    'no [DONE], no finish reason',
  );
  // A named-event stream (Messages) stops before message_stop.
  const m = await request(s.url, '/v1/messages', {
    body: { model: 'qwen3-32b-sim', messages: [{ role: 'user', content: 'x' }], max_tokens: 20, stream: true },
  });
  assert.equal(m.error, undefined);
  assert.ok(!m.body.includes('message_stop') && m.body.includes('content_block_delta'), m.body.slice(-200));
  await sleep(10);
  const rec = s.groundTruth().requests[0];
  assert.equal(rec?.completionTokens, 3);
  assert.equal(rec?.errorClass, 'fault_truncate');
});

test('malformed event: one data line is not JSON, the stream still completes', async () => {
  const s = await sim({ faults: { malformedRate: 1, faultAfterTokens: 2 } });
  const r = await request(s.url, '/generate', { body: genBody(5, true) });
  const bad = r.events.filter((e) => {
    if (e.data === '[DONE]') return false;
    try {
      JSON.parse(e.data);
      return false;
    } catch {
      return true;
    }
  });
  assert.equal(bad.length, 1);
  assert.ok(r.body.endsWith('data: [DONE]\n\n'));
  assert.equal(r.events.length, 5 + 1 + 1);
});

test('slow tokens: --slow-factor multiplies every step time', async () => {
  const s = await sim({ faults: { slowFactor: 3 } });
  await request(s.url, '/generate', { body: genBody(4) });
  const d = s.groundTruth().steps.map((x) => x.durationMs);
  const o = s.options;
  assert.ok(Math.abs((d[1] ?? 0) - (3 * (o.stepBaseMs + o.decodeSeqMs + (o.ctxMsPer1k * 4) / 1000)) / 20) < 1e-9);
});

test('startup delay: SGLang answers 503 until ready; vLLM refuses connections until ready', async () => {
  const g = await sim({ startupDelayMs: 10000 }); // 500 ms at time-scale 20
  assert.equal((await request(g.url, '/health')).status, 503);
  assert.equal((await request(g.url, '/health_generate')).status, 503);
  const gen = await request(g.url, '/generate', { body: genBody(2) });
  assert.equal(gen.status, 503);
  assert.ok('error' in json(gen));
  await g.ready;
  assert.equal((await request(g.url, '/health')).status, 200);

  const v = await sim({ engine: 'vllm', startupDelayMs: 10000 });
  const early = await request(v.url, '/health');
  assert.equal(early.error?.code, 'ECONNREFUSED');
  await v.ready;
  assert.equal((await request(v.url, '/health')).status, 200);
});

test('crash: the admin action resets open streams and later connections are refused', async () => {
  const s = await sim({ engine: 'vllm', timeScale: 5 });
  const inflight = request(s.url, '/v1/completions', { body: { prompt: 'x', max_tokens: 200, stream: true } });
  while ((s.groundTruth().requests[0]?.events.length ?? 0) < 2) await sleep(5);
  const c = await request(s.url, '/sim/faults', { body: { crash: true } });
  assert.equal(c.status, 200);
  const r = await inflight;
  assert.equal(r.status, 200);
  assert.ok(r.events.length < 200);
  assert.equal(r.error?.code, 'ECONNRESET');
  assert.equal((await request(s.url, '/health')).error?.code, 'ECONNREFUSED');
});

test('crashAfterMs: the server dies on its own schedule', async () => {
  const s = await sim({ faults: { crashAfterMs: 2000 } }); // 100 ms at time-scale 20
  assert.equal((await request(s.url, '/health')).status, 200);
  await sleep(150);
  assert.equal((await request(s.url, '/health')).error?.code, 'ECONNREFUSED');
});
