// The dataset's run-time pieces: the store (seeded order, domains, estimates), setup's plan (ISL
// buckets filled in seeded order, filters, the one-line errors) and the VU player (same order for
// every variant, multi-turn history, marker only when asked).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { datasetConfig } from '../../../lib/config/dataset-config';
import { DatasetError, parseDataset, type DatasetItem } from '../../../lib/dataset/format';
import { buildStore, firstRequestChars, readDataset, storedItem, NO_DOMAIN } from '../../../lib/dataset/store';
import { estimateCounter, planDataset, serverCounter, tokenizeEngine, type Counter, type DatasetPlan } from '../../../lib/dataset/bucket-plan';
import { DatasetPlayer, firstRequest, turnTag, turnTags } from '../../../lib/dataset/player';
import { failed } from '../../../lib/reading';
import type { GenerationResult } from '../../../lib/dialects/types';
import type { HttpPort, HttpReply } from '../../../lib/http-port';

const ok = (text: string): GenerationResult => ({
  ok: true,
  status: 200,
  text,
  promptTokens: 10,
  completionTokens: 5,
  cachedTokens: 0,
  finishReason: 'length',
  tokenEvents: 0,
  specVerifySteps: null,
  acceptanceLength: null,
  error: null,
});

function jsonl(rows: object[]): string {
  return rows.map((r) => JSON.stringify(r)).join('\n');
}

const words = (n: number, w = 'word') => Array.from({ length: n }, () => w).join(' ');

test('config: DATASET unset means no dataset; its variables alone are refused, naming them', () => {
  const env = (e: Record<string, string>) =>
    datasetConfig(
      (n) =>
        e[n] ?? ({ MULTI_TURN: 'false', MULTI_TURN_HISTORY: 'dataset', THINK_TIME: '0s', DATASET_DOMAIN_MARKER: 'false' } as Record<string, string>)[n] ?? '',
      (n) => n in e,
    );
  assert.equal(env({}), null);
  assert.throws(() => env({ MULTI_TURN: 'true' }), /MULTI_TURN needs DATASET/);
  assert.throws(() => env({ DATASET: 'x.jsonl', THINK_TIME: '1s' }), /THINK_TIME applies to conversations: set MULTI_TURN=true/);
  assert.throws(
    () => env({ DATASET: 'x.jsonl', DATASET_MIN_TOKENS: '100', DATASET_MAX_TOKENS: '10' }),
    /DATASET_MIN_TOKENS=100 is more than DATASET_MAX_TOKENS=10/,
  );
  assert.throws(() => env({ DATASET: 'builtin', DATASET_DOMAINS: 'code' }), /DATASET=builtin:code/);
  const c = env({ DATASET: 'builtin:code', MULTI_TURN: 'true', MULTI_TURN_HISTORY: 'server', THINK_TIME: '2s', DATASET_MAX_TOKENS: '500' });
  assert.deepEqual(c, {
    spec: 'builtin:code',
    domains: null,
    minTokens: null,
    maxTokens: 500,
    domainMarker: false,
    multiTurn: true,
    history: 'server',
    thinkTimeMs: 2000,
  });
});

test('store: seeded order (the same for the same SEED), domains in order of appearance with none, estimates with the marker', () => {
  const ds = parseDataset(
    jsonl([
      { prompt: words(40), domain: 'code' },
      { prompt: words(8) },
      { prompt: words(20), domain: 'chat', output_tokens: 7 },
      {
        messages: [
          { role: 'user', content: 'a' },
          { role: 'assistant', content: 'b' },
          { role: 'user', content: 'c' },
        ],
        domain: 'chat',
      },
    ]),
    { file: 'd.jsonl' },
  );
  const a = buildStore(ds, 1, false);
  const b = buildStore(ds, 1, false);
  const c = buildStore(ds, 2, false);
  assert.deepEqual(a, b);
  assert.deepEqual(a.meta.domains, ['code', 'chat', NO_DOMAIN]);
  assert.equal(a.meta.maxTurns, 2);
  assert.equal(a.meta.withOutputTokens, 1);
  assert.notDeepEqual(
    a.items.map((x) => x.id),
    c.items.map((x) => x.id),
    'another seed, another order',
  );
  const items = a.items.map((s) => storedItem(s, a.meta));
  const byId = Object.fromEntries(items.map((it, k) => [it.id, { it, est: a.estimates[k] }]));
  assert.equal(byId['line-2'].it.domain, NO_DOMAIN);
  assert.equal(byId['line-3'].it.outputTokens, 7);
  assert.equal(byId['line-1'].est, Math.round(words(40).length / 4));
  const marked = buildStore(ds, 1, true);
  const k = marked.items.findIndex((s) => s.id === 'line-1');
  assert.equal(marked.estimates[k], Math.round(('[domain: code]\n' + words(40)).length / 4));
  // Without any domain: no tag at all.
  assert.deepEqual(buildStore(parseDataset('one\ntwo\n', { file: 't.txt' }), 1, false).meta.domains, []);
});

