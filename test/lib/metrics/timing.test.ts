import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { requestTiming, sliceTokens } from '../../../lib/metrics/timing';
import { recordRequest, type Outcome, type SloLimits, type Window } from '../../../lib/metrics/samples';
import type { MetricKey } from '../../../lib/metrics/catalog';

interface Sample {
  metric: MetricKey;
  value: number;
  tags?: Record<string, string>;
}

/** The samples a request gives, collected in order. */
function requestSamples(o: Outcome, w: Window, slo: SloLimits): Sample[] {
  const out: Sample[] = [];
  recordRequest(o, w, slo, (metric, value, tags) => out.push(tags ? { metric, value, tags } : { metric, value }));
  return out;
}
import type { GenerationResult } from '../../../lib/dialects/types';

describe('requestTiming', () => {
  test('http transport: only e2e, TTFT/ITL/TPOT are null (not measured)', () => {
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
  test('multi-token events: ITL is the gap divided by the tokens, once per token', () => {
    // first event at +100 ms with 1 token, then +40 ms with 4 tokens, then +30 ms with 1 token
    const t = requestTiming(
      0,
      200,
      [
        { t: 100, tokens: 1 },
        { t: 140, tokens: 4 },
        { t: 170, tokens: 1 },
      ],
      6,
    );
    assert.equal(t.ttftMs, 100);
    assert.deepEqual(t.itlMs, [10, 10, 10, 10, 30]);
    assert.equal(t.tpotMs, (200 - 100) / 5);
  });
  test('unknown counts and a final count other than the events: per-token ITL unknown, TTFT and TPOT stay', () => {
    const t = requestTiming(
      0,
      200,
      [
        { t: 50, tokens: null },
        { t: 90, tokens: null },
      ],
      3,
    );
    assert.equal(t.itlMs, null);
    assert.deepEqual(t.itlPerChunkMs, [40]);
    assert.equal(t.ttftMs, 50);
    assert.equal(t.tpotMs, 75);
  });
  test('TPOT needs two tokens', () => {
    assert.equal(requestTiming(0, 100, [{ t: 80, tokens: 1 }], 1).tpotMs, null);
  });
});

describe('sliceTokens', () => {
  test('http: tokens spread evenly over the request', () => {
    // request 500..2500 ms with 200 tokens, slices of 1 s from 0
    assert.deepEqual(sliceTokens({ startMs: 500, endMs: 2500, tokens: 200 }, { cellStartMs: 0, sliceMs: 1000, slices: 4 }, null), [
      [0, 50],
      [1, 100],
      [2, 50],
    ]);
  });
  test('sse: tokens go to the slice of their event', () => {
    assert.deepEqual(
      sliceTokens({ startMs: 0, endMs: 0, tokens: 0 }, { cellStartMs: 1000, sliceMs: 1000, slices: 3 }, [
        { t: 1500, tokens: 3 },
        { t: 2100, tokens: 2 },
        { t: 5000, tokens: 9 },
      ]),
      [
        [0, 3],
        [1, 2],
      ],
    );
  });
  test('tokens outside the window are dropped', () => {
    assert.deepEqual(sliceTokens({ startMs: 2500, endMs: 3500, tokens: 100 }, { cellStartMs: 0, sliceMs: 1000, slices: 3 }, null), [[2, 50]]);
  });
});

function ok(over: Partial<GenerationResult> = {}): GenerationResult {
  return {
    ok: true,
    status: 200,
    text: '',
    promptTokens: 10,
    completionTokens: 100,
    cachedTokens: null,
    finishReason: 'length',
    tokenEvents: 0,
    specVerifySteps: null,
    acceptanceLength: null,
    error: null,
    ...over,
  };
}
const win = { cellStartMs: 0, sliceMs: 1000, slices: 4, trackLastEnd: false, latencyFromMs: -Infinity };
const noSlo = { ttftP99Ms: null, ttftOf: 'first' as const, itlP99Ms: null, e2eP99Ms: null };
const byMetric = (samples: Sample[], m: string) => samples.filter((s) => s.metric === m);

describe('recordRequest', () => {
  test('a success over http', () => {
    const o: Outcome = { result: ok(), startMs: 1000, endMs: 3000, events: null };
    const s = requestSamples(o, win, noSlo);
    assert.deepEqual(
      byMetric(s, 'e2e').map((x) => x.value),
      [2000],
    );
    assert.deepEqual(
      byMetric(s, 'outputTokens').map((x) => x.value),
      [100],
    );
    assert.deepEqual(
      byMetric(s, 'requestTps').map((x) => x.value),
      [50],
    );
    assert.equal(byMetric(s, 'ttft').length, 0, 'no TTFT over http');
    assert.equal(byMetric(s, 'cachedTokens').length, 0, 'unknown cached tokens are not recorded as 0');
    assert.deepEqual(
      byMetric(s, 'windowTokens').map((x) => [x.tags?.slice, x.value]),
      [
        ['1', 50],
        ['2', 50],
      ],
    );
    assert.deepEqual(
      byMetric(s, 'windowRequests').map((x) => x.tags?.slice),
      ['3'],
    );
    assert.equal(byMetric(s, 'good').length, 0, 'no SLO set: good is not counted separately');
  });
  test("sse: the window's TTFT goes to the slice of the first token, its e2e to the slice of the end", () => {
    // First token at 900 ms (slice 0, the ramp-up), end at 2600 ms (slice 2): a server counts the
    // TTFT in the window its first token fell in, so the client's window TTFT must too.
    const early: Outcome = {
      result: ok({ completionTokens: 2 }),
      startMs: 100,
      endMs: 2600,
      events: [
        { t: 900, tokens: 1 },
        { t: 2500, tokens: 1 },
      ],
    };
    const s = requestSamples(early, win, noSlo);
    assert.deepEqual(
      byMetric(s, 'windowTtft').map((x) => [x.tags?.slice, x.value]),
      [['0', 800]],
    );
    assert.deepEqual(
      byMetric(s, 'windowTtftRequests').map((x) => [x.tags?.slice, x.value]),
      [['0', 1]],
    );
    assert.deepEqual(
      byMetric(s, 'windowE2e').map((x) => [x.tags?.slice, x.value]),
      [['2', 2500]],
    );
    const http = requestSamples({ result: ok(), startMs: 1000, endMs: 3000, events: null }, win, noSlo);
    assert.equal(byMetric(http, 'windowTtft').length + byMetric(http, 'windowTtftRequests').length, 0, 'no TTFT over http');
  });
  test('sse columns: only their first n events count (the rest is an earlier stream left in reused buffers)', () => {
    const events = [
      { t: 900, tokens: 1 },
      { t: 950, tokens: 2 },
      { t: 1200, tokens: 1 },
    ];
    const exact: Outcome = { result: ok({ completionTokens: 4 }), startMs: 100, endMs: 1300, events };
    // The same three events in buffers that still hold two later arrivals of a longer stream.
    const reused: Outcome = { ...exact, events: { t: [900, 950, 1200, 1250, 2700], tokens: [1, 2, 1, 1, 1], n: 3 } };
    const want = requestSamples(exact, win, noSlo);
    assert.deepEqual(
      byMetric(want, 'itl').map((x) => x.value),
      [25, 25, 250],
    );
    assert.deepEqual(requestSamples(reused, win, noSlo), want);
  });
  test('a failure counts its class and nothing else', () => {
    const o: Outcome = { result: { ...ok(), ok: false, error: { class: 'timeout', message: 'x' } }, startMs: 0, endMs: 30000, events: null };
    assert.deepEqual(requestSamples(o, win, noSlo), [
      { metric: 'success', value: 0 },
      { metric: 'errors', value: 1, tags: { error_class: 'timeout' } },
    ]);
  });
  test('a server that reports no token count yields no token samples (not zero)', () => {
    const s = requestSamples({ result: ok({ completionTokens: null }), startMs: 0, endMs: 1000, events: null }, win, noSlo);
    assert.equal(byMetric(s, 'outputTokens').length, 0);
    assert.equal(byMetric(s, 'windowTokens').length, 0);
  });
  test('acceptance and speculative counters', () => {
    const s = requestSamples({ result: ok({ specVerifySteps: 25, acceptanceLength: 4 }), startMs: 0, endMs: 1000, events: null }, win, noSlo);
    assert.deepEqual(
      byMetric(s, 'specVerifySteps').map((x) => x.value),
      [25],
    );
    assert.deepEqual(
      byMetric(s, 'specTokens').map((x) => x.value),
      [100],
    );
    assert.deepEqual(
      byMetric(s, 'acceptance').map((x) => x.value),
      [4],
    );
  });
  test('SLO: a request over the e2e limit is not good', () => {
    const o: Outcome = { result: ok(), startMs: 0, endMs: 2000, events: null };
    assert.equal(byMetric(requestSamples(o, win, { ...noSlo, e2eP99Ms: 1500 }), 'good').length, 0);
    assert.equal(byMetric(requestSamples(o, win, { ...noSlo, e2eP99Ms: 2500 }), 'good').length, 1);
    assert.equal(byMetric(requestSamples(o, win, { ...noSlo, ttftP99Ms: 2500 }), 'good').length, 0, 'TTFT unmeasured cannot meet a TTFT SLO');
  });
  test('REQUESTS mode records when the request ended', () => {
    const s = requestSamples({ result: ok(), startMs: 100, endMs: 1100, events: null }, { ...win, cellStartMs: 100, trackLastEnd: true }, noSlo);
    assert.deepEqual(
      byMetric(s, 'windowLastEnd').map((x) => x.value),
      [1000],
    );
  });
});
