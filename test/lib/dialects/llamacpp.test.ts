// llama.cpp's server (b11669), read from its real replies (test/fixtures/replies/llamacpp-*, taken
// from a llama-server with a draft model): the native /completion dialect, its speculative counts
// on the OpenAI routes too, and the error bodies.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { createDialect, DIALECT_NAMES, isDialectName, type DialectName } from '../../../lib/dialects/index';
import { classifyStatus } from '../../../lib/dialects/errors';
import { reply } from '../fixtures';

const ctx = { dialectVar: 'DIALECT', modelVar: 'MODEL', model: '/models/target.gguf' };
const d = (name: DialectName) => createDialect(name, ctx);
const SSE = 'text/event-stream';
const JSON_CT = 'application/json; charset=utf-8';

function byEvents(name: DialectName, body: string) {
  const reader = d(name).streamReader();
  const infos = body
    .split('\n\n')
    .filter((e) => e.startsWith('data: '))
    .map((e) => reader.onData(e.slice(6)));
  return { infos, result: reader.finish() };
}

describe('the llamacpp dialect (POST /completion)', () => {
  test('is registered and selectable', () => {
    assert.ok(DIALECT_NAMES.includes('llamacpp'));
    assert.ok(isDialectName('llamacpp'));
    assert.equal(d('llamacpp').path, '/completion');
    assert.equal(d('llamacpp').acceptsTokenIds, true);
  });
  test('posts token ids with n_predict and ignore_eos', () => {
    const w = d('llamacpp').build({
      prompt: { kind: 'tokens', json: '[1001,1002]', length: 2 },
      maxTokens: 12,
      ignoreEos: true,
      temperature: 0,
      stream: true,
      model: 'm',
    });
    assert.equal(w.path, '/completion');
    assert.deepEqual(JSON.parse(w.body), { model: 'm', n_predict: 12, temperature: 0, ignore_eos: true, stream: true, prompt: [1001, 1002] });
  });
  test('posts a text prompt as text', () => {
    const w = d('llamacpp').build({ prompt: { kind: 'text', text: 'hi "x"' }, maxTokens: 3, ignoreEos: false, temperature: 0.5, stream: false });
    assert.deepEqual(JSON.parse(w.body), { prompt: 'hi "x"', n_predict: 3, temperature: 0.5, ignore_eos: false, stream: false });
  });
  test('streamed: one token per event, counted by the server; the stop event has the totals and no [DONE] follows', () => {
    const { infos, result } = byEvents('llamacpp', reply('llamacpp-native-stream.txt'));
    assert.deepEqual(
      infos.filter((i) => i.carriesToken).map((i) => i.tokens),
      new Array(12).fill(1),
    );
    assert.equal(infos[infos.length - 1].carriesToken, false, 'the stop event adds no token');
    assert.equal(result.ok, true);
    assert.equal(result.text, 'babobatepibalukubafazi coga wumobakecube cehemabo romiba bidube gike');
    assert.equal(result.completionTokens, 12);
    assert.equal(result.promptTokens, 16);
    assert.equal(result.cachedTokens, 15, 'timings.cache_n, not tokens_cached (the slot cache after generation)');
    assert.equal(result.finishReason, 'length');
    assert.equal(result.tokenEvents, 12);
    assert.deepEqual(result.draft, { drafted: 13, accepted: 8 });
    assert.equal(result.acceptanceLength, null, 'verify steps per request are not reported: no acceptance length');
  });
  test('the whole-body and event-by-event paths agree', () => {
    const body = reply('llamacpp-native-stream.txt');
    assert.deepEqual(d('llamacpp').parseBody(200, body, SSE), byEvents('llamacpp', body).result);
  });
  test('non-streamed reply', () => {
    const r = d('llamacpp').parseBody(200, reply('llamacpp-native-nonstream.json'), JSON_CT);
    assert.equal(r.ok, true);
    assert.equal(r.completionTokens, 12);
    assert.equal(r.promptTokens, 16);
    assert.equal(r.cachedTokens, 15);
    assert.equal(r.finishReason, 'length');
    assert.deepEqual(r.draft, { drafted: 13, accepted: 8 });
  });
  test('a long prompt echoed in the last event is skipped, with the same result', () => {
    const body = reply('llamacpp-native-stream.txt');
    const long = 'word "quoted" ,\\"has_new_line\\": '.repeat(400);
    const echoed = body.replace(/"prompt":"[^"]*"/, `"prompt":${JSON.stringify(long)}`);
    assert.ok(echoed.length > body.length + 10000);
    assert.deepEqual(d('llamacpp').parseBody(200, echoed, SSE), d('llamacpp').parseBody(200, body, SSE));
    const whole = reply('llamacpp-native-nonstream.json').replace(/"prompt":"[^"]*"/, `"prompt":${JSON.stringify(long)}`);
    const r = d('llamacpp').parseBody(200, whole, JSON_CT);
    assert.equal(r.ok, true);
    assert.equal(r.completionTokens, 12);
    assert.deepEqual(r.draft, { drafted: 13, accepted: 8 });
    assert.equal(r.text, 'babobatepibalukubafazi coga wumobakecube cehemabo romiba bidube gike');
  });
  test('stop types: eos and stop words are stop', () => {
    const r = d('llamacpp').parseBody(200, JSON.stringify({ content: 'x', stop: true, stop_type: 'eos', tokens_predicted: 1, tokens_evaluated: 2 }), JSON_CT);
    assert.equal(r.finishReason, 'stop');
    assert.equal(r.draft, undefined, 'no timings: no draft counts');
  });
  test('a stream cut before its stop event is truncated', () => {
    const body = reply('llamacpp-native-stream.txt').split('\n\n').slice(0, 3).join('\n\n') + '\n\n';
    const r = d('llamacpp').parseBody(200, body, SSE);
    assert.equal(r.error?.class, 'truncated');
  });
  test('wrong dialect: POST /completion → 404 on another server', () => {
    const r = d('llamacpp').parseBody(404, reply('vllm-404-route.json'), JSON_CT);
    assert.equal(r.error?.class, 'wrong_dialect');
  });
});

