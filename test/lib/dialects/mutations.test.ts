// What the mutation fuzz test (fuzz.test.ts) found in the readers, each as a focused case on the
// smallest input it reported, read on every path (read-paths.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createDialect, type DialectName, type GenerationResult } from '../../../lib/dialects/index';
import { batched, CTX, oneByOne, sseEvents, type StreamRead } from './read-paths';

/** The whole body over http, and its events one by one and in batches of 1 and 64 over sse. */
function everyPath(dialect: DialectName, body: string, contentType = 'text/event-stream'): Array<[string, GenerationResult, StreamRead | null]> {
  const whole = createDialect(dialect, CTX).parseBody(200, body, contentType);
  if (!contentType.includes('event-stream')) return [['whole body', whole, null]];
  const events = sseEvents(body);
  const reads: Array<[string, StreamRead]> = [
    ['one by one', oneByOne(dialect, events)],
    ['batches of 1', batched(dialect, events, [1])],
    ['batches of 64', batched(dialect, events, [64])],
  ];
  return [['whole body', whole, null], ...reads.map(([p, s]): [string, GenerationResult, StreamRead] => [p, s.result, s])];
}

test('a negative count is no count: not reported, not a negative event', () => {
  const json = (dialect: DialectName, body: string) => createDialect(dialect, CTX).parseBody(200, body, 'application/json');
  const chat = json(
    'openai-chat',
    '{"choices":[{"index":0,"message":{"role":"assistant","content":" a ' +
      'b"},"finish_reason":"length"}],"usage":{"completion_tokens":-16,"prompt_tokens":-5,"prompt_tokens_details":{"cached_tokens":-1}}}',
  );
  assert.deepEqual([chat.ok, chat.completionTokens, chat.promptTokens, chat.cachedTokens], [true, null, null, null]);
  const native = json('llamacpp', '{"content":" a","stop":true,"stop_type":"limit","tokens_predicted":-16,"tokens_evaluated":8}');
  assert.deepEqual([native.completionTokens, native.promptTokens], [null, 8]);
  const stream =
    'data: {"text":" one","meta_info":{"finish_reason":null,"prompt_tokens":8,"completion_tokens":1}}\n\n' +
    'data: {"text":" one two","meta_info":{"finish_reason":{"type":"length"},"prompt_tokens":8,"completion_tokens":-2}}\n\n';
  for (const [p, r, s] of everyPath('sglang', stream)) {
    assert.equal(r.completionTokens, 1, p);
    if (s) assert.deepEqual(s.tokens, [1, NaN], p);
  }
});

test("a running count that goes backwards: that event's tokens are not known, the highest count stands", () => {
  // Events 2 and 3 of a vLLM stream with usage per chunk, swapped: 6 then 3.
  const ev = (text: string, n: number, finish: string | null) =>
    `data: {"id":"c","object":"text_completion","created":1,"model":"m","choices":[{"index":0,"text":"${text}","logprobs":null,` +
    `"finish_reason":${finish === null ? null : `"${finish}"`}}],"usage":{"prompt_tokens":8,"total_tokens":${8 + n},` +
    `"completion_tokens":${n}}}\n\n`;
  const stream = ev(' one', 1, null) + ev(' four five six', 6, null) + ev(' two three', 3, null) + ev(' seven', 7, 'length') + 'data: [DONE]\n\n';
  for (const [p, r, s] of everyPath('openai', stream)) {
    assert.equal(r.completionTokens, 7, p);
    if (s) assert.deepEqual(s.tokens, [1, 5, NaN, 1], p);
  }
  // In streams long enough for the chunk template to read them: one count out of order, and a
  // count that starts again from 2 and rises by one as the template predicts.
  const long = (count: (i: number) => number) =>
    Array.from({ length: 14 }, (_, i) => ev(` w${i}`, count(i), i === 13 ? 'length' : null)).join('') + 'data: [DONE]\n\n';
  for (const [p, r, s] of everyPath(
    'openai',
    long((i) => (i === 8 ? 2 : i + 1)),
  )) {
    assert.equal(r.completionTokens, 14, p);
    if (s) assert.deepEqual(s.tokens, [1, 1, 1, 1, 1, 1, 1, 1, NaN, 2, 1, 1, 1, 1], p);
  }
  for (const [p, r, s] of everyPath(
    'openai',
    long((i) => (i < 8 ? i + 1 : i - 6)),
  )) {
    assert.equal(r.completionTokens, 8, p);
    if (s) assert.deepEqual(s.tokens, [1, 1, 1, 1, 1, 1, 1, 1, NaN, NaN, NaN, NaN, NaN, NaN], p);
  }
});

