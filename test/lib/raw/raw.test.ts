// The raw record read back: k6's summary values from its JSON lines (k6's sink rules, sub-metrics,
// thresholds on empty sinks), where a run stopped, and the remote-write loss from k6's log.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { subKey } from '../../../lib/plan/summary-keys';
import { lossSentence, remoteWriteLoss } from '../../../lib/raw/k6-log';
import { progressAt, progressOf, stopSentence, stoppedProgress } from '../../../lib/raw/progress';
import { buildReport } from '../../../lib/report/build-report';
import { rebuild } from '../../../lib/raw/rebuild';
import { RawRecord, timeMs } from '../../../lib/raw/record';
import { metricLine, point, rampPlan, recordUpTo, T0 } from './synthetic';
import { k6Percentile, parseKey, summaryMetrics } from '../../../lib/raw/rebuilt-summary';
import { upgradeSetup, type SetupData } from '../../../lib/variants';

test("timestamps: k6's RFC 3339 with nanoseconds and a zone", () => {
  assert.equal(timeMs('2026-12-01T10:00:00.123456789Z'), T0 + 123.456789);
  assert.equal(timeMs('2026-12-01T12:00:00.5+02:00'), T0 + 500);
  assert.equal(timeMs('2026-12-01T10:00:00Z'), T0);
  assert.ok(Number.isNaN(timeMs('yesterday')));
});

test("k6's percentile rule: the value at p·(n−1), linear between neighbours", () => {
  const v = Float64Array.from([1, 2, 3, 4, 10]);
  assert.equal(k6Percentile(v, 0.5), 3);
  assert.equal(k6Percentile(v, 0.9), 4 + (10 - 4) * (0.9 * 4 - 3));
  assert.equal(k6Percentile(Float64Array.from([7]), 0.99), 7);
  assert.equal(k6Percentile(new Float64Array(0), 0.99), 0);
  assert.deepEqual(parseKey('llm_errors{scenario:a_b,error_class:timeout}'), { name: 'llm_errors', selector: { scenario: 'a_b', error_class: 'timeout' } });
  assert.deepEqual(parseKey('llm_e2e'), { name: 'llm_e2e', selector: null });
});

test('summary values as k6 builds them: every metric type, sub-metrics by tag subset, thresholds on empty sinks', () => {
  const rec = new RawRecord();
  rec.add(metricLine('llm_e2e', 'trend', [{ scenario: 'a' }], 'time'));
  rec.add(metricLine('llm_success', 'rate'));
  rec.add(metricLine('llm_output_tokens', 'counter'));
  rec.add(metricLine('vus', 'gauge'));
  const e2e = [
    [5, 'a'],
    [1, 'a'],
    [9, 'b'],
    [3, 'a'],
  ] as const;
  e2e.forEach(([v, sc], i) => rec.add(point('llm_e2e', T0 + i, v, { scenario: sc, variant: 'x' })));
  [1, 0, 1, 1].forEach((v, i) => rec.add(point('llm_success', T0 + i, v, { scenario: 'a' })));
  [10, 20.5].forEach((v, i) => rec.add(point('llm_output_tokens', T0 + i, v, { scenario: 'a' })));
  [3, 7, 2].forEach((v, i) => rec.add(point('vus', T0 + i * 1000, v, {})));
  const m = summaryMetrics(rec, {
    thresholds: {
      'llm_e2e{scenario:a}': ['min>=0'],
      'llm_success{scenario:zz}': ['rate>=0.9'],
      'llm_ttft{scenario:a}': ['min>=0'],
      llm_output_tokens: ['count>=100'],
    },
    trendStats: ['avg', 'min', 'med', 'max', 'p(90)', 'count'],
    testRunDurationMs: 10_000,
  });
  assert.deepEqual(m.llm_e2e.values, { avg: 4.5, min: 1, med: 4, max: 9, 'p(90)': 5 + (9 - 5) * (0.9 * 3 - 2), count: 4 });
  assert.deepEqual(m['llm_e2e{scenario:a}'].values, { avg: 3, min: 1, med: 3, max: 5, 'p(90)': 3 + (5 - 3) * (0.9 * 2 - 1), count: 3 });
  assert.deepEqual(m['llm_e2e{scenario:a}'].thresholds, { 'min>=0': { ok: true } });
  assert.deepEqual(m.llm_success.values, { rate: 0.75, passes: 3, fails: 1 });
  assert.deepEqual(m.llm_output_tokens.values, { count: 30.5, rate: 3.05 });
  assert.deepEqual(m.llm_output_tokens.thresholds, { 'count>=100': { ok: false } });
  assert.deepEqual(m.vus.values, { value: 2, min: 2, max: 7 });
  // k6 evaluates every threshold at the end, empty sinks too: an empty rate is 0, an empty trend's min 0.
  assert.deepEqual(m['llm_success{scenario:zz}'], {
    type: 'rate',
    contains: 'default',
    values: { rate: 0, passes: 0, fails: 0 },
    thresholds: { 'rate>=0.9': { ok: false } },
  });
  assert.equal(m['llm_ttft{scenario:a}'].values.count, 0);
  assert.deepEqual(m['llm_ttft{scenario:a}'].thresholds, { 'min>=0': { ok: true } });
  assert.equal(m['llm_ttft{scenario:a}'].contains, 'time');
});

