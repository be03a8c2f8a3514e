// The ITL rule (lib/metrics/timing): per-event server counts, else one token per event when the
// final count equals the token-carrying events, else per-chunk gaps under their own metric. Fed
// both with hand-made events and with real llama-server streams (test/fixtures/replies/llamacpp-*).
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { createDialect, type DialectName } from '../../../lib/dialects/index';
import { itlRule, requestTiming, sliceTokens, type TimedEvent } from '../../../lib/metrics/timing';
import { recordRequest } from '../../../lib/metrics/samples';
import type { MetricKey } from '../../../lib/metrics/catalog';
import type { GenerationResult } from '../../../lib/dialects/types';
import { reply } from '../fixtures';

const ev = (t: number, tokens: number | null = null): TimedEvent => ({ t, tokens });

/** Feeds a recorded stream as the sse transport does, one event every `gapMs`, collecting token events. */
function stream(dialect: DialectName, body: string, gapMs = 10) {
  const reader = createDialect(dialect, { dialectVar: 'DIALECT', modelVar: 'MODEL' }).streamReader();
  const events: TimedEvent[] = [];
  let t = 100;
  for (const e of body.split('\n\n').filter((x) => x.startsWith('data: '))) {
    t += gapMs;
    const info = reader.onData(e.slice(6));
    if (info.carriesToken) events.push({ t, tokens: info.tokens });
  }
  return { events, result: reader.finish() };
}

const sse = (chunks: unknown[]) => chunks.map((c) => `data: ${JSON.stringify(c)}\n\n`).join('') + 'data: [DONE]\n\n';

describe('itlRule', () => {
  test('(a) per-event counts from the server win', () => {
    assert.equal(itlRule([ev(0, 1), ev(10, 3), ev(20, 1)], 5), 'server-counts');
    // even when the final count happens to equal the events
    assert.equal(itlRule([ev(0, 1), ev(10, 1)], 2), 'server-counts');
  });
  test('(b) no per-event counts, final count = token-carrying events: one token each', () => {
    assert.equal(itlRule([ev(0), ev(10), ev(25)], 3), 'one-token-per-event');
  });
  test('(c) otherwise per chunk: counts differ, unknown, or partly reported', () => {
    assert.equal(itlRule([ev(0), ev(10), ev(25)], 7), 'per-chunk');
    assert.equal(itlRule([ev(0), ev(10)], null), 'per-chunk');
    assert.equal(itlRule([ev(0, 1), ev(10, 2), ev(20, null)], 9), 'per-chunk');
  });
  test('partly reported counts whose total matches the events are one token each', () => {
    assert.equal(itlRule([ev(0, 1), ev(10, null), ev(20, 1)], 3), 'one-token-per-event');
  });
  test('no gap to measure: no rule', () => {
    assert.equal(itlRule(null, 10), null);
    assert.equal(itlRule([], 10), null);
    assert.equal(itlRule([ev(5)], 1), null);
  });
});

describe('requestTiming under each rule', () => {
  test('http: nothing but e2e', () => {
    assert.deepEqual(requestTiming(1000, 3000, null, 100), {
      e2eMs: 2000,
      ttftMs: null,
      ttstMs: null,
      itlMs: null,
      itlPerChunkMs: null,
      itlRule: null,
      tpotMs: null,
    });
  });
  test('one token per event: ITL is each gap, TPOT as always', () => {
    const t = requestTiming(0, 60, [ev(20), ev(30), ev(45), ev(60)], 4);
    assert.equal(t.itlRule, 'one-token-per-event');
    assert.deepEqual(t.itlMs, [10, 15, 15]);
    assert.equal(t.itlPerChunkMs, null);
    assert.equal(t.tpotMs, (60 - 20) / 3);
  });
  test('per chunk: gaps go to itlPerChunkMs, never to itlMs; TPOT is still measured', () => {
    const t = requestTiming(0, 100, [ev(40), ev(70), ev(100)], 9);
    assert.equal(t.itlRule, 'per-chunk');
    assert.equal(t.itlMs, null);
    assert.deepEqual(t.itlPerChunkMs, [30, 30]);
    assert.equal(t.ttftMs, 40);
    assert.equal(t.tpotMs, 60 / 8);
  });
  test('server counts: per token, as before', () => {
    const t = requestTiming(0, 200, [ev(100, 1), ev(140, 4), ev(170, 1)], 6);
    assert.equal(t.itlRule, 'server-counts');
    assert.deepEqual(t.itlMs, [10, 10, 10, 10, 30]);
  });
});

