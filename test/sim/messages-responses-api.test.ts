// The simulator's /v1/messages (Anthropic Messages) and /v1/responses (OpenAI Responses), read by
// the suite's own dialect readers and checked against the simulator's ground truth: the same
// engine, token counts, reasoning split and faults as /v1/chat/completions, in each API's shapes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createDialect, type DialectName } from '../../lib/dialects/index';
import type { Accumulator } from '../../lib/reading';
import { request, sim } from './helpers';

const ctx = { dialectVar: 'DIALECT', modelVar: 'MODEL', model: 'qwen3-32b-sim' };
const ROUTES: Array<[DialectName, string]> = [
  ['anthropic', '/v1/messages'],
  ['responses', '/v1/responses'],
];

function wire(name: DialectName, maxTokens: number, stream: boolean, ignoreEos = true) {
  return createDialect(name, ctx).build({
    prompt: { kind: 'text', text: 'Tell me about the river' },
    maxTokens,
    ignoreEos,
    temperature: 0,
    stream,
    model: ctx.model,
  });
}

/** The reply read event by event as the sse transport reads it, and whole as the http transport does. */
function readBoth(name: DialectName, body: string, events: string[]) {
  const reader = createDialect(name, ctx).streamReader();
  const answers = events.map((e) => reader.onEvent(e));
  return { streamed: reader.finish(), whole: createDialect(name, ctx).parseBody(200, body, 'text/event-stream'), answers };
}

for (const engine of ['vllm', 'sglang'] as const) {
  for (const [name, path] of ROUTES) {
    test(`${engine} ${path}: streamed, named events and no [DONE]; tokens, events and reasoning as the ground truth says`, async () => {
      const s = await sim({ engine, reasoningFraction: 0.25 });
      const w = wire(name, 16, true);
      const r = await request(s.url, path, { body: w.body });
      assert.equal(r.status, 200);
      assert.match(r.headers['content-type'] ?? '', /text\/event-stream/);
      assert.ok(!r.body.includes('[DONE]'), 'no [DONE]');
      for (const block of r.body.trim().split('\n\n')) {
        const [ev, data] = block.split('\n');
        assert.equal(ev?.slice(7), (JSON.parse(data?.slice(6) ?? '{}') as { type: string }).type, 'each event named after its type');
      }
      const { streamed, whole } = readBoth(
        name,
        r.body,
        r.events.map((e) => e.data),
      );
      const truth = s.groundTruth().requests.find((q) => q.route === path);
      assert.ok(truth, 'the request is in the ground truth under its route');
      assert.equal(streamed.ok, true, streamed.error?.message);
      assert.equal(streamed.completionTokens, 16);
      assert.equal(streamed.completionTokens, truth.completionTokens);
      assert.equal(streamed.promptTokens, truth.promptTokens);
      assert.equal(streamed.finishReason, 'length');
      assert.equal(streamed.tokenEvents, truth.events.filter((e) => e.tokens > 0).length, 'one token event per event the simulator sent');
      // 4 of 16 tokens are reasoning: the first answer event follows the reasoning events.
      assert.equal(truth.reasoningTokens, 4);
      assert.equal(streamed.reasoning?.firstReasoningEvent, 0);
      assert.equal(
        streamed.reasoning?.firstAnswerEvent,
        truth.events.findIndex((e) => e.timeMs === truth.firstAnswerMs),
      );
      assert.deepEqual({ ...whole, text: whole.text }, { ...streamed, text: streamed.text }, 'the http transport reads the same');
    });

    test(`${engine} ${path}: not streamed, the whole reply with usage`, async () => {
      const s = await sim({ engine });
      const r = await request(s.url, path, { body: wire(name, 8, false).body });
      assert.equal(r.status, 200);
      const res = createDialect(name, ctx).parseBody(200, r.body, 'application/json');
      assert.equal(res.ok, true, res.error?.message);
      assert.equal(res.completionTokens, 8);
      assert.equal(res.finishReason, 'length');
      assert.ok(res.text.length > 0);
    });
  }
}

test("a later stream is read by the chunk template: Responses' item ids after the text and its opening events do not stop it", async () => {
  const s = await sim({ engine: 'vllm', reasoningFraction: 0.25 });
  for (const [name, path] of ROUTES) {
    const dialect = createDialect(name, ctx);
    for (let k = 0; k < 2; k++) {
      const r = await request(s.url, path, { body: wire(name, 64, true).body });
      const reader = dialect.streamReader();
      for (const e of r.events) reader.onEvent(e.data);
      assert.equal(reader.finish().completionTokens, 64);
      const templated = (reader as unknown as Accumulator).templateEvents;
      assert.ok(templated >= 56, `${path}, stream ${k + 1}: ${templated} of ${r.events.length} events read by the template`);
    }
  }
});

test('faults: an in-stream error is read as stream_error on both routes, a 503 as overloaded', async () => {
  const s = await sim({ engine: 'vllm', faults: { streamErrorRate: 1, faultAfterTokens: 2 } });
  for (const [name, path] of ROUTES) {
    const r = await request(s.url, path, { body: wire(name, 16, true).body });
    const res = createDialect(name, ctx).parseBody(200, r.body, 'text/event-stream');
    assert.equal(res.error?.class, 'stream_error', `${path}: ${res.error?.message}`);
    assert.match(res.error?.message ?? '', /Simulated engine error/);
  }
  s.setFaults({ streamErrorRate: 0, errorRate503: 1 });
  for (const [name, path] of ROUTES) {
    const r = await request(s.url, path, { body: wire(name, 4, false).body });
    assert.equal(r.status, 503);
    assert.equal(createDialect(name, ctx).parseBody(r.status, r.body, 'application/json').error?.class, 'overloaded');
  }
  const m = await request(s.url, '/v1/messages', { body: wire('anthropic', 4, false).body });
  assert.equal((JSON.parse(m.body) as { error: { type: string } }).error.type, 'overloaded_error', 'Anthropic error shape');
});

test('the key: x-api-key or a bearer token on /v1/messages, a bearer token on /v1/responses', async () => {
  const s = await sim({ engine: 'vllm', apiKey: 'k1' });
  const body = wire('anthropic', 2, false).body;
  assert.equal((await request(s.url, '/v1/messages', { body })).status, 401);
  assert.equal((await request(s.url, '/v1/messages', { body, headers: { 'x-api-key': 'k1' } })).status, 200);
  assert.equal((await request(s.url, '/v1/messages', { body, headers: { authorization: 'Bearer k1' } })).status, 200);
  const rb = wire('responses', 2, false).body;
  assert.equal((await request(s.url, '/v1/responses', { body: rb, headers: { 'x-api-key': 'k1' } })).status, 401);
  assert.equal((await request(s.url, '/v1/responses', { body: rb, headers: { authorization: 'Bearer k1' } })).status, 200);
});

test('Messages requires max_tokens; an overflow is context_length on both routes', async () => {
  const s = await sim({ engine: 'vllm', maxModelLen: 64 });
  const r = await request(s.url, '/v1/messages', { body: { model: ctx.model, messages: [{ role: 'user', content: 'hi' }] } });
  assert.equal(r.status, 400);
  assert.match(r.body, /max_tokens/);
  for (const [name, path] of ROUTES) {
    const o = await request(s.url, path, { body: wire(name, 500, false).body });
    assert.equal(createDialect(name, ctx).parseBody(o.status, o.body, 'application/json').error?.class, 'context_length', path);
  }
});