test('readDataset: builtin, a file through read(), DATASET_DOMAINS, an unreadable file named', () => {
  const base = { domains: null, minTokens: null, maxTokens: null, domainMarker: false, multiTurn: false, history: 'dataset' as const, thinkTimeMs: 0 };
  assert.equal(
    readDataset({ ...base, spec: 'builtin:code' }, () => assert.fail('no read')).items.every((i) => i.domain === 'code'),
    true,
  );
  const text = jsonl([
    { prompt: 'a', domain: 'x' },
    { prompt: 'b', domain: 'y' },
  ]);
  assert.equal(readDataset({ ...base, spec: 'f.jsonl', domains: ['y'] }, () => text).items.length, 1);
  assert.throws(
    () =>
      readDataset({ ...base, spec: 'nope.jsonl' }, () => {
        throw new Error('open nope.jsonl: no such file or directory');
      }),
    /DATASET='nope.jsonl': cannot read the file: .*no such file/,
  );
  assert.throws(() => readDataset({ ...base, spec: 'f.jsonl', domains: ['z'] }, () => text), /no prompt of domain z: the dataset's domains are x, y/);
});

function planFor(
  counts: number[],
  isl: number[],
  pool: number,
  filter = { minTokens: null as number | null, maxTokens: null as number | null },
  counter?: Counter,
): DatasetPlan {
  return planDataset({
    source: 'DATASET=d.jsonl',
    total: counts.length,
    shape: { domains: [], turns: [] },
    format: 'jsonl',
    withOutputTokens: 0,
    skipped: 0,
    isl,
    pool,
    filter,
    counter: counter ?? estimateCounter((i) => counts[i]),
    maxCalls: 1000,
    expired: () => false,
  });
}

test('plan: buckets filled with the first items of the seeded order that fit, up to the pool; outside and filtered counted', () => {
  const counts = [100, 1000, 120, 5000, 110, 900, 130, 1100];
  const p = planFor(counts, [128, 1024], 2);
  assert.deepEqual(
    p.buckets.map((b) => [b.isl, b.items, b.tokens]),
    [
      [128, [0, 2], [100, 120]],
      [1024, [1, 5], [1000, 900]],
    ],
  );
  assert.equal(p.examined, 6, 'stops once every bucket is full');
  assert.equal(p.outside, 1);
  const f = planFor(counts, [128], 10, { minTokens: 115, maxTokens: null });
  assert.deepEqual(f.buckets[0].items, [2, 6]);
  assert.equal(f.filtered, 2);
  assert.match(f.notes.join(' '), /ISL 128: 2 prompts of 64 to 255 tokens in the dataset, fewer than PROMPT_POOL=10/);
});

test('plan: an empty ISL bucket or a filter that leaves nothing stops with one line that says what the prompts have', () => {
  assert.throws(
    () => planFor([10, 20, 30], [1024], 4),
    (e: unknown) =>
      e instanceof DatasetError &&
      /DATASET=d.jsonl: no prompt for ISL 1024 \(512 to 2047 tokens\): the 3 prompts examined have 10 to 30 tokens, estimated as characters ÷ 4 \(no tokenize route\); set ISL to lengths in that range, e\.g\. ISL=17\./.test(
        e.message,
      ),
  );
  assert.throws(() => planFor([10, 20], [16], 4, { minTokens: 50, maxTokens: null }), /no prompt has at least 50 tokens .*the prompts have 10 to 20 tokens/);
});

function fakePort(handler: (url: string, body: string) => HttpReply): HttpPort & { calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    get: () => ({ status: 404, body: '', contentType: '', error: '', errorCode: 0 }),
    post: (url, body) => {
      calls.push(url);
      return handler(url, body);
    },
    sleep: () => undefined,
    now: () => 0,
  };
}

