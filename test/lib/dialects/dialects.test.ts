import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { createDialect, type DialectName } from '../../../lib/dialects/index';
import { reply } from '../fixtures';

const ctx = { dialectVar: 'DIALECT', modelVar: 'MODEL', model: 'Qwen/Qwen3-32B' };
const d = (name: DialectName) => createDialect(name, ctx);
const SSE = 'text/event-stream; charset=utf-8';
const JSON_CT = 'application/json';

/** Feeds a recorded stream event by event, as the sse transport does. */
function byEvents(name: DialectName, body: string) {
  const reader = d(name).streamReader();
  const infos = body
    .split('\n\n')
    .filter((e) => e.startsWith('data: '))
    .map((e) => reader.onData(e.slice(6)));
  return { infos, result: reader.finish() };
}

describe('building requests', () => {
  const prompt = { kind: 'tokens' as const, json: '[1001,1002,1003]', length: 3 };
  test('sglang posts input_ids and sampling_params to /generate', () => {
    const w = d('sglang').build({ prompt, maxTokens: 16, ignoreEos: true, temperature: 0, stream: false });
    assert.equal(w.path, '/generate');
    assert.deepEqual(JSON.parse(w.body), {
      input_ids: [1001, 1002, 1003],
      sampling_params: { max_new_tokens: 16, temperature: 0, ignore_eos: true },
      stream: false,
    });
  });
  test('sglang sends text when the prompt is text', () => {
    const w = d('sglang').build({ prompt: { kind: 'text', text: 'hi "there"' }, maxTokens: 4, ignoreEos: false, temperature: 0.7, stream: true });
    assert.equal(JSON.parse(w.body).text, 'hi "there"');
  });
  test('openai posts a token-id prompt with max_tokens and asks for usage per chunk when streaming', () => {
    const w = d('openai').build({ prompt, maxTokens: 8, ignoreEos: true, temperature: 0, stream: true, model: 'm' });
    assert.equal(w.path, '/v1/completions');
    assert.deepEqual(JSON.parse(w.body), {
      model: 'm',
      prompt: [1001, 1002, 1003],
      max_tokens: 8,
      temperature: 0,
      ignore_eos: true,
      stream: true,
      stream_options: { include_usage: true, continuous_usage_stats: true },
    });
  });
  test('openai without streaming sends no stream_options', () => {
    const w = d('openai').build({ prompt, maxTokens: 8, ignoreEos: true, temperature: 0, stream: false, model: 'm' });
    assert.equal('stream_options' in JSON.parse(w.body), false);
  });
  test('openai-chat posts messages with max_completion_tokens and refuses token ids', () => {
    const w = d('openai-chat').build({ prompt: { kind: 'text', text: 'Say hi.' }, maxTokens: 5, ignoreEos: true, temperature: 0, stream: false, model: 'm' });
    const body = JSON.parse(w.body);
    assert.equal(w.path, '/v1/chat/completions');
    assert.deepEqual(body.messages, [{ role: 'user', content: 'Say hi.' }]);
    assert.equal(body.max_completion_tokens, 5);
    assert.equal(d('openai-chat').acceptsTokenIds, false);
    assert.throws(() => d('openai-chat').build({ prompt, maxTokens: 5, ignoreEos: true, temperature: 0, stream: false }));
  });
});

describe('sglang replies', () => {
  test('non-streamed reply: counts from meta_info', () => {
    const r = d('sglang').parseBody(200, reply('sglang-nonstream.json'), JSON_CT);
    assert.equal(r.ok, true);
    assert.equal(r.text, ' Paris. It is the capital');
    assert.equal(r.promptTokens, 7);
    assert.equal(r.completionTokens, 6);
    assert.equal(r.cachedTokens, 3);
    assert.equal(r.finishReason, 'length');
    assert.equal(r.tokenEvents, 0);
    assert.equal(r.acceptanceLength, null, 'no speculative decoding, no acceptance length');
  });
  test('speculative reply: acceptance length = completion_tokens / spec_verify_ct', () => {
    const r = d('sglang').parseBody(200, reply('sglang-nonstream-spec.json'), JSON_CT);
    assert.equal(r.specVerifySteps, 3);
    assert.equal(r.acceptanceLength, 4);
  });
  test('cumulative stream: text is not repeated and tokens per event come from completion_tokens', () => {
    const { infos, result } = byEvents('sglang', reply('sglang-stream-cumulative.txt'));
    assert.deepEqual(
      infos.filter((i) => i.carriesToken).map((i) => i.tokens),
      [1, 3, 4, 2],
    );
    assert.equal(infos[infos.length - 1].done, true);
    assert.equal(result.ok, true);
    assert.equal(result.text, ' one two three four five six seven eight nine ten');
    assert.equal(result.completionTokens, 10);
    assert.equal(result.tokenEvents, 4);
    assert.equal(result.specVerifySteps, 3);
    assert.ok(Math.abs((result.acceptanceLength ?? 0) - 10 / 3) < 1e-12);
  });
  test('incremental stream: deltas are appended', () => {
    const r = d('sglang').parseBody(200, reply('sglang-stream-incremental.txt'), SSE);
    assert.equal(r.text, ' one two three');
    assert.equal(r.completionTokens, 3);
    assert.equal(r.tokenEvents, 3);
  });
  test('the whole-body and event-by-event paths agree', () => {
    const body = reply('sglang-stream-cumulative.txt');
    const whole = d('sglang').parseBody(200, body, SSE);
    assert.deepEqual(whole, byEvents('sglang', body).result);
  });
  test('an error event inside a 200 stream is a stream_error with the server message', () => {
    const r = d('sglang').parseBody(200, reply('sglang-stream-error-event.txt'), SSE);
    assert.equal(r.ok, false);
    assert.equal(r.error?.class, 'stream_error');
    assert.match(r.error?.message ?? '', /illegal memory access/);
  });
  test('finish_reason abort (queue full) is classified aborted with its message', () => {
    const r = d('sglang').parseBody(200, reply('sglang-stream-abort.txt'), SSE);
    assert.equal(r.error?.class, 'aborted');
    assert.match(r.error?.message ?? '', /waiting queue is full/);
  });
  test('a stream cut mid-event is truncated, keeping what arrived', () => {
    const r = d('sglang').parseBody(200, reply('sglang-stream-truncated.txt'), SSE);
    assert.equal(r.error?.class, 'truncated');
    assert.equal(r.completionTokens, 1);
  });
  test('prompt too long (400) is context_length with advice', () => {
    const r = d('sglang').parseBody(400, reply('sglang-400-context.json'), JSON_CT);
    assert.equal(r.error?.class, 'context_length');
    assert.match(r.error?.message ?? '', /40000 tokens.*lower ISL or OSL/);
  });
  test('the seed failure: POST /generate against vLLM → 404 is wrong_dialect naming the variable', () => {
    const r = d('sglang').parseBody(404, reply('vllm-404-route.json'), JSON_CT);
    assert.equal(r.error?.class, 'wrong_dialect');
    assert.match(r.error?.message ?? '', /POST \/generate → 404.*DIALECT=auto/);
  });
});

