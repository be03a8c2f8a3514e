// ITL counted in log buckets (ITL_SAMPLES=histogram, lib/stats/log-buckets.ts): quantiles within the
// stated relative error of the exact ones, exact counts, sums that merge, the samples a request
// produces (one per bucket touched, the SLO share exact), the thresholds that keep them and the
// report reading them back.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { BUCKETS, boundsOf, bucketOf, figuresOf, GROWTH, labelOf, RELATIVE_ERROR } from '../../../lib/stats/log-buckets';
import { mulberry32 } from '../../../lib/stats/rng';
import { recordGap, recordRequest, type Window } from '../../../lib/metrics/samples';
import type { MetricKey } from '../../../lib/metrics/catalog';
import type { TimedEvent } from '../../../lib/metrics/timing';
import type { GenerationResult } from '../../../lib/dialects/types';
import { bucketKey, subKey, summaryThresholds } from '../../../lib/plan/summary-keys';
import { k6Options } from '../../../lib/plan/k6-options';
import { buildReport } from '../../../lib/report/build-report';
import { withRunTrends } from '../../../lib/report/run-trends';
import { runRecord } from '../../../lib/report/render/summary-json';
import { rampPlan, T0 } from '../raw/synthetic';

/** The value of rank ⌈q·n⌉ (the rank figuresOf reads). */
const exact = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.max(1, Math.ceil(q * xs.length)) - 1];

describe('log buckets', () => {
  test('every value falls in the bucket whose bounds hold it; labels are distinct', () => {
    const rng = mulberry32(35);
    for (let k = 0; k < 20_000; k++) {
      const v = 0.05 * Math.exp(rng() * Math.log(1.3e6));
      const i = bucketOf(v);
      const [lo, hi] = boundsOf(i);
      assert.ok(v > lo && v <= hi, `${v} in (${lo}, ${hi}] (bucket ${i})`);
    }
    // Whole ms, looked up from a table below some bound: the same buckets as the formula's.
    for (let v = 1; v <= 2_000; v++) {
      const [lo, hi] = boundsOf(bucketOf(v));
      assert.ok(v > lo && v <= hi, `${v} ms in (${lo}, ${hi}] (bucket ${bucketOf(v)})`);
      assert.ok(bucketOf(v - 0.5) <= bucketOf(v) && bucketOf(v + 0.5) >= bucketOf(v), `${v} ms ordered with its neighbours`);
    }
    assert.equal(bucketOf(-1), 0);
    assert.equal(bucketOf(Number.NaN), 0);
    assert.equal(bucketOf(0), 0);
    assert.equal(bucketOf(0.01), 1);
    assert.equal(bucketOf(1e9), BUCKETS - 1);
    assert.equal(new Set(Array.from({ length: BUCKETS }, (_, i) => labelOf(i))).size, BUCKETS);
  });

  test(`quantiles within ${(RELATIVE_ERROR * 100).toFixed(2)} % of the exact ones, counts exact`, () => {
    const rng = mulberry32(7);
    // Log-normal ITLs (a decode step of ~8 ms with a tail), a few zero gaps and some stalls.
    const xs = Array.from({ length: 50_000 }, () => {
      const u = rng();
      if (u < 0.01) return 0;
      if (u > 0.995) return 200 + rng() * 2000;
      const z = Math.sqrt(-2 * Math.log(rng() || 1e-12)) * Math.cos(2 * Math.PI * rng());
      return 8 * Math.exp(0.4 * z);
    });
    const counts = new Array<number>(BUCKETS).fill(0);
    for (const x of xs) counts[bucketOf(x)]++;
    const f = figuresOf(counts);
    assert.ok(f !== null);
    assert.equal(f.count, xs.length);
    for (const [q, got] of [
      [0.5, f.p50],
      [0.9, f.p90],
      [0.99, f.p99],
    ] as const) {
      const want = exact(xs, q);
      assert.ok(Math.abs(got - want) <= RELATIVE_ERROR * want + 1e-9, `p${q * 100}: ${got} vs exact ${want}`);
    }
    const max = Math.max(...xs);
    assert.ok(f.max >= max && f.max <= max * 1.05 + 1e-9, `max ${f.max} is the bound above ${max}`);
    const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
    assert.ok(Math.abs(f.avg - mean) <= RELATIVE_ERROR * mean, `avg ${f.avg} vs ${mean}`);
  });

  test('counts from parts add up to the counts of the whole (VUs, slices, k6 instances)', () => {
    const rng = mulberry32(3);
    const xs = Array.from({ length: 3000 }, () => rng() * 40);
    const whole = new Array<number>(BUCKETS).fill(0);
    const parts = [0, 1, 2].map(() => new Array<number>(BUCKETS).fill(0));
    xs.forEach((x, k) => {
      whole[bucketOf(x)]++;
      parts[k % 3][bucketOf(x)]++;
    });
    const merged = whole.map((_, i) => parts[0][i] + parts[1][i] + parts[2][i]);
    assert.deepEqual(figuresOf(merged), figuresOf(whole));
    assert.equal(figuresOf(new Array<number>(BUCKETS).fill(0)), null);
  });
});

