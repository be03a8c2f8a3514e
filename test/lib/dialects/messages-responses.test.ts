// The Anthropic Messages (`anthropic`, POST /v1/messages) and OpenAI Responses (`responses`, POST
// /v1/responses) dialects: the request each builds, the headers that carry the key, and how their
// named-event streams are read (test/fixtures/corpus: llama.cpp's shapes from its server code, the
// APIs' documented examples; every corpus file is also read on every path by corpus.test.ts).
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { authHeaders, createDialect, DIALECT_NAMES, DIALECT_TRAITS, isDialectName, type DialectName } from '../../../lib/dialects/index';
import type { Accumulator } from '../../../lib/reading';
import { classifyStatus } from '../../../lib/dialects/errors';
import { requestHeaders } from '../../../lib/variants';
import { libraryWording } from '../../../lib/api/result';
import { EVENT_DONE, EVENT_NONE } from '../../../lib/dialects/types';

const ctx = { dialectVar: 'DIALECT', modelVar: 'MODEL', model: 'm' };
const d = (name: DialectName) => createDialect(name, ctx);
const corpus = (f: string) => readFileSync(join(__dirname, '..', '..', 'fixtures', 'corpus', f), 'utf8');
const text = (t: string) => ({ kind: 'text' as const, text: t });

/** The data of each event, as both transports hand them to a reader. */
function dataOf(body: string): string[] {
  return body
    .split('\n\n')
    .map((e) => e.split('\n').find((l) => l.startsWith('data: ')))
    .filter((l): l is string => l !== undefined)
    .map((l) => l.slice(6));
}

function read(name: DialectName, body: string) {
  const reader = d(name).streamReader();
  const answers = dataOf(body).map((e) => reader.onEvent(e));
  return { answers, result: reader.finish(), reader: reader as unknown as Accumulator };
}

describe('registration', () => {
  test('both are dialects of their own, chat-like: text prompts, a model named', () => {
    for (const n of ['anthropic', 'responses'] as const) {
      assert.ok(DIALECT_NAMES.includes(n) && isDialectName(n));
      const { chat, tokenIds, needsModel } = DIALECT_TRAITS[n];
      assert.deepEqual({ chat, tokenIds, needsModel }, { chat: true, tokenIds: false, needsModel: true });
      assert.equal(d(n).acceptsTokenIds, false);
      assert.throws(
        () => d(n).build({ prompt: { kind: 'tokens', json: '[1]', length: 1 }, maxTokens: 1, ignoreEos: true, temperature: 0, stream: false }),
        /text prompts only/,
      );
    }
    assert.equal(d('anthropic').path, '/v1/messages');
    assert.equal(d('responses').path, '/v1/responses');
  });
});

describe('requests', () => {
  test('Messages: max_tokens, system turns as the top-level system field, ignore_eos only when asked', () => {
    const messages = [
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Hi' },
    ];
    const w = d('anthropic').build({
      prompt: { kind: 'text', text: 'Be brief.\nHi', messages },
      maxTokens: 64,
      ignoreEos: true,
      temperature: 0,
      stream: true,
      model: 'm',
    });
    assert.deepEqual(JSON.parse(w.body), {
      model: 'm',
      system: 'Be brief.',
      messages: [{ role: 'user', content: 'Hi' }],
      max_tokens: 64,
      temperature: 0,
      stream: true,
      ignore_eos: true,
    });
    const plain = JSON.parse(d('anthropic').build({ prompt: text('Hi'), maxTokens: 8, ignoreEos: false, temperature: 0.5, stream: false }).body);
    assert.deepEqual(plain, { messages: [{ role: 'user', content: 'Hi' }], max_tokens: 8, temperature: 0.5, stream: false });
  });
  test('Responses: the text as input, a conversation as messages, max_output_tokens, store false', () => {
    const w = d('responses').build({ prompt: text('Hi'), maxTokens: 64, ignoreEos: true, temperature: 0, stream: true, model: 'm' });
    assert.deepEqual(JSON.parse(w.body), { model: 'm', input: 'Hi', max_output_tokens: 64, temperature: 0, stream: true, store: false, ignore_eos: true });
    const messages = [{ role: 'user', content: 'Hi' }];
    assert.deepEqual(
      JSON.parse(d('responses').build({ prompt: { kind: 'text', text: 'Hi', messages }, maxTokens: 1, ignoreEos: false, temperature: 0, stream: false }).body)
        .input,
      messages,
    );
  });
  test('the key: x-api-key and anthropic-version for Messages, bearer for Responses; no key, no key header', () => {
    const key = 'sk-secret';
    assert.deepEqual(authHeaders('anthropic', key), { 'anthropic-version': '2023-06-01', 'x-api-key': key, Authorization: `Bearer ${key}` });
    assert.deepEqual(authHeaders('responses', key), { Authorization: `Bearer ${key}` });
    assert.deepEqual(requestHeaders({ apiKey: '' }, 'text/event-stream', 'anthropic'), {
      'Content-Type': 'application/json',
      Accept: 'text/event-stream',
      'anthropic-version': '2023-06-01',
    });
    assert.deepEqual(requestHeaders({ apiKey: key }), { 'Content-Type': 'application/json', Authorization: `Bearer ${key}` });
  });
});