test('server counts: the first variant whose tokenize route answers counts every prompt (vLLM messages for chat); none: null', () => {
  const io = fakePort((url, body) => {
    if (url.startsWith('http://a')) return { status: 404, body: 'Not Found', contentType: 'text/plain', error: '', errorCode: 0 };
    const b = JSON.parse(body) as { messages?: unknown[]; prompt?: string };
    const n = b.messages ? 100 + b.messages.length : (b.prompt ?? '').length;
    return { status: 200, body: JSON.stringify({ count: n, max_model_len: 4096, tokens: [] }), contentType: 'application/json', error: '', errorCode: 0 };
  });
  const variants = [
    { variant: 'a', url: 'http://a', engine: 'sglang', model: 'm', headers: {}, chat: false },
    { variant: 'b', url: 'http://b', engine: 'vllm', model: 'm', headers: {}, chat: true },
  ];
  const c = serverCounter(io, variants, (i, chat) => (chat ? [{ role: 'user', content: `p${i}` }] : `p${i}`));
  assert.ok(c);
  assert.equal(c.variant, 'b');
  assert.deepEqual(c.source, { kind: 'server', route: 'POST /tokenize of b' });
  assert.equal(c.count(0), 101);
  assert.equal(c.count(1), 101);
  assert.deepEqual(io.calls, ['http://a/v1/tokenize', 'http://b/tokenize', 'http://b/tokenize'], 'the first count is not asked twice');
  assert.equal(
    serverCounter(io, [variants[0]], () => 'x'),
    null,
  );
  // The variant's profile when it has a tokenize route, else the one its /metrics page names.
  assert.equal(tokenizeEngine(null, 'sglang'), 'sglang');
  assert.equal(tokenizeEngine(null, 'vllm'), 'vllm');
  assert.equal(tokenizeEngine(null, 'llamacpp'), 'llamacpp');
  assert.equal(tokenizeEngine('vllm', 'tgi'), 'vllm');
  assert.equal(tokenizeEngine(null, 'openai-compatible'), null);
  assert.equal(tokenizeEngine(null, null), null);
});

function player(items: DatasetItem[], o: { chat?: boolean; marker?: boolean; multiTurn?: boolean; history?: 'dataset' | 'server' } = {}) {
  const plan = planFor(
    items.map(() => 10),
    [10],
    100,
  );
  return new DatasetPlayer({
    plan,
    item: (i) => items[i],
    chat: o.chat ?? false,
    marker: o.marker ?? false,
    multiTurn: o.multiTurn ?? false,
    history: o.history ?? 'dataset',
  });
}

const conv = (id: string, domain: string | null, ...contents: string[]): DatasetItem => ({
  id,
  domain,
  outputTokens: null,
  turns: contents.map((content, i) => ({ role: i % 2 === 0 ? 'user' : 'assistant', content })),
});

test('player: each VU slot cycles through its own block; two players (two variants) send the same order; output_tokens wins over OSL', () => {
  const items = Array.from({ length: 6 }, (_, i) => ({ ...conv(`i${i}`, 'code', `prompt ${i}`), outputTokens: i === 0 ? 9 : null }));
  const seq = () => {
    const p = player(items);
    p.start(10, 1, 2);
    return Array.from({ length: 4 }, () => {
      const r = p.next(64);
      p.done(ok(''));
      return [r.prompt.kind === 'text' ? r.prompt.text : '', r.maxTokens, r.turn, r.intended, r.domain];
    });
  };
  assert.deepEqual(seq(), seq());
  assert.deepEqual(
    seq().map((x) => x[0]),
    ['prompt 3', 'prompt 4', 'prompt 5', 'prompt 3'],
  );
  const p = player(items);
  p.start(10, 0, 2);
  assert.equal(p.next(64).maxTokens, 9);
});