describe('recordRequest: the rule is counted, per-chunk gaps under their own metric', () => {
  const ok = (completionTokens: number): GenerationResult => ({
    ok: true,
    status: 200,
    text: '',
    promptTokens: 4,
    completionTokens,
    cachedTokens: null,
    finishReason: 'length',
    tokenEvents: 3,
    specVerifySteps: null,
    acceptanceLength: null,
    error: null,
  });
  const collect = (completion: number, events: TimedEvent[]) => {
    const out: Array<{ metric: MetricKey; value: number; tags?: Record<string, string> }> = [];
    recordRequest(
      { result: ok(completion), startMs: 0, endMs: 100, events },
      { cellStartMs: 0, sliceMs: 1000, slices: 2, trackLastEnd: false, latencyFromMs: -Infinity },
      { ttftP99Ms: null, ttftOf: 'first', itlP99Ms: null, e2eP99Ms: null },
      (metric, value, tags) => out.push({ metric, value, tags }),
    );
    return out;
  };
  test('one token per event', () => {
    const s = collect(3, [ev(40), ev(70), ev(100)]);
    assert.deepEqual(
      s.filter((x) => x.metric === 'itl').map((x) => x.value),
      [30, 30],
    );
    assert.equal(s.filter((x) => x.metric === 'itlPerChunk').length, 0);
    assert.deepEqual(
      s.filter((x) => x.metric === 'itlRule').map((x) => [x.value, x.tags]),
      [[1, { itl_rule: 'one-token-per-event' }]],
    );
    // tokens attributed to slices by event time, one each
    assert.deepEqual(
      s.filter((x) => x.metric === 'windowTokens').map((x) => x.value),
      [3],
    );
  });
  test('per chunk', () => {
    const s = collect(8, [ev(40), ev(70), ev(100)]);
    assert.equal(s.filter((x) => x.metric === 'itl').length, 0);
    assert.deepEqual(
      s.filter((x) => x.metric === 'itlPerChunk').map((x) => x.value),
      [30, 30],
    );
    assert.deepEqual(
      s.filter((x) => x.metric === 'itlRule').map((x) => x.tags),
      [{ itl_rule: 'per-chunk' }],
    );
    assert.equal(s.filter((x) => x.metric === 'tpot').length, 1);
  });
});

describe('sliceTokens with one token per event', () => {
  test('events without counts, as many as the tokens: each goes to its slice', () => {
    assert.deepEqual(sliceTokens({ startMs: 0, endMs: 2500, tokens: 3 }, { cellStartMs: 0, sliceMs: 1000, slices: 3 }, [ev(500), ev(1500), ev(2400)]), [
      [0, 1],
      [1, 1],
      [2, 1],
    ]);
  });
  test('events without counts, fewer than the tokens: spread evenly as with http', () => {
    assert.deepEqual(sliceTokens({ startMs: 0, endMs: 2000, tokens: 4 }, { cellStartMs: 0, sliceMs: 1000, slices: 2 }, [ev(500), ev(1500)]), [
      [0, 2],
      [1, 2],
    ]);
  });
});