describe('llama.cpp on the OpenAI routes', () => {
  test("/v1/completions stream: draft counts from the last chunk's timings", () => {
    const { result } = byEvents('openai', reply('llamacpp-completions-stream.txt'));
    assert.equal(result.ok, true);
    assert.equal(result.completionTokens, 12);
    assert.equal(result.promptTokens, 16);
    assert.equal(result.tokenEvents, 12);
    assert.deepEqual(result.draft, { drafted: 13, accepted: 8 });
  });
  test('/v1/completions non-streamed: cached tokens and draft counts', () => {
    const r = d('openai').parseBody(200, reply('llamacpp-completions-nonstream.json'), JSON_CT);
    assert.equal(r.cachedTokens, 15);
    assert.deepEqual(r.draft, { drafted: 13, accepted: 8 });
  });
  test('/v1/chat/completions stream', () => {
    const { result } = byEvents('openai-chat', reply('llamacpp-chat-stream.txt'));
    assert.equal(result.completionTokens, 8);
    assert.equal(result.tokenEvents, 8);
    assert.deepEqual(result.draft, { drafted: 18, accepted: 3 });
  });
  test('vLLM replies carry no draft counts', () => {
    assert.equal(d('openai').parseBody(200, reply('vllm-completions-nonstream.json'), 'application/json').draft, undefined);
  });
});

describe('errors: a token id outside the vocabulary points at VOCAB_SIZE', () => {
  for (const name of ['llamacpp', 'openai'] as DialectName[]) {
    test(`${name}: 400 "Prompt contains invalid tokens"`, () => {
      const r = d(name).parseBody(400, reply('llamacpp-400-invalid-tokens.json'), JSON_CT);
      assert.equal(r.error?.class, 'bad_request');
      assert.match(r.error?.message ?? '', /Prompt contains invalid tokens.*set VOCAB_SIZE to the model's vocabulary size or less/);
    });
  }
  const rctx = { ...ctx, route: 'POST /generate' };
  test('the simulator (both dialects) and vLLM wording', () => {
    for (const body of [
      '{"error":{"message":"Token id 40000 is out of vocabulary (vocab size 32000).","type":"BadRequestError","code":400}}',
      '{"object":"error","message":"Token id 151937 is out of vocabulary","type":"BadRequestError","code":400}',
      '{"error":{"message":"The input_ids [1, 40000] contains values greater than the vocab size (32000).","code":400}}',
    ]) {
      const e = classifyStatus(400, body, rctx);
      assert.equal(e.class, 'bad_request', body);
      assert.match(e.message, /set VOCAB_SIZE/, body);
    }
  });
  test('context too long stays context_length', () => {
    const r = d('llamacpp').parseBody(400, reply('llamacpp-400-context.json'), JSON_CT);
    assert.equal(r.error?.class, 'context_length');
    assert.match(r.error?.message ?? '', /4100 tokens.*lower ISL or OSL/);
  });
  test('other bad requests do not mention VOCAB_SIZE', () => {
    assert.doesNotMatch(classifyStatus(400, '{"error":{"message":"n_predict must be positive"}}', rctx).message, /VOCAB_SIZE/);
  });
});