describe('ITL_SAMPLES=histogram: what a request records', () => {
  const ok: GenerationResult = {
    ok: true,
    status: 200,
    text: '',
    promptTokens: 4,
    completionTokens: 6,
    cachedTokens: null,
    finishReason: 'length',
    tokenEvents: 6,
    specVerifySteps: null,
    acceptanceLength: null,
    error: null,
  };
  const events: TimedEvent[] = [10, 20, 30, 31, 60, 60].map((t) => ({ t, tokens: null }));
  const w: Window = { cellStartMs: 0, sliceMs: 1000, slices: 1, trackLastEnd: false, latencyFromMs: -Infinity, itlBuckets: true };
  const record = (itlP99Ms: number | null, ttftOf: 'first' | 'answer' = 'first') => {
    const out: Array<{ metric: MetricKey; value: number; tags?: Record<string, string> }> = [];
    recordRequest({ result: ok, startMs: 0, endMs: 60, events }, w, { ttftP99Ms: null, ttftOf, itlP99Ms, e2eP99Ms: null }, (metric, value, tags) =>
      out.push({ metric, value, tags }),
    );
    return out;
  };
  const of = (s: ReturnType<typeof record>, metric: MetricKey) => s.filter((x) => x.metric === metric).map((x) => [x.tags, x.value]);

  test('one counter sample per bucket touched, no llm_itl sample; the counts are the gaps', () => {
    const s = record(null);
    assert.equal(s.filter((x) => x.metric === 'itl').length, 0);
    // TPOT, one per request, counted in its bucket too: (60 − 10) ms over 5 gaps after the first token.
    assert.equal(s.filter((x) => x.metric === 'tpot').length, 0);
    assert.deepEqual(
      s.filter((x) => x.metric === 'tpotBuckets').map((x) => [x.tags?.le_ms, x.value]),
      [[labelOf(bucketOf(10)), 1]],
    );
    const b = s.filter((x) => x.metric === 'itlBuckets');
    // gaps 10, 10, 1, 29, 0: four buckets
    assert.deepEqual(
      b.map((x) => [x.tags?.le_ms, x.value]).sort((p, q) => Number(p[0]) - Number(q[0])),
      [
        [labelOf(bucketOf(0)), 1],
        [labelOf(bucketOf(1)), 1],
        [labelOf(bucketOf(10)), 2],
        [labelOf(bucketOf(29)), 1],
      ],
    );
    assert.equal(s.filter((x) => x.metric === 'itlWithinSlo').length, 0, 'no SLO, no share');
    // The next request starts from zero counts.
    assert.deepEqual(
      record(null)
        .filter((x) => x.metric === 'itlBuckets')
        .reduce((a, x) => a + x.value, 0),
      5,
    );
  });

  test("the request's output rate and its answer's TTFT counted in buckets, unless SLO_TTFT_OF=answer holds the latter", () => {
    const s = record(null);
    // 6 tokens over 60 ms: 100 tokens/s, tagged in tokens/s, not ms.
    assert.deepEqual(of(s, 'requestTpsBuckets'), [[{ le_tps: labelOf(bucketOf(100)) }, 1]]);
    // A reply that did not reason answers with its first token, at 10 ms.
    assert.deepEqual(of(s, 'ttftAnswerBuckets'), [[{ le_ms: labelOf(bucketOf(10)) }, 1]]);
    assert.deepEqual([...of(s, 'requestTps'), ...of(s, 'ttftAnswer')], []);
    // e2e and TTFT stay exact.
    assert.deepEqual(
      [...of(s, 'e2e'), ...of(s, 'ttft')],
      [
        [undefined, 60],
        [undefined, 10],
      ],
    );
    const held = record(null, 'answer');
    assert.deepEqual(of(held, 'ttftAnswer'), [[undefined, 10]]);
    assert.deepEqual(of(held, 'ttftAnswerBuckets'), []);
    assert.equal(of(held, 'requestTpsBuckets').length, 1);
  });

  test('with SLO_ITL_P99 each token counts as within it or not, before bucketing', () => {
    const s = record(10).filter((x) => x.metric === 'itlWithinSlo');
    assert.deepEqual(s.map((x) => x.value).sort(), [0, 1, 1, 1, 1]);
  });

  test('thresholds keep every bucket of every run and make the SLO a share of tokens', () => {
    const plan = { runs: [{ scenario: 'a_c1', variant: 'a' }], slices: 1 } as unknown as Parameters<typeof summaryThresholds>[0];
    const slo = { ttftP99Ms: null, ttftOf: 'first' as const, itlP99Ms: 40, e2eP99Ms: null, errorRate: 0 };
    const th = summaryThresholds(plan, { slo, serverMetrics: 'off', saturationStop: false, itlSamples: 'histogram' }, false);
    for (let i = 0; i < BUCKETS; i++) assert.ok(th[bucketKey('itlBuckets', 'a_c1', i)], `bucket ${i} kept`);
    assert.equal(th['llm_itl{scenario:a_c1}'], undefined, 'no per-run llm_itl sink');
    assert.deepEqual(th.llm_itl_within_slo, ['rate>=0.99']);
    assert.equal(th.llm_itl, undefined);
    const every = summaryThresholds(plan, { slo, serverMetrics: 'off', saturationStop: false, itlSamples: 'every' }, false);
    assert.deepEqual(every.llm_itl, ['p(99)<=40']);
    assert.equal(every[bucketKey('itlBuckets', 'a_c1', 0)], undefined);
    // The per-request rate's buckets are tagged in its own unit; the answer's TTFT is bucketed only
    // when no SLO may hold it.
    assert.ok(th[bucketKey('requestTpsBuckets', 'a_c1', bucketOf(100))]);
    assert.match(bucketKey('requestTpsBuckets', 'a_c1', 5), /^llm_request_tokens_per_second_buckets\{scenario:a_c1,le_tps:[0-9.]+\}$/);
    assert.ok(th[bucketKey('ttftAnswerBuckets', 'a_c1', 3)] && !th[subKey('ttftAnswer', 'a_c1')] && !th[subKey('requestTps', 'a_c1')]);
    const answer = summaryThresholds(plan, { slo: { ...slo, ttftOf: 'answer' }, serverMetrics: 'off', saturationStop: false, itlSamples: 'histogram' }, false);
    assert.ok(answer[subKey('ttftAnswer', 'a_c1')] && !answer[bucketKey('ttftAnswerBuckets', 'a_c1', 3)]);
  });
});