describe('real llama-server streams (b11669)', () => {
  test('/v1/completions: 12 one-token chunks, the final chunk (usage, empty text) is not a token', () => {
    const { events, result } = stream('openai', reply('llamacpp-completions-stream.txt'));
    assert.equal(result.ok, true);
    assert.equal(result.completionTokens, 12);
    assert.equal(events.length, 12);
    assert.ok(
      events.every((e) => e.tokens === null),
      'no per-chunk counts: llama.cpp ignores continuous_usage_stats',
    );
    assert.equal(itlRule(events, result.completionTokens), 'one-token-per-event');
  });
  test('/v1/chat/completions: role-only first chunk, empty finish chunk and usage-only chunk are not tokens', () => {
    const { events, result } = stream('openai-chat', reply('llamacpp-chat-stream.txt'));
    assert.equal(result.completionTokens, 8);
    assert.equal(events.length, 8);
    assert.equal(itlRule(events, result.completionTokens), 'one-token-per-event');
  });
  test('a byte token withheld until the next one completes its UTF-8: /v1/completions merges two tokens into one chunk without saying so → per chunk', () => {
    const { events, result } = stream('openai', reply('llamacpp-completions-stream-merged.txt'));
    assert.equal(result.completionTokens, 24);
    assert.equal(events.length, 23);
    assert.equal(itlRule(events, result.completionTokens), 'per-chunk');
  });
  test('the same reply from native /completion: its counts say the merged event carried 2 tokens → per token', () => {
    const { events, result } = stream('llamacpp', reply('llamacpp-native-stream-merged.txt'));
    assert.equal(result.completionTokens, 24);
    assert.equal(events.length, 23);
    assert.deepEqual(
      events.map((e) => e.tokens).filter((n) => n !== 1),
      [2],
    );
    assert.equal(itlRule(events, result.completionTokens), 'server-counts');
    const t = requestTiming(0, 1000, events, result.completionTokens);
    assert.equal(t.itlMs?.length, 23, 'one sample per token after the first');
  });
  test('native /completion: tokens_predicted in every event gives server counts', () => {
    const { events, result } = stream('llamacpp', reply('llamacpp-native-stream.txt'));
    assert.equal(result.ok, true);
    assert.deepEqual(
      events.map((e) => e.tokens),
      new Array(12).fill(1),
    );
    assert.equal(itlRule(events, result.completionTokens), 'server-counts');
  });
});

describe('edge cases on the OpenAI routes', () => {
  const chunk = (delta: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({ choices: [{ index: 0, delta, finish_reason: null }], ...extra });
  test('reasoning chunks are tokens; empty content chunks are not; a usage-only final chunk is not', () => {
    const body = sse([
      chunk({ role: 'assistant', content: null }),
      chunk({ reasoning_content: 'Let' }),
      chunk({ reasoning_content: ' me' }),
      chunk({ content: '' }),
      chunk({ content: 'Hi' }),
      chunk({ content: ' there' }),
      { choices: [{ index: 0, delta: {}, finish_reason: 'length' }] },
      { choices: [], usage: { prompt_tokens: 5, completion_tokens: 4, total_tokens: 9 } },
    ]);
    const { events, result } = stream('openai-chat', body);
    assert.equal(result.text, 'Let meHi there');
    assert.equal(events.length, 4);
    assert.equal(itlRule(events, result.completionTokens), 'one-token-per-event');
  });
  test('the last token and the usage in one chunk: still one event each', () => {
    const body = sse([
      { choices: [{ index: 0, text: 'a', finish_reason: null }] },
      { choices: [{ index: 0, text: 'b', finish_reason: null }] },
      { choices: [{ index: 0, text: 'c', finish_reason: 'length' }], usage: { prompt_tokens: 2, completion_tokens: 3 } },
    ]);
    const { events, result } = stream('openai', body);
    assert.deepEqual(
      events.map((e) => e.tokens),
      [null, null, null],
    );
    assert.equal(itlRule(events, result.completionTokens), 'one-token-per-event');
  });
  test('multi-token chunks without counts (speculative decoding on an OpenAI route): per chunk', () => {
    const body = sse([
      { choices: [{ index: 0, text: 'a', finish_reason: null }] },
      { choices: [{ index: 0, text: 'b c d', finish_reason: null }] },
      { choices: [{ index: 0, text: ' e f', finish_reason: 'length' }] },
      { choices: [], usage: { prompt_tokens: 2, completion_tokens: 6 } },
    ]);
    const { events, result } = stream('openai', body);
    assert.equal(events.length, 3);
    assert.equal(itlRule(events, result.completionTokens), 'per-chunk');
  });
  test('vLLM continuous usage: counts per chunk are still read as such', () => {
    const { events } = stream('openai', reply('vllm-completions-stream-usage.txt'));
    assert.deepEqual(
      events.map((e) => e.tokens),
      [1, 2, 3],
    );
  });
});
