// The parity harness's arithmetic and readers (bench/parity/): the truth over a run's requests, the
// error of a reported percentile against it, bash's `times`, and each tool's report read back. Pure.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { RequestRecord } from '../../sim/index';
import { errorOf, toolLine, truthOf } from '../../bench/parity/figures';
import { childrenCpuSec } from '../../bench/parity/measure';
import { PEERS } from '../../bench/parity/peers';

/** A completed request: arrival at `at`, one event per token `gap` ms apart after `ttft`. */
function req(at: number, ttft: number, gap: number, tokens: number, over: Partial<RequestRecord> = {}): RequestRecord {
  const events = Array.from({ length: tokens }, (_, i) => ({ timeMs: at + ttft + i * gap, scheduledMs: at + ttft + i * gap, tokens: 1 }));
  return {
    id: `r${at}`,
    ordinal: 0,
    route: '/v1/completions',
    stream: true,
    arrivalMs: at,
    intakeLagMs: 0.5,
    lagMs: 0,
    behind: false,
    queueExitMs: at,
    firstTokenMs: at + ttft,
    reasoningTokens: 0,
    firstAnswerMs: null,
    events,
    finishMs: at + ttft + (tokens - 1) * gap,
    finishReason: 'length',
    status: 200,
    promptTokens: 8,
    maxNewTokens: tokens,
    domain: null,
    completionTokens: tokens,
    cachedTokens: 0,
    verifySteps: 0,
    verifyTokens: 0,
    acceptedHistogram: null,
    errorClass: null,
    faults: [],
    ...over,
    // The fields the truth reads; a record field added elsewhere is not this fixture's concern.
  } as RequestRecord;
}

test('truth: completed requests of the window only; TTFT, e2e, TPOT per request, ITL per token; cut requests counted apart', () => {
  const recs = [
    req(1000, 100, 10, 5),
    req(1100, 300, 20, 5),
    req(500, 50, 10, 5), // arrived before the run: not its request
    req(1200, 100, 10, 3, { finishReason: 'disconnect', completionTokens: 3 }),
  ];
  // A 2-token event: its 40 ms gap counts as two tokens of 20 ms.
  const multi = req(1300, 100, 10, 4);
  multi.events = [multi.events[0]!, { timeMs: 1300 + 100 + 40, scheduledMs: 0, tokens: 2 }, { timeMs: 1300 + 100 + 50, scheduledMs: 0, tokens: 1 }];
  multi.finishMs = 1300 + 150;
  const t = truthOf([...recs, multi], 1000, 2000);
  assert.equal(t.completed, 3);
  assert.equal(t.notCompleted, 1);
  assert.equal(t.tokensServed, 5 + 5 + 4);
  assert.equal(t.tokenEvents, 5 + 5 + 3 + 3);
  assert.equal(t.ttft.p50, 100);
  assert.equal(t.e2e.p50, 150);
  // TPOT: (finish − first token) / (tokens − 1): 10, 20 and 50/3.
  assert.ok(Math.abs((t.tpot.p50 as number) - 50 / 3) < 1e-9);
  // ITL samples: 4×10, 4×20, then 20, 20, 10 (the 2-token event split).
  assert.equal(t.itl.p50, 20);
  assert.equal(t.intakeLag.p99, 0.5);
  // In flight at the server: 140 + 380 + 120 (the cut one) + 150 ms of requests over 1000…1480.
  assert.ok(Math.abs((t.serverConcurrency as number) - 790 / 480) < 1e-9);
});

test('error: reported − truth per percentile; a figure the tool does not report stays not measured', () => {
  assert.deepEqual(errorOf({ p50: 12, p99: 30 }, { p50: 10, p99: 40 }), { p50: 2, p99: -10 });
  assert.deepEqual(errorOf(null, { p50: 10, p99: 40 }), { p50: null, p99: null });
  assert.deepEqual(errorOf({ p50: 12, p99: null }, { p50: null, p99: 40 }), { p50: null, p99: null });
  const truth = truthOf([req(1000, 100, 10, 5)], 0, 2000);
  const line = toolLine({
    load: 8,
    tool: 'x',
    reported: { ttft: { p50: 101, p99: 99 }, itl: null, tpot: null, e2e: null, requestsOk: 1, outputTokens: 4, failed: 0, notes: [] },
    truth,
    cost: { cpuSec: 0.5, peakRssMb: 100 },
    failure: null,
    loadAvg: 1,
  });
  assert.deepEqual(line.slice(2, 5), ['+1.00', '-1.00', 'n/m']);
  assert.equal(line[10], '4 / 5');
  // CPU-seconds per 1,000 token events: 0.5 s over 5 events.
  assert.equal(line[13], '100.000');
});