describe('Messages streams', () => {
  test('a token event per text_delta (count not said), none for the others, message_stop ends it; usage from message_start + message_delta', () => {
    const { answers, result } = read('anthropic', corpus('llamacpp/b11669-v1-messages-stream.sse'));
    // message_start, content_block_start, 8 deltas, content_block_stop, message_delta, message_stop
    assert.equal(answers.length, 13);
    assert.equal(answers[0], EVENT_NONE);
    assert.equal(answers[1], EVENT_NONE);
    for (const a of answers.slice(2, 10)) assert.ok(Number.isNaN(a), 'a token event without a count');
    assert.deepEqual(answers.slice(10), [EVENT_NONE, EVENT_NONE, EVENT_DONE]);
    assert.equal(result.ok, true);
    assert.equal(result.tokenEvents, 8);
    assert.equal(result.completionTokens, 8);
    assert.equal(result.promptTokens, 16, 'input_tokens 12 + cache_read_input_tokens 4');
    assert.equal(result.cachedTokens, 4);
    assert.equal(result.finishReason, 'length');
    assert.equal(result.text, ' the river ran past the old mill and');
    assert.equal(result.reasoning, undefined);
  });
  test("message_start's output_tokens (1 on Anthropic's API) is no token; a ping is no event", () => {
    const { result } = read('anthropic', corpus('anthropic-api/messages-stream.sse'));
    assert.equal(result.tokenEvents, 2);
    assert.equal(result.completionTokens, 15);
    assert.equal(result.finishReason, 'stop');
  });
  test('thinking_delta is reasoning: the first answer event is the first text_delta', () => {
    const { result } = read('anthropic', corpus('llamacpp/b11669-v1-messages-stream-thinking.sse'));
    assert.equal(result.tokenEvents, 8);
    assert.deepEqual(result.reasoning, { tokens: null, firstReasoningEvent: 0, firstAnswerEvent: 3 });
  });
  test('a stream with a stop reason but cut before message_stop is truncated; events after message_stop are not read', () => {
    const body = corpus('llamacpp/b11669-v1-messages-stream.sse');
    const cut = body.slice(0, body.lastIndexOf('event: message_stop'));
    const r = read('anthropic', cut).result;
    assert.equal(r.error?.class, 'truncated');
    assert.match(r.error?.message ?? '', /without its closing event/);
    const after = read(
      'anthropic',
      body + 'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"x"}}\n\n',
    );
    assert.equal(after.result.ok, true);
  });
  test('a later stream of the same dialect is read by the chunk template', () => {
    const dialect = d('anthropic');
    const body = corpus('llamacpp/b11669-v1-messages-stream.sse');
    let last: Accumulator | null = null;
    for (let k = 0; k < 2; k++) {
      const r = dialect.streamReader();
      for (const e of dataOf(body)) r.onEvent(e);
      assert.equal(r.finish().completionTokens, 8);
      last = r as unknown as Accumulator;
    }
    assert.ok((last as Accumulator).templateEvents >= 6, `${(last as Accumulator).templateEvents} events read by the template`);
  });
  test('refusal is not an answer', () => {
    const r = d('anthropic').parseBody(
      200,
      JSON.stringify({ type: 'message', content: [], stop_reason: 'refusal', usage: { input_tokens: 3, output_tokens: 0 } }),
      'application/json',
    );
    assert.equal(r.error?.class, 'stream_error');
    assert.match(r.error?.message ?? '', /refused/);
  });
  test("a server that refuses ignore_eos beside the API's fields is told to drop it", () => {
    const body = '{"type":"error","error":{"type":"invalid_request_error","message":"ignore_eos: Extra inputs are not permitted"}}';
    const e = classifyStatus(400, body, { ...ctx, route: 'POST /v1/messages' });
    assert.equal(e.class, 'bad_request');
    assert.match(e.message, /set IGNORE_EOS=false/);
    assert.match(libraryWording(e.message), /call with ignoreEos: false \(replies may then end before maxTokens\)/, 'as a library user sets it');
  });
  test('HTTP 529 and overloaded_error are overloaded, whatever 5xx carries them', () => {
    const body = corpus('anthropic-api/messages-529-overloaded.json');
    assert.equal(classifyStatus(529, body, { ...ctx, route: 'POST /v1/messages' }).class, 'overloaded');
    assert.equal(classifyStatus(500, body, { ...ctx, route: 'POST /v1/messages' }).class, 'overloaded');
    assert.equal(
      classifyStatus(500, '{"type":"error","error":{"type":"api_error","message":"x"}}', { ...ctx, route: 'POST /v1/messages' }).class,
      'server_error',
    );
  });
});

