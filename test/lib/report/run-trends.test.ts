// A one-run plan leaves its run's trend sub-metrics undeclared (k6 would keep each value twice);
// every summary fills them from the whole metrics, so its reports read as with them declared.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { k6Options } from '../../../lib/plan/k6-options';
import { subKey, summaryThresholds, TREND_STATS } from '../../../lib/plan/summary-keys';
import { rebuild } from '../../../lib/raw/rebuild';
import { summaryMetrics } from '../../../lib/raw/rebuilt-summary';
import { buildReport } from '../../../lib/report/build-report';
import { withRunTrends } from '../../../lib/report/run-trends';
import { recordUpTo, rampPlan, T0 } from '../raw/synthetic';

const thresholdsOf = (o: Record<string, unknown>) => o.thresholds as Record<string, string[]>;

test('a one-run plan declares no trend sub-metric of its run (its counters and rates still); two runs declare each', () => {
  const one = rampPlan({ CONCURRENCY: '4' });
  const s = one.plan.runs[0].scenario;
  const th = thresholdsOf(k6Options(one.plan, one.cfg));
  assert.equal(one.plan.runs.length, 1);
  for (const m of ['e2e', 'ttft', 'tpot', 'requestTps', 'ttftAnswer', 'clientGap'] as const) assert.equal(subKey(m, s) in th, false, m);
  for (const m of ['success', 'outputTokens', 'errors'] as const) assert.ok(subKey(m, s) in th, m);
  const two = rampPlan({ CONCURRENCY: '4,8' });
  const th2 = thresholdsOf(k6Options(two.plan, two.cfg));
  for (const r of two.plan.runs) assert.ok(subKey('e2e', r.scenario) in th2);
});

test('a one-run record rebuilt reads every figure as with its trends declared; the SLO is listed once', () => {
  const { spec, cfg, plan } = rampPlan({ CONCURRENCY: '4', SLO_E2E_P99: '40ms' });
  const rec = recordUpTo(plan, 40_000);
  const now = new Date(T0);
  const rebuilt = rebuild({ rec: rec, closed: true }, spec, cfg, null, now);
  const declared = { ...summaryThresholds(plan, cfg, false), ...thresholdsOf(k6Options(plan, cfg)) };
  const metrics = summaryMetrics(rec, { thresholds: declared, trendStats: TREND_STATS, testRunDurationMs: rebuilt.data.state?.testRunDurationMs ?? 0 });
  const before = buildReport(spec, cfg, plan, { ...rebuilt.data, metrics }, { now });
  assert.ok(rebuilt.report.runs[0].e2e !== null && rebuilt.report.runs[0].e2e.count === 40, 'e2e read from the whole metric');
  assert.deepEqual(rebuilt.report.runs, before.runs);
  assert.deepEqual(
    rebuilt.report.thresholds.filter((t) => t.metric.startsWith('llm_e2e')),
    [{ metric: 'llm_e2e', expression: 'p(99)<=40', ok: false }],
  );
});

test('the fill: the whole metric without its thresholds, zeros where nothing was added, a present key or two runs left alone', () => {
  const { plan } = rampPlan({ CONCURRENCY: '4' });
  const s = plan.runs[0].scenario;
  const whole = { type: 'trend', contains: 'time', values: { avg: 5, 'p(99)': 9, count: 3 }, thresholds: { 'p(99)<=1': { ok: false } } };
  const mine = { type: 'trend', contains: 'time', values: { avg: 1, count: 1 } };
  const every = { partial: false, itlSamples: 'every', slo: { ttftOf: 'first' } } as const;
  const out = withRunTrends(plan, { llm_e2e: whole, [subKey('ttft', s)]: mine }, every);
  assert.deepEqual(out[subKey('e2e', s)], { type: 'trend', contains: 'time', values: { avg: 5, 'p(99)': 9, count: 3 } });
  assert.equal(out[subKey('ttft', s)], mine);
  const zeros = Object.fromEntries(TREND_STATS.map((k) => [k, 0]));
  assert.deepEqual(out[subKey('ttftReasoning', s)], { type: 'trend', contains: 'time', values: zeros });
  assert.ok(subKey('itl', s) in out && subKey('clientGap', s) in out);
  // Counted in buckets instead: k6 would not have had them either.
  const bucketed = withRunTrends(plan, {}, { partial: false, itlSamples: 'histogram', slo: { ttftOf: 'first' } });
  for (const m of ['itl', 'clientGap', 'requestTps', 'ttftAnswer']) assert.ok(!(subKey(m, s) in bucketed), m);
  assert.ok(subKey('e2e', s) in bucketed && subKey('ttft', s) in bucketed);
  // SLO_TTFT_OF=answer holds the answer's TTFT to a p99: a Trend then.
  const held = withRunTrends(plan, {}, { partial: false, itlSamples: 'histogram', slo: { ttftOf: 'answer' } });
  assert.ok(subKey('ttftAnswer', s) in held && !(subKey('requestTps', s) in held));
  assert.deepEqual(out[subKey('requestTps', s)].contains, 'default');
  const two = rampPlan({ CONCURRENCY: '4,8' }).plan;
  const m2 = { llm_e2e: whole };
  assert.equal(withRunTrends(two, m2, every), m2);
});
