// Failures servers report in shapes other than a non-2xx status: none may be read as a success,
// on the http path (a whole body) or the sse path (one event at a time, as the transport hands them).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createDialect, type DialectName, type GenerationResult } from '../../../lib/dialects/index';
import { asErrorData, splitSseEvents } from '../../../lib/reading';
import { classifyTransport } from '../../../lib/dialects/errors';

const ctx = { dialectVar: 'DIALECT', modelVar: 'MODEL', model: 'm' };
const body = (dialect: DialectName, status: number, text: string) =>
  createDialect(dialect, ctx).parseBody(status, text, text.trimStart().startsWith('{') ? 'application/json' : 'text/event-stream');

/** The sse path: xk6-sse hands data events over one by one; an `error:` line arrives as an error the transport turns into data. */
function overSse(dialect: DialectName, stream: string): GenerationResult {
  const r = createDialect(dialect, ctx).streamReader();
  for (const block of stream.split('\n\n')) {
    if (block.trim() === '') continue;
    const lines = block.split('\n');
    const err = lines.find((l) => l.startsWith('error:'));
    const named = lines.some((l) => l === 'event: error');
    const data = lines
      .filter((l) => l.startsWith('data:'))
      .map((l) => l.slice(5).trimStart())
      .join('\n');
    if (err) r.onData(asErrorData(err.slice(6)));
    if (data !== '') r.onData(named ? asErrorData(data) : data);
  }
  return r.finish();
}

const both = (dialect: DialectName, stream: string) => [body(dialect, 200, stream), overSse(dialect, stream)];

test("llama.cpp's `error:` line before [DONE] (builds before late 2025): an error, not a success, on both paths", () => {
  const stream =
    'data: {"content":" Hello","stop":false,"tokens_predicted":1}\n\n' +
    'error: {"code":500,"message":"the client disconnected","type":"server_error"}\n\n' +
    'data: [DONE]\n\n';
  for (const r of both('llamacpp', stream)) {
    assert.equal(r.ok, false);
    assert.equal(r.error?.class, 'stream_error');
    assert.match(r.error?.message ?? '', /inside the stream: 'the client disconnected'/);
  }
  // An overflow sent that way is an overflow.
  const overflow =
    'error: {"code":400,"message":"the request exceeds the available context size, try increasing it","type":"exceed_context_size_error"}\n\ndata: [DONE]\n\n';
  for (const r of both('openai', overflow)) assert.equal(r.error?.class, 'context_length');
});

test("`event: error` with data of any shape is the request's error", () => {
  const stream = 'data: {"choices":[{"index":0,"text":" a","finish_reason":null}]}\n\nevent: error\ndata: {"message":"engine dead"}\n\ndata: [DONE]\n\n';
  for (const r of both('openai', stream)) {
    assert.equal(r.ok, false);
    assert.match(r.error?.message ?? '', /engine dead/);
  }
  assert.deepEqual(splitSseEvents('event: error\ndata: oops\n\n').data, ['{"error":{"message":"oops"}}']);
});

test('TGI: finish_reason "" is no finish; a stream cut before the last chunk is truncated; eos_token is stop', () => {
  const chunk = (t: string, f: string) =>
    `data: {"object":"chat.completion.chunk","model":"tgi","choices":[{"index":0,"delta":{"role":"assistant","content":"${t}"},` +
    `"logprobs":null,"finish_reason":"${f}"}]}\n\n`;
  const cut = chunk(' one', '') + chunk(' two', '');
  for (const r of both('openai-chat', cut)) {
    assert.equal(r.ok, false);
    assert.equal(r.error?.class, 'truncated');
  }
  const whole = chunk(' one', '') + chunk(' two', 'eos_token') + 'data: [DONE]\n\n';
  for (const r of both('openai-chat', whole)) {
    assert.equal(r.ok, true);
    assert.equal(r.finishReason, 'stop');
  }
});

test('context overflow at any status and in every wording is context_length', () => {
  const cases: Array<[number, string]> = [
    [500, '{"error":{"code":500,"message":"Context size has been exceeded.","type":"server_error"}}'],
    [400, '{"error":{"code":400,"message":"the context window is full","type":"invalid_request_error"}}'],
    [
      400,
      '{"error":{"code":400,"message":"request (8212 tokens) exceeds the available context size (4096 ' +
        'tokens), try increasing it","type":"exceed_context_size_error","n_prompt_tokens":8212,"n_ctx":4096}}',
    ],
    [
      422,
      '{"error":"Input validation error: `inputs` tokens + `max_new_tokens` must be <= 4096. Given: 4000 ' +
        '`inputs` tokens and 512 `max_new_tokens`","error_type":"validation"}',
    ],
    [
      400,
      '{"object":"error","message":"This model\'s maximum context length is 32768 tokens. However, you ' +
        'requested 33000 tokens (32744 in the messages, 256 in the ' +
        'completion).","type":"BadRequestError","param":null,"code":400}',
    ],
  ];
  for (const [status, text] of cases) assert.equal(body('openai', status, text).error?.class, 'context_length', text);
  // A bad request of another kind stays bad_request; a crash stays server_error.
  assert.equal(body('openai', 400, '{"error":{"message":"temperature must be non-negative"}}').error?.class, 'bad_request');
  assert.equal(body('openai', 500, '{"error":{"message":"CUDA error: an illegal memory access"}}').error?.class, 'server_error');
});

test('an error object in a 200 JSON body: an error, named as such, an overflow recognised', () => {
  const plain = body('openai', 200, '{"error":{"message":"model is loading","type":"unavailable_error","code":503}}');
  assert.equal(plain.ok, false);
  assert.equal(plain.error?.class, 'overloaded');
  assert.match(plain.error?.message ?? '', /in a 200 reply/);
  assert.doesNotMatch(plain.error?.message ?? '', /inside the stream/);
  const overflow = body('sglang', 200, '{"error":{"message":"The input (5000 tokens) is longer than the model\'s context length (4096 tokens)."}}');
  assert.equal(overflow.error?.class, 'context_length');
  assert.equal(body('llamacpp', 200, '{"error":"something broke"}').error?.class, 'stream_error');
});

test('llama.cpp 2024 replies: stopped_limit without stop_type is length; stopped_eos is stop', () => {
  const limit = body(
    'llamacpp',
    200,
    '{"content":" a b c","stop":true,"stopped_eos":false,"stopped_limit":true,"stopped_word":false,"tokens_predicted":3,"tokens_evaluated":5}',
  );
  assert.deepEqual([limit.ok, limit.finishReason, limit.completionTokens], [true, 'length', 3]);
  const eos = body('llamacpp', 200, '{"content":" a","stop":true,"stopped_eos":true,"stopped_limit":false,"tokens_predicted":1,"tokens_evaluated":5}');
  assert.equal(eos.finishReason, 'stop');
});

test('a connection closed mid-reply (FIN) and one reset (RST) are one class, told apart in the message', () => {
  // The texts k6 gives, on both transports (measured in test/scenarios/network.test.ts's cut and reset).
  const cut = classifyTransport(0, 'unexpected EOF', 'POST /v1/completions', 'http://h', 2000);
  const reset = classifyTransport(0, 'read tcp 127.0.0.1:1->127.0.0.1:2: read: connection reset by peer', 'POST /v1/completions', 'http://h', 2000);
  assert.equal(cut.class, 'connection_lost');
  assert.equal(reset.class, 'connection_lost');
  assert.match(cut.message, /closed mid-reply \(unexpected EOF\): the server, or a proxy between, closed it/);
  assert.match(reset.message, /lost mid-reply \(.*connection reset by peer\)\. The server may have crashed/);
});