test('player: the marker only when asked, before the first user turn; chat gets the messages', () => {
  const items = [
    {
      ...conv('c', 'code', 'write a loop'),
      turns: [
        { role: 'system' as const, content: 'sys' },
        { role: 'user' as const, content: 'write a loop' },
      ],
    },
  ];
  const plain = player(items);
  plain.start(10, 0, 1);
  const a = plain.next(8).prompt;
  assert.equal(a.kind === 'text' && a.text, 'sys\n\nwrite a loop');
  assert.ok(!(a.kind === 'text' && a.text.includes('[domain:')));
  const chat = player(items, { chat: true, marker: true });
  chat.start(10, 0, 1);
  const b = chat.next(8).prompt;
  assert.deepEqual(b.kind === 'text' && b.messages, [
    { role: 'system', content: 'sys' },
    { role: 'user', content: '[domain: code]\nwrite a loop' },
  ]);
  assert.deepEqual(firstRequest(items[0], false, true), 'sys\n\n[domain: code]\nwrite a loop');
  const none = player([conv('n', NO_DOMAIN, 'hi')], { marker: true });
  none.start(10, 0, 1);
  const c = none.next(8).prompt;
  assert.equal(c.kind === 'text' && c.text, 'hi', 'items without a domain carry no marker');
});

test('player, multi-turn: turn by turn with the dataset history, then the next conversation; intended only for turn 1', () => {
  const items = [conv('a', 'chat', 'u1', 'a1', 'u2', 'a2', 'u3'), conv('b', 'chat', 'v1')];
  const p = player(items, { multiTurn: true, chat: true });
  p.start(10, 0, 1);
  const got: Array<[number, string, number | null]> = [];
  for (let i = 0; i < 5; i++) {
    const r = p.next(8);
    got.push([r.turn, r.prompt.kind === 'text' ? (r.prompt.messages ?? []).map((m) => m.content).join('|') : '', r.intended]);
    p.done(i === 1 ? failed(0, { class: 'timeout', message: 't' }) : ok('x'));
  }
  assert.deepEqual(got, [
    [1, 'u1', 10],
    [2, 'u1|a1|u2', null],
    [3, 'u1|a1|u2|a2|u3', null],
    [1, 'v1', 10],
    [1, 'u1', 10],
  ]);
});

test("player, multi-turn with the server's replies: the history grows with them; a failed turn ends the conversation", () => {
  const items = [conv('a', 'chat', 'u1', 'a1', 'u2', 'a2', 'u3')];
  const p = player(items, { multiTurn: true, history: 'server', chat: true, marker: true });
  p.start(10, 0, 1);
  const texts: string[] = [];
  const replies = [ok('R1'), failed(500, { class: 'server_error', message: 'x' })];
  for (let i = 0; i < 3; i++) {
    const r = p.next(8);
    texts.push(`${r.turn}:${r.prompt.kind === 'text' ? (r.prompt.messages ?? []).map((m) => m.content).join('|') : ''}`);
    p.done(replies[i] ?? ok('R'));
  }
  assert.deepEqual(texts, ['1:[domain: chat]\nu1', '2:[domain: chat]\nu1|R1|u2', '1:[domain: chat]\nu1']);
});

test('turn tags: 1 … 7, then 8+', () => {
  assert.deepEqual([1, 7, 8, 30].map(turnTag), ['1', '7', '8+', '8+']);
  assert.deepEqual(turnTags(3), ['1', '2', '3']);
  assert.equal(turnTags(40).length, 8);
});

test('store: the estimate counts the first request as sent without building it', () => {
  const items: DatasetItem[] = [
    conv('a', 'code', 'hello there'),
    conv('b', null, 'u1', 'a1', 'u2'),
    {
      id: 'c',
      domain: 'chat',
      outputTokens: null,
      turns: [
        { role: 'system', content: 'be brief' },
        { role: 'assistant', content: 'hi' },
        { role: 'user', content: 'q' },
        { role: 'user', content: 'r' },
      ],
    },
  ];
  for (const it of items) {
    for (const marker of [false, true]) {
      const sent = firstRequest(it, false, marker) as string;
      assert.equal(firstRequestChars(it, marker), sent.length, `${it.id} marker ${marker}`);
    }
  }
});
