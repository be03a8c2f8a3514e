// LATENCY_WINDOW=steady: a request sent during a cell's ramp-up slice counts as a request and
// its tokens, but not in the latency percentiles or the SLO goodput.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { recordRequest, type Window } from '../../../lib/metrics/samples';
import type { MetricKey } from '../../../lib/metrics/catalog';
import type { GenerationResult } from '../../../lib/dialects/types';

const ok: GenerationResult = {
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

function samples(startMs: number, latencyFromMs: number): Set<MetricKey> {
  const w: Window = { cellStartMs: 0, sliceMs: 1000, slices: 4, trackLastEnd: false, latencyFromMs };
  const seen = new Set<MetricKey>();
  const events = [
    { t: startMs + 40, tokens: 1 },
    { t: startMs + 70, tokens: 1 },
    { t: startMs + 100, tokens: 1 },
  ];
  recordRequest({ result: ok, startMs, endMs: startMs + 100, events }, w, { ttftP99Ms: null, ttftOf: 'first', itlP99Ms: null, e2eP99Ms: 1000 }, (m) =>
    seen.add(m),
  );
  return seen;
}

test('steady: a ramp-up request gives no latency sample and no goodput, but counts as a success with its tokens', () => {
  const ramp = samples(500, 1000);
  for (const m of ['e2e', 'ttft', 'itl', 'tpot', 'good'] as MetricKey[]) assert.ok(!ramp.has(m), `${m} from a ramp-up request`);
  for (const m of ['success', 'outputTokens', 'windowRequests', 'windowTokens'] as MetricKey[]) assert.ok(ramp.has(m), `${m} missing`);
  const steady = samples(1500, 1000);
  for (const m of ['e2e', 'ttft', 'itl', 'tpot', 'good', 'success'] as MetricKey[]) assert.ok(steady.has(m), `${m} missing after the ramp-up`);
  // all (the default): every request's latencies count.
  assert.ok(samples(500, -Infinity).has('e2e'));
});
