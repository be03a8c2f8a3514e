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
  const chat = json('openai-chat', '{"choices":[{"index":0,"message":{"role":"assistant","content":" a b"},"finish_reason":"length"}],"usage":{"completion_tokens":-16,"prompt_tokens":-5,"prompt_tokens_details":{"cached_tokens":-1}}}');
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