test("events after [DONE] are not the reply's, read whole as over sse", () => {
  const chunk = 'data: {"choices":[{"index":0,"text":" a","finish_reason":"length"}],"usage":{"prompt_tokens":8,"completion_tokens":1}}\n\n';
  const after = [
    'data: {"error":{"message":"CUDA error: an illegal memory access was encountered","code":400}}',
    'data: {"id":"cmpl-8f1d","object":"text_compl',
    'data: {"choices":[{"index":0,"text":" b","finish_reason":null}],"usage":{"prompt_tokens":8,"completion_tokens":2}}',
  ];
  for (const a of after) {
    for (const [p, r] of everyPath('openai', `${chunk}data: [DONE]\n\n${a}\n\n`)) {
      assert.deepEqual([r.ok, r.completionTokens, r.text], [true, 1, ' a'], `${p}: ${a}`);
    }
  }
});

test('an `error:` line cut off before its blank line is still the error, read whole as over sse', () => {
  // llama.cpp before late 2025, the connection closed after the error line's newline.
  const cut =
    'error: {"code":400,"message":"the request exceeds the available context size. try increasing the ' +
    'context size or enable context shift","type":"invalid_request_error"}\n';
  for (const body of [cut, `data: {"content":" a","stop":false,"tokens_predicted":1}\n\n${cut}`]) {
    for (const [p, r] of everyPath('llamacpp', body)) assert.equal(r.error?.class, 'context_length', p);
  }
  // A data line cut off so is not an event on either path.
  for (const [p, r] of everyPath('openai', 'data: [DONE]\n')) assert.equal(r.error?.class, 'truncated', p);
});

test('SGLang: an error key beside meta_info is the error, in a whole reply and first in a cumulative chunk', () => {
  const meta = (n: number, finish: string) => `"meta_info":{"id":"abc","finish_reason":${finish},"prompt_tokens":8,"completion_tokens":${n},"cached_tokens":0}`;
  const whole = `{"text":" Paris.","output_ids":[12095,13],"error":{"message":"boom"},${meta(2, '{"type":"length","length":2}')}}`;
  for (const body of [whole, whole.replace('{"text"', '{"error":{"message":"boom"},"text"').replace(',"error":{"message":"boom"}', '')]) {
    const r = createDialect('sglang', CTX).parseBody(200, body, 'application/json');
    assert.deepEqual([r.ok, r.error?.class], [false, 'stream_error'], body);
  }
  // A cumulative stream long enough for the template's closure to read it; chunk 9 has an error key first.
  let text = '';
  let stream = '';
  for (let n = 1; n <= 12; n++) {
    text += ` w${n}`;
    stream +=
      `data: {${n === 9 ? '"error":{"message":"boom"},' : ''}"text":"${text}","output_ids":[${n}],` +
      `${meta(n, n === 12 ? '{"type":"length"}' : 'null')}}\n\n`;
  }
  for (const [p, r] of everyPath('sglang', `${stream}data: [DONE]\n\n`)) assert.deepEqual([r.ok, r.error?.class], [false, 'stream_error'], p);
});

test("an event without data (xk6-sse's for a keep-alive comment or an extra blank line) is no event", () => {
  const chunk = (n: number, finish: string | null) =>
    `data: {"choices":[{"index":0,"text":" w${n}","finish_reason":${finish === null ? null : `"${finish}"`}}],"usage":{"prompt_tokens":8,` +
    `"completion_tokens":${n}}}\n\n`;
  let body = ': ping\n\n';
  for (let n = 1; n <= 12; n++) body += chunk(n, n === 12 ? 'length' : null) + (n % 5 === 0 ? ':\n\n\n' : '');
  body += 'data: [DONE]\n\n';
  assert.ok(sseEvents(body).includes(''), 'the framing hands over events without data');
  for (const [p, r, s] of everyPath('openai', body)) {
    assert.deepEqual([r.ok, r.completionTokens, r.tokenEvents], [true, 12, 12], p);
    if (s) assert.deepEqual(s.tokens, Array(12).fill(1), p);
  }
  // A stream cut after one: truncated, and after as many events on both paths.
  for (const [p, r] of everyPath('openai', `${chunk(1, null)}: ping\n\n`)) assert.match(r.error?.message ?? '', /after 1 event\(s\)/, p);
});

test('Responses: response.failed is an error though its response says status completed', () => {
  const delta = 'event: response.output_text.delta\ndata: {"type":"response.output_text.delta","item_id":"m","delta":"Hi"}\n\n';
  const failed = (status: string) =>
    `event: response.failed\ndata: {"type":"response.failed","response":{"object":"response","status":"${status}","usage":{"input_tokens":37,` +
    `"output_tokens":2}}}\n\n`;
  for (const status of ['completed', 'incomplete', 'failed']) {
    for (const [p, r] of everyPath('responses', delta + failed(status)))
      assert.deepEqual([r.ok, r.error?.class], [false, 'stream_error'], `${p}: status ${status}`);
  }
});
