// llama.cpp's /metrics (b11669, --metrics) as a server-metrics engine: two real scrapes of a
// speculative llama-server, idle and after five requests (12, 12, 8, 12 and 12 tokens; per request
// timings draft_n 13, 13, 18, 13, 13 and draft_n_accepted 8, 8, 3, 8, 8).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { snapshot, windowFigures } from '../../../lib/server-metrics/window';
import { engineOfMetrics } from '../../../lib/engines/index';

const detectEngine = (text: string) => engineOfMetrics(text)?.id ?? null;
import { reply } from '../fixtures';

const start = reply('llamacpp-metrics-start.txt');
const end = reply('llamacpp-metrics-end.txt');

test('a llamacpp: page is the llamacpp engine', () => {
  assert.equal(detectEngine(start), 'llamacpp');
  assert.equal(detectEngine(end), 'llamacpp');
});

test('window figures: throughput, acceptance length per verify step, generation time per token; no histograms', () => {
  const f = windowFigures(snapshot('llamacpp', start, 0), snapshot('llamacpp', end, 4000));
  // 56 tokens predicted in 4 s
  assert.equal(f.outputTokensPerSecond, 56 / 4);
  // 16 verify steps with a draft accepted 35 draft tokens, plus one token of the target's own per step;
  // the same as the requests' own counts: Σ(tokens − 1 − accepted) = 3+3+4+3+3 = 16 steps.
  assert.equal(f.acceptanceLength, 1 + 35 / 16);
  // By draft position: the per-position counter (absent from the idle scrape: 0), adding up to the 35 accepted.
  assert.deepEqual(f.acceptedByPosition, { steps: 16, accepted: [13, 5, 5, 4, 4, 4] });
  // 1.38486 s spent generating 56 tokens (= Σ timings.predicted_ms of the five requests)
  assert.ok(Math.abs((f.timePerTokenMs ?? 0) - 1384.86 / 56) < 1e-9, String(f.timePerTokenMs));
  assert.equal(f.ttftMeanMs, null, 'llama.cpp has no TTFT histogram');
  assert.equal(f.itlMeanMs, null);
  assert.equal(f.e2eMeanMs, null);
  assert.equal(f.queueMeanMs, null);
});

test('no request finished in the window: no acceptance length, no time per token', () => {
  const a = snapshot('llamacpp', end, 0);
  const f = windowFigures(a, snapshot('llamacpp', end, 1000));
  assert.equal(f.acceptanceLength, null);
  assert.equal(f.acceptedByPosition, null, 'no verify step in the window');
  assert.equal(f.timePerTokenMs, null);
  assert.equal(f.outputTokensPerSecond, 0);
});

test('a server without speculation: acceptance length not measured', () => {
  const plain = reply('llamacpp-metrics-start.txt');
  const more = plain
    .replace('llamacpp:tokens_predicted_total 0', 'llamacpp:tokens_predicted_total 40')
    .replace('llamacpp:tokens_predicted_seconds_total 0', 'llamacpp:tokens_predicted_seconds_total 2');
  const f = windowFigures(snapshot('llamacpp', plain, 0), snapshot('llamacpp', more, 2000));
  assert.equal(f.acceptanceLength, null);
  assert.equal(f.outputTokensPerSecond, 20);
  assert.equal(f.timePerTokenMs, 50);
});