describe('openai replies', () => {
  test('non-streamed completion', () => {
    const r = d('openai').parseBody(200, reply('vllm-completions-nonstream.json'), JSON_CT);
    assert.equal(r.ok, true);
    assert.equal(r.completionTokens, 6);
    assert.equal(r.promptTokens, 7);
    assert.equal(r.cachedTokens, 0);
    assert.equal(r.finishReason, 'length');
  });
  test('continuous usage gives exact tokens per multi-token chunk; the usage-only chunk carries none', () => {
    const { infos, result } = byEvents('openai', reply('vllm-completions-stream-usage.txt'));
    assert.deepEqual(
      infos.filter((i) => i.carriesToken).map((i) => i.tokens),
      [1, 2, 3],
    );
    assert.equal(result.completionTokens, 6);
    assert.equal(result.text, ' one two three four five six');
    assert.equal(result.tokenEvents, 3);
  });
  test('final usage only: per-chunk tokens unknown (null), total known', () => {
    const { infos, result } = byEvents('openai', reply('vllm-completions-stream-final-usage.txt'));
    assert.deepEqual(
      infos.filter((i) => i.carriesToken).map((i) => i.tokens),
      [null, null],
    );
    assert.equal(result.completionTokens, 3);
  });
  test('chat: the role-only chunk is not a token; reasoning deltas are', () => {
    const { infos, result } = byEvents('openai-chat', reply('vllm-chat-stream-reasoning.txt'));
    assert.equal(infos[0].carriesToken, false);
    assert.deepEqual(
      infos.filter((i) => i.carriesToken).map((i) => i.tokens),
      [2, 2, 2],
    );
    assert.equal(result.text, 'Let me think.Hi there');
    assert.equal(result.completionTokens, 6);
  });
  test('chat non-streamed: reasoning and content', () => {
    const r = d('openai-chat').parseBody(200, reply('vllm-chat-nonstream.json'), JSON_CT);
    assert.equal(r.text, 'Let me think.Hi there');
    assert.equal(r.completionTokens, 6);
  });
  test('unknown model (404 with a model message) is unknown_model, not wrong dialect', () => {
    const r = d('openai').parseBody(404, reply('vllm-404-model.json'), JSON_CT);
    assert.equal(r.error?.class, 'unknown_model');
    assert.match(r.error?.message ?? '', /qwen-wrong.*set MODEL/);
  });
  test('context too long (flat error shape) is context_length', () => {
    const r = d('openai').parseBody(400, reply('vllm-400-context.json'), JSON_CT);
    assert.equal(r.error?.class, 'context_length');
    assert.match(r.error?.message ?? '', /maximum context length is 32768/);
  });
  test('vLLM in-stream error event', () => {
    const r = d('openai').parseBody(200, reply('vllm-stream-error-event.txt'), SSE);
    assert.equal(r.error?.class, 'stream_error');
    assert.match(r.error?.message ?? '', /EngineCore/);
  });
  test('a malformed event is invalid_reply quoting the bytes', () => {
    const r = d('openai').parseBody(200, reply('vllm-stream-malformed.txt'), SSE);
    assert.equal(r.error?.class, 'invalid_reply');
    assert.match(r.error?.message ?? '', /event 2 is not JSON/);
  });
  test('a body that is not JSON at all', () => {
    const r = d('openai').parseBody(200, '<html>502 Bad Gateway</html>', 'text/html');
    assert.equal(r.error?.class, 'invalid_reply');
  });
  test('statuses map to classes with advice', () => {
    const cases: Array<[number, string, string]> = [
      [401, '{"error":"Unauthorized"}', 'auth'],
      [429, '{"error":{"message":"Too many requests"}}', 'rate_limited'],
      [503, '', 'overloaded'],
      [500, 'Internal Server Error', 'server_error'],
      [422, '{"detail":[{"loc":["body","max_tokens"],"msg":"Input should be a valid integer","type":"int_parsing"}]}', 'bad_request'],
    ];
    for (const [status, body, cls] of cases) {
      const r = d('openai').parseBody(status, body, JSON_CT);
      assert.equal(r.error?.class, cls, `status ${status}`);
      assert.equal(r.ok, false);
    }
    assert.match(d('openai').parseBody(422, cases[4][1], JSON_CT).error?.message ?? '', /body\.max_tokens: Input should be a valid integer/);
  });
});