test("bash's times: the children's user + system seconds, from its second line", () => {
  assert.equal(childrenCpuSec('123\n0m0.010s 0m0.020s\n1m2.500s 0m0.500s\n'), 63);
  assert.equal(childrenCpuSec('123\n'), null);
});

test("the suite's summary read back; a missing or broken report is an error, never zeros", () => {
  const summary = JSON.stringify({
    records: [
      {
        requests_ok: 32,
        requests_failed: 1,
        output_tokens: 2048,
        ttft_ms: { p50: 185.5, p99: 391.7 },
        itl_ms: { p50: 27, p99: 97 },
        tpot_ms: { p50: 29.5, p99: 33.6 },
        e2e_ms: { p50: 2037.5, p99: 2387.1 },
      },
    ],
  });
  const r = PEERS.suite!.read((re) => (re.test('parity.summary.json') ? summary : null));
  assert.ok(!(r instanceof Error));
  assert.deepEqual([r.ttft, r.itl?.p99, r.outputTokens, r.failed], [{ p50: 185.5, p99: 391.7 }, 97, 2048, 1]);
  assert.ok(PEERS.suite!.read(() => null) instanceof Error);
  assert.ok(PEERS.suite!.read(() => '{"records": [') instanceof Error);
});

test("the peers' reports read back as their exports lay them out (AIPerf ms with units, inference-perf seconds, GuideLLM seconds for e2e)", () => {
  const aiperf = JSON.stringify({
    time_to_first_token: { unit: 'ms', p50: 138.6, p99: 368.9 },
    inter_chunk_latency: { unit: 'ms', p50: 26.6, p99: 139.8 },
    inter_token_latency: { unit: 'ms', p50: 29.3, p99: 34.1 },
    request_latency: { unit: 'ms', p50: 2023, p99: 2268 },
    request_count: { unit: 'requests', avg: 32 },
    total_output_tokens: { unit: 'tokens', avg: 2048 },
    error_summary: [],
  });
  const a = PEERS.aiperf!.read((re) => (re.test('profile_export_aiperf.json') ? aiperf : null));
  assert.ok(!(a instanceof Error));
  // ITL from its per-chunk figure, TPOT from its per-request "inter_token_latency"; no error count means none when error_summary is empty.
  assert.deepEqual([a.itl?.p99, a.tpot?.p50, a.requestsOk, a.outputTokens, a.failed], [139.8, 29.3, 32, 2048, 0]);

  const ip = JSON.stringify({
    successes: {
      count: 32,
      latency: {
        time_to_first_token: { median: 0.107, p99: 0.138 },
        inter_token_latency: { median: 0.0272, p99: 0.05 },
        time_per_output_token: { median: 0.0276, p99: 0.0287 },
        request_latency: { median: 1.857, p99: 1.899 },
      },
      output_tokens: { total: 2048 },
      output_len: { mean: 56.7 },
    },
    failures: { count: 0 },
  });
  const i = PEERS['inference-perf']!.read((re) => (re.test('summary_lifecycle_metrics.json') ? ip : null));
  assert.ok(!(i instanceof Error));
  assert.deepEqual([i.ttft?.p50, i.e2e?.p99, i.outputTokens, i.failed], [107, 1899, 2048, 0]);

  const g = JSON.stringify({
    benchmarks: [
      {
        metrics: {
          request_totals: { successful: 32, errored: 1, incomplete: 8 },
          time_to_first_token_ms: { successful: { median: 110.5, percentiles: { p99: 171.5 } } },
          inter_token_latency_ms: { successful: { median: 27.6, percentiles: { p99: 29.5 } } },
          request_latency: { successful: { median: 1.86, percentiles: { p99: 1.98 } } },
          output_token_count: { successful: { total_sum: 2048 } },
        },
      },
    ],
  });
  const r = PEERS.guidellm!.read((re) => (re.test('benchmarks.json') ? g : null));
  assert.ok(!(r instanceof Error));
  // No per-token ITL: not measured, never a number; e2e from seconds; cancelled (incomplete) requests are not failures.
  assert.deepEqual([r.itl, r.tpot?.p99, r.e2e?.p50, r.requestsOk, r.failed, r.outputTokens], [null, 29.5, 1860, 32, 1, 2048]);
  assert.ok(PEERS.guidellm!.read(() => '{"benchmarks": []}') instanceof Error);
  // Nothing completed before its deadline: its zeros are not figures.
  const none = g.replace('"successful":32', '"successful":0');
  assert.ok(PEERS.guidellm!.read(() => none) instanceof Error);
});
