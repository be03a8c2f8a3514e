import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DatasetError, type DatasetItem } from '../../../lib/dataset/format';
import { bucketByLength, describeLengths, estimateTokens, filterByLength, parseTokenizeReply, tokenizeRequest } from '../../../lib/dataset/lengths';

const turns = [
  { role: 'system' as const, content: 'Be brief.' },
  { role: 'user' as const, content: 'Hello' },
];

test('tokenizeRequest: vLLM prompt and messages forms', () => {
  assert.deepEqual(tokenizeRequest('vllm', 'm', 'Hello world'), {
    method: 'POST',
    path: '/tokenize',
    body: JSON.stringify({ model: 'm', prompt: 'Hello world', add_special_tokens: true }),
  });
  const chat = tokenizeRequest('vllm', 'm', turns);
  assert.equal(chat?.path, '/tokenize');
  assert.deepEqual(JSON.parse(chat?.body ?? ''), {
    model: 'm',
    messages: [
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Hello' },
    ],
    add_generation_prompt: true,
  });
  assert.deepEqual(JSON.parse(tokenizeRequest('vllm', null, 'x')?.body ?? ''), { prompt: 'x', add_special_tokens: true }, 'no model field without a model');
});

test('tokenizeRequest: SGLang counts text (a conversation as its joined turns); llama.cpp takes content', () => {
  assert.deepEqual(tokenizeRequest('sglang', 'm', 'Hi'), {
    method: 'POST',
    path: '/v1/tokenize',
    body: JSON.stringify({ model: 'm', prompt: 'Hi', add_special_tokens: true }),
  });
  assert.deepEqual(JSON.parse(tokenizeRequest('sglang', 'm', turns)?.body ?? '').prompt, 'Be brief.\n\nHello');
  assert.deepEqual(tokenizeRequest('llamacpp', 'm', 'Hi'), { method: 'POST', path: '/tokenize', body: JSON.stringify({ content: 'Hi', add_special: true }) });
  assert.equal(tokenizeRequest('openai', 'm', 'Hi'), null, 'an unknown OpenAI-compatible server: no route, estimate instead');
  assert.equal(tokenizeRequest('tgi', 'm', 'Hi'), null);
});

test("parseTokenizeReply reads each engine's answer and refuses anything else", () => {
  assert.equal(parseTokenizeReply('vllm', '{"count":5,"max_model_len":32768,"tokens":[1,2,3,4,5],"token_strs":null}'), 5);
  assert.equal(parseTokenizeReply('sglang', '{"tokens":[9,8,7],"count":3,"max_model_len":32768}'), 3);
  assert.equal(parseTokenizeReply('vllm', '{"tokens":[1,2]}'), 2, 'count missing: the token list');
  assert.equal(parseTokenizeReply('llamacpp', '{"tokens":[15339,1917]}'), 2);
  assert.equal(parseTokenizeReply('llamacpp', '{"tokens":[{"id":1,"piece":"a"},{"id":2,"piece":"b"}]}'), 2, 'with_pieces form');
  assert.equal(parseTokenizeReply('llamacpp', '{"tokens":[]}'), 0);
  assert.equal(parseTokenizeReply('vllm', '{"detail":"Not Found"}'), null);
  assert.equal(parseTokenizeReply('sglang', '{"object":"error","message":"x"}'), null);
  assert.equal(parseTokenizeReply('vllm', 'Internal Server Error'), null);
  assert.equal(parseTokenizeReply('vllm', '[1,2]'), null);
  assert.equal(parseTokenizeReply('vllm', '{"count":-1}'), null);
  assert.equal(parseTokenizeReply('openai', '{"count":5}'), null, 'no route there, so no reply to read');
});