test('lines that are not k6 lines are counted, not fatal; the last cut line of a killed run too', () => {
  const rec = new RawRecord();
  rec.add(metricLine('llm_e2e', 'trend'));
  rec.add(point('llm_e2e', T0, 5, { scenario: 'a' }));
  rec.add('{"metric":"llm_e2e","type":"Point","data":{"time":"2026-12');
  rec.add('');
  assert.equal(rec.points, 1);
  assert.equal(rec.badLines, 1);
  assert.match(rec.lastBad as string, /^\{"metric"/);
});

test('where a run stopped: complete runs, the run in flight, runs not run; how the record ends', () => {
  const { plan } = rampPlan();
  assert.equal(plan.runs.length, 5);
  assert.equal(plan.runs[2].startMs, 12_000);
  // Killed 2.5 s into run 3: runs 1–2 are followed by run 3's samples, so whole.
  const killed = progressOf(recordUpTo(plan, 14_500), plan, false);
  assert.equal(killed.ending, 'killed');
  assert.deepEqual(
    killed.runs.map((r) => r.state),
    ['complete', 'complete', 'incomplete', 'not run', 'not run'],
  );
  assert.ok(Math.abs((killed.stoppedAtMs as number) - 14_500) < 5, String(killed.stoppedAtMs));
  assert.ok(Math.abs(killed.runs[2].coveredMs - 2500) < 5);
  assert.match(
    stopSentence(killed, plan) as string,
    /stopped 14\.5 s into the test's 30\.0 s of runs, 2\.5 s into run 3\/5 \(target i\d+_o\d+_c3, 4\.0 s of load\): 2 run\(s\) complete, run 3 incomplete \(partial figures\), 2 not run; the record is cut off mid-write/,
  );
  // The same samples in a record k6 closed: a graceful stop.
  assert.equal(progressOf(recordUpTo(plan, 14_500), plan, true).ending, 'stopped');
  // A plain record cannot tell.
  assert.equal(progressOf(recordUpTo(plan, 14_500), plan, null).ending, 'ended early');
  // A finished run, closed: all complete; the run record's time is the runs' start.
  const done = progressOf(recordUpTo(plan, 40_000, true), plan, true);
  assert.equal(done.ending, 'finished');
  assert.ok(Math.abs((done.t0Ms as number) - T0) < 1);
  assert.equal(stopSentence(done, plan), null);
  // Killed in the last run's graceful stop: its samples may not all be written: incomplete.
  assert.equal(progressOf(recordUpTo(plan, 28_400), plan, false).runs[4].state, 'incomplete');
  // From handleSummary's clock alone (a graceful stop).
  assert.deepEqual(
    progressAt(plan, 15_900, 'stopped').runs.map((r) => r.state),
    ['complete', 'complete', 'incomplete', 'not run', 'not run'],
  );
  assert.equal(progressAt(plan, 28_000, 'stopped').ending, 'finished');
});

test(
  'a killed record rebuilt: finished runs whole, the run in flight marked with throughput over its ' +
    'whole slices, later runs not run, the knee from complete runs',
  () => {
    const { spec, cfg, plan } = rampPlan();
    const full = rebuild({ rec: recordUpTo(plan, 40_000), closed: true }, spec, cfg, null, new Date(T0));
    const cut = rebuild({ rec: recordUpTo(plan, 15_600), closed: false }, spec, cfg, null, new Date(T0));
    assert.equal(full.progress.ending, 'finished');
    assert.equal(cut.progress.ending, 'killed');
    for (const i of [0, 1]) {
      assert.deepEqual(cut.report.runs[i], full.report.runs[i], `run ${i + 1} as in the finished record`);
    }
    const r3 = cut.report.runs[2];
    assert.match(r3.notes[0], /^incomplete: the test stopped 3\.6 s into this run's 4\.0 s of load; .*over the 1 steady slice\(s\) measured whole/);
    // Slice 1 (1–2 s) is whole; its 10 requests of 32 tokens in 1 s.
    assert.equal(r3.throughput, 320);
    assert.deepEqual(r3.window, { fromMs: 1000, toMs: 2000, method: 'steady-slices' });
    assert.equal(r3.requestRate, 10);
    assert.match(cut.report.runs[3].notes[0], /^not run/);
    assert.match(cut.report.warnings[0], /^partial run: the test stopped 15\.6 s/);
    assert.match(cut.report.notMeasured[0], /^partial run/);
    assert.doesNotMatch(cut.report.knee?.text ?? '', /c=3/);
    // Without setup's data in the record: the dialect from the samples, the engine unknown, the run id from the testid tag.
    assert.equal(cut.report.variants[0].dialect, 'sglang');
    assert.match(cut.report.variants[0].engineLabel, /unknown/);
    assert.equal(cut.report.runId, 'r1');
    assert.equal(cut.data.metrics[subKey('success', plan.runs[0].scenario)].values.passes, 40);
  },
);

test('a record of other settings is refused with the reason', () => {
  const { plan } = rampPlan();
  const other = rampPlan({ CONCURRENCY: '8,16' });
  assert.throws(
    () => rebuild({ rec: recordUpTo(plan, 40_000), closed: true }, other.spec, other.cfg, null, new Date(T0)),
    /are not the plan of these settings/,
  );
});

test("remote-write loss from k6's log lines (logfmt and json)", () => {
  const log = [
    'time="2026-12-03T07:00:34Z" level=info msg="▶ run 2/3: target i128_o32_c2" source=console',
    'time="2026-12-03T07:00:35Z" level=error msg="Failed to send the time series data to the endpoint" error="HTTP POST request failed: Post \\"http://127.0.0.1:1/api/v1/write\\": dial tcp 127.0.0.1:1: connect: connection refused" output="Prometheus remote write"',
    '{"error":"connect: connection refused","level":"error","msg":"Failed to send the time series data to ' +
      'the endpoint","output":"Prometheus remote write","time":"2026-12-03T07:00:40Z"}',
    'time="2026-12-03T07:00:41Z" level=warning msg="Successful flushed time series to remote write ' +
      'endpoint but it took 6s while flush period is 5s. Some samples may be dropped." nts=10',
  ].join('\n');
  const loss = remoteWriteLoss(log);
  assert.equal(loss.failed, 2);
  assert.equal(loss.slow, 1);
  assert.equal(loss.firstAt, '2026-12-03T07:00:35Z');
  assert.equal(loss.lastAt, '2026-12-03T07:00:40Z');
  assert.equal(loss.lastError, 'connect: connection refused');
  assert.match(lossSentence(loss, 5000, 60_000) as string, /^Prometheus remote write: 2 of ~12 pushes failed .*about 10 s of the test/);
  assert.equal(lossSentence(remoteWriteLoss('all fine'), 5000, 1000), null);
});

test(
  "handleSummary after a graceful stop: the report marked from setup's stamp and the clock; a finished " + 'run untouched; REQUESTS mode by the requests sent',
  () => {
    const { spec, cfg, plan } = rampPlan();
    const stopped = rebuild({ rec: recordUpTo(plan, 14_500), closed: true }, spec, cfg, null, new Date(T0));
    const data = { ...stopped.data, setup_data: { ...stopped.data.setup_data, runsStartMs: T0 } };
    assert.equal(buildReport(spec, cfg, plan, data, { now: new Date(T0) }).warnings.length, 0);
    const report = buildReport(spec, cfg, plan, data, { now: new Date(T0), progress: stoppedProgress(plan, data, T0 + 14_600) });
    assert.match(
      report.warnings[0],
      /^partial run: the test stopped 14\.6 s into the test's 30\.0 s of runs, 2\.6 s into run 3\/5 .*k6 stopped the test early/,
    );
    assert.match(report.runs[2].notes[0], /^incomplete/);
    const done = buildReport(spec, cfg, plan, data, { now: new Date(T0), progress: stoppedProgress(plan, data, T0 + 29_000) });
    assert.equal(done.warnings.length, 0);
    // Without the stamp (setup did not run writeRunRecord), nothing is marked.
    assert.equal(stoppedProgress(plan, stopped.data, T0 + 14_600), null);
    // REQUESTS mode: runs 1–2 sent their 40 requests well before their time was up.
    const req = rampPlan({ REQUESTS: '40' });
    assert.deepEqual(
      progressAt(req.plan, 14_500, 'stopped', (run) => run.startMs < 12_000).runs.map((r) => r.state),
      ['complete', 'complete', 'incomplete', 'not run', 'not run'],
    );
  },
);

test('killed after the last run (in the summary): ending killed, nothing marked partial', () => {
  const { spec, cfg, plan } = rampPlan();
  const rec = recordUpTo(plan, 40_000);
  // k6 samples its VUs every second to the end: the record goes on past the last run's graceful stop.
  rec.add(metricLine('vus', 'gauge'));
  rec.add(point('vus', T0 + 31_000, 0, {}));
  const r = rebuild({ rec: rec, closed: false }, spec, cfg, null, new Date(T0));
  assert.equal(r.progress.ending, 'killed');
  assert.ok(r.progress.runs.every((x) => x.state === 'complete'));
  assert.equal(stopSentence(r.progress, plan), null);
  assert.equal(r.report.warnings.length, 0);
});

test("an older release's setup data in a record reads as now: targets are variants, engine the label, engineId the engine", () => {
  const old = {
    runId: 'r',
    targets: [{ variant: 'a', url: 'http://a', dialect: 'openai', model: 'm', engine: 'vLLM 0.20.1', engineId: 'vllm', metrics: 'vllm', notes: [] }],
    warnings: [],
  };
  const now = upgradeSetup(old as unknown as Partial<SetupData>);
  assert.deepEqual(now.variants, [
    { variant: 'a', url: 'http://a', dialect: 'openai', model: 'm', engineLabel: 'vLLM 0.20.1', engine: 'vllm', metrics: 'vllm', notes: [] },
  ]);
  assert.equal('targets' in now, false);
  assert.equal(upgradeSetup(now), now, 'setup data of this release is left as it is');
  assert.equal(upgradeSetup(null), null);
});
