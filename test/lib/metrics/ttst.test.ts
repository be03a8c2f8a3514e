// Time to second token (llm_ttst): the event that brought the reply's second token, TTFT itself when
// the first event carried two or more, and nothing where that cannot be told; bucketed like TPOT
// under ITL_SAMPLES=histogram (no SLO holds it).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { requestTiming } from '../../../lib/metrics/timing';
import { recordRequest, type SloLimits, type Window } from '../../../lib/metrics/samples';
import type { MetricKey } from '../../../lib/metrics/catalog';
import type { GenerationResult } from '../../../lib/dialects/types';

const ttst = (events: Array<[number, number | null]>, completion: number | null) =>
  requestTiming(
    1000,
    2000,
    events.map(([t, tokens]) => ({ t: 1000 + t, tokens })),
    completion,
  ).ttstMs;

test('one token per event: the second event', () => {
  assert.equal(
    ttst(
      [
        [100, 1],
        [130, 1],
        [160, 1],
      ],
      3,
    ),
    130,
  );
  // No per-event counts, but the final count equals the events: one each.
  assert.equal(
    ttst(
      [
        [100, null],
        [130, null],
        [160, null],
      ],
      3,
    ),
    130,
  );
});

test('a first event of several tokens (speculative decoding) brings the second with it: TTST = TTFT', () => {
  assert.equal(
    ttst(
      [
        [100, 3],
        [130, 4],
      ],
      7,
    ),
    100,
  );
  // Its own count unknown, the later ones counted: the final count less theirs.
  assert.equal(
    ttst(
      [
        [100, null],
        [130, 4],
      ],
      7,
    ),
    100,
  );
  assert.equal(
    ttst(
      [
        [100, null],
        [130, 4],
      ],
      5,
    ),
    130,
  );
  // A whole reply in one event.
  assert.equal(ttst([[100, null]], 5), 100);
});

test('an event counted with no token is passed over', () => {
  assert.equal(
    ttst(
      [
        [100, 1],
        [120, 0],
        [150, 2],
      ],
      3,
    ),
    150,
  );
});

test('not measured: one token, unknown first count (per-chunk), http', () => {
  assert.equal(ttst([[100, 1]], 1), null);
  assert.equal(
    ttst(
      [
        [100, null],
        [130, null],
      ],
      9,
    ),
    null,
    'two chunks of unknown size: the first may have held two',
  );
  assert.equal(ttst([[100, null]], null), null);
  assert.equal(requestTiming(1000, 2000, null, 5).ttstMs, null);
});

const base: GenerationResult = {
  ok: true,
  status: 200,
  text: '',
  promptTokens: 4,
  completionTokens: 3,
  cachedTokens: null,
  finishReason: 'length',
  tokenEvents: 3,
  specVerifySteps: null,
  acceptanceLength: null,
  error: null,
};
const slo: SloLimits = { ttftP99Ms: null, ttftOf: 'first', itlP99Ms: null, e2eP99Ms: null };
const w: Window = { cellStartMs: 0, sliceMs: 1e9, slices: 1, trackLastEnd: false, latencyFromMs: 0 };

function samples(win: Window): Array<[MetricKey, number, Record<string, string> | undefined]> {
  const out: Array<[MetricKey, number, Record<string, string> | undefined]> = [];
  // A role-only chunk never reaches the events: the transport drops it, so the first here is a token.
  const events = [100, 130, 160].map((t) => ({ t: 1000 + t, tokens: 1 }));
  recordRequest({ result: base, startMs: 1000, endMs: 1200, events }, win, slo, (m, v, tags) => out.push([m, v, tags]));
  return out;
}

test('recordRequest: one llm_ttst sample per request; a bucket count under ITL_SAMPLES=histogram', () => {
  assert.deepEqual(
    samples(w).filter(([m]) => m === 'ttst'),
    [['ttst', 130, undefined]],
  );
  const bucketed = samples({ ...w, itlBuckets: true });
  assert.equal(bucketed.filter(([m]) => m === 'ttst').length, 0);
  const b = bucketed.filter(([m]) => m === 'ttstBuckets');
  assert.equal(b.length, 1);
  assert.ok(Number(b[0][2]?.le_ms) >= 130 && Number(b[0][2]?.le_ms) <= 130 * 1.05, JSON.stringify(b));
});