describe("the VU's gap between requests under ITL_SAMPLES=histogram", () => {
  test('one counter sample in its bucket instead of a Trend value; a Trend value with every', () => {
    const got: Array<[MetricKey, number, Record<string, string> | undefined]> = [];
    const add = (m: MetricKey, v: number, t?: Record<string, string>) => got.push([m, v, t]);
    recordGap(12, { itlBuckets: true }, add);
    recordGap(12, { itlBuckets: false }, add);
    assert.deepEqual(got, [
      ['clientGapBuckets', 1, { le_ms: labelOf(bucketOf(12)) }],
      ['clientGap', 12, undefined],
    ]);
  });

  test("the report reads a one-run plan's gap from its buckets, within the stated error", () => {
    const { spec, cfg, plan } = rampPlan({ CONCURRENCY: '4', ITL_SAMPLES: 'histogram' });
    const s = plan.runs[0].scenario;
    const gaps = [0, 0, 0, 1, 1, 1, 1, 1, 12, 12];
    const metrics: Record<string, { type: string; values: Record<string, number> }> = {};
    for (let i = 0; i < BUCKETS; i++) metrics[bucketKey('clientGapBuckets', s, i)] = { type: 'counter', values: { count: 0, rate: 0 } };
    for (const g of gaps) metrics[bucketKey('clientGapBuckets', s, bucketOf(g))].values.count++;
    const rates = [90, 100, 110];
    for (let i = 0; i < BUCKETS; i++) metrics[bucketKey('requestTpsBuckets', s, i)] = { type: 'counter', values: { count: 0, rate: 0 } };
    for (const r of rates) metrics[bucketKey('requestTpsBuckets', s, bucketOf(r))].values.count++;
    const th = k6Options(plan, cfg).thresholds as Record<string, string[]>;
    assert.ok(th[bucketKey('clientGapBuckets', s, 0)] && !th[subKey('clientGap', s)], 'buckets kept, no Trend sub-metric');
    const run = buildReport(spec, cfg, plan, { metrics: withRunTrends(plan, metrics, cfg) }, { now: new Date(T0) }).runs[0];
    const gap = run.client.gap;
    assert.ok(
      run.notes.some((n) => /^each request's output rate and the VUs' gap between requests counted in log buckets .*within 2\.5 %/.test(n)),
      run.notes.join('\n'),
    );
    assert.ok(gap !== null && gap.bucketed === true, 'read from the buckets');
    assert.equal(gap.count, 10);
    assert.ok(Math.abs(gap.p50 - 1) <= RELATIVE_ERROR, `p50 ${gap.p50}`);
    // The max is read as its bucket's upper bound: at most one bucket's width above.
    assert.ok(gap.max >= 12 && gap.max <= 12 * GROWTH, `max ${gap.max}`);
    const tps = run.requestTps;
    assert.ok(tps !== null && tps.bucketed === true && tps.count === 3, JSON.stringify(tps));
    assert.ok(Math.abs(tps.p50 / 100 - 1) <= RELATIVE_ERROR, `p50 ${tps.p50}`);
    assert.deepEqual(Object.keys(runRecord(run).request_output_rate_tokens_per_s ?? {}), ['avg', 'p50', 'p90', 'p99', 'relative_error']);
  });
});