describe('Responses streams', () => {
  test('a token event per output_text.delta, response.completed ends it with the usage', () => {
    const { answers, result } = read('responses', corpus('llamacpp/b11669-v1-responses-stream.sse'));
    assert.equal(answers.filter((a) => Number.isNaN(a)).length, 8);
    assert.equal(answers[answers.length - 1], EVENT_DONE);
    assert.deepEqual(
      [result.ok, result.tokenEvents, result.completionTokens, result.promptTokens, result.cachedTokens, result.finishReason],
      [true, 8, 8, 16, 4, 'stop'],
    );
  });
  test('reasoning_text.delta is reasoning', () => {
    const { result } = read('responses', corpus('llamacpp/b11669-v1-responses-stream-reasoning.sse'));
    assert.deepEqual(result.reasoning, { tokens: null, firstReasoningEvent: 0, firstAnswerEvent: 3 });
  });
  test('incomplete at max_output_tokens is a success at its budget; for a content filter it is not', () => {
    const ok = read('responses', corpus('openai-api/responses-stream-incomplete-max-output.sse')).result;
    assert.deepEqual([ok.ok, ok.finishReason, ok.completionTokens], [true, 'length', 2]);
    const filtered = read('responses', corpus('openai-api/responses-stream-incomplete-content-filter.sse')).result;
    assert.equal(filtered.error?.class, 'stream_error');
    assert.match(filtered.error?.message ?? '', /content_filter/);
  });
  test('response.failed and the error event carry their message', () => {
    assert.match(read('responses', corpus('openai-api/responses-stream-failed.sse')).result.error?.message ?? '', /had an error while processing/);
    assert.match(read('responses', corpus('openai-api/responses-stream-error-event.sse')).result.error?.message ?? '', /Something went wrong/);
  });
  test('not streamed: the output text, reasoning items as reasoning', () => {
    const r = d('responses').parseBody(200, corpus('llamacpp/b11669-v1-responses.json'), 'application/json');
    assert.deepEqual([r.ok, r.text, r.completionTokens, r.tokenEvents], [true, ' the river ran past the old mill and', 8, 0]);
    const withReasoning = {
      object: 'response',
      status: 'completed',
      output: [
        { type: 'reasoning', content: [{ type: 'reasoning_text', text: 'hmm' }], summary: [] },
        { type: 'message', content: [{ type: 'output_text', text: 'yes' }] },
      ],
      usage: { input_tokens: 5, output_tokens: 4, output_tokens_details: { reasoning_tokens: 2 } },
    };
    const rr = d('responses').parseBody(200, JSON.stringify(withReasoning), 'application/json');
    assert.equal(rr.text, 'hmmyes');
    assert.equal(rr.reasoning?.tokens, 2);
  });
});