test('estimateTokens: characters ÷ 4, at least 1; named as an estimate', () => {
  assert.equal(estimateTokens(''), 1);
  assert.equal(estimateTokens('abcd'), 1);
  assert.equal(estimateTokens('a'.repeat(400)), 100);
  assert.equal(describeLengths({ kind: 'estimate' }), 'estimated as characters ÷ 4 (no tokenize route)');
  assert.equal(describeLengths({ kind: 'server', route: 'POST /tokenize' }), 'counted by the server (POST /tokenize)');
});

test('filterByLength keeps counts within bounds; none left is an error with the span and the source', () => {
  const counts = [10, 50, 100, 500, 2000];
  assert.deepEqual(filterByLength('DATASET=d', counts, { minTokens: 50, maxTokens: 500 }, { kind: 'estimate' }), [1, 2, 3]);
  assert.deepEqual(filterByLength('DATASET=d', counts, { minTokens: null, maxTokens: 60 }, { kind: 'estimate' }), [0, 1]);
  assert.deepEqual(filterByLength('DATASET=d', counts, { minTokens: 1000, maxTokens: null }, { kind: 'estimate' }), [4]);
  assert.deepEqual(filterByLength('DATASET=d', counts, { minTokens: null, maxTokens: null }, { kind: 'estimate' }), [0, 1, 2, 3, 4]);
  assert.throws(
    () => filterByLength('DATASET=d.jsonl', counts, { minTokens: 4000, maxTokens: 8000 }, { kind: 'server', route: 'POST /tokenize' }),
    (e: Error) =>
      e instanceof DatasetError &&
      e.message === 'DATASET=d.jsonl: no prompt has between 4000 and 8000 tokens: the prompts have 10 to 2000 tokens, counted by the server (POST /tokenize)',
  );
  assert.throws(
    () => filterByLength('DATASET=d', counts, { minTokens: 3000, maxTokens: null }, { kind: 'estimate' }),
    /no prompt has at least 3000 tokens: the prompts have 10 to 2000 tokens, estimated as characters ÷ 4/,
  );
});

const items = (n: number): DatasetItem[] =>
  Array.from({ length: n }, (_, i) => ({ id: `i${i}`, domain: null, turns: [{ role: 'user', content: 'x' }], outputTokens: null }));

test('bucketByLength: geometric midpoints between ISLs, mirrored outer edges, the axis order kept', () => {
  const counts = [40, 100, 300, 400, 1000, 3000, 5000, 10];
  const { buckets, outside } = bucketByLength(items(counts.length), counts, [1024, 128]);
  assert.deepEqual(
    buckets.map((b) => b.isl),
    [1024, 128],
    'buckets in the axis order',
  );
  const [b1024, b128] = buckets;
  const mid = Math.sqrt(128 * 1024);
  assert.equal(b128.hi, mid);
  assert.equal(b1024.lo, mid);
  assert.ok(Math.abs(b128.lo - (128 * 128) / mid) < 1e-9, 'the first bucket reaches as far below 128 as above it (log scale)');
  assert.ok(Math.abs(b1024.hi - (1024 * 1024) / mid) < 1e-9);
  assert.deepEqual(b128.indices, [1, 2]);
  assert.deepEqual(b1024.indices, [3, 4]);
  assert.deepEqual(outside, [0, 5, 6, 7], '40 < 45.25 and 3000 ≥ 2896: outside both');
  assert.equal(b128.meanTokens, 200);
  assert.equal(b1024.meanTokens, 700);
});

test('bucketByLength: a one-value axis takes [ISL/2, 2·ISL); an empty bucket has no mean', () => {
  const { buckets, outside } = bucketByLength(items(4), [511, 512, 2047, 2048], [1024]);
  assert.deepEqual(buckets[0].indices, [1, 2]);
  assert.deepEqual(outside, [0, 3]);
  const empty = bucketByLength(items(1), [100], [100, 100000]).buckets[1];
  assert.deepEqual(empty.indices, []);
  assert.equal(empty.meanTokens, null);
  assert.throws(() => bucketByLength(items(2), [1], [128]), RangeError);
});
