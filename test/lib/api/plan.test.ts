// The library's plan of a user script (lib/api/plan.ts) and its report (lib/api/report.ts), in Node
// with summary data shaped as k6 hands it over.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { keepThresholds, loadOf, mergeThresholds, scenariosOf, variantKey, windowMode, scenarioWindow, type ScenarioOptions } from '../../../lib/api/plan';
import { libraryReport, setupOf } from '../../../lib/api/report';
import type { ClientSpec } from '../../../lib/api/config';
import { subKey } from '../../../lib/plan/summary-keys';
import type { SummaryMetrics } from '../../../lib/report/figures/run-figures';
import { renderMarkdown } from '../../../lib/report/render/markdown-report';
import { summaryJson } from '../../../lib/report/render/summary-json';

const NOW = new Date('2026-12-01T10:00:00Z');

test('a script without scenarios runs the default one k6 makes of vus, duration, iterations or stages', () => {
  assert.deepEqual(scenariosOf({ vus: 3, duration: '20s' }), { default: { executor: 'constant-vus', vus: 3, duration: '20s' } });
  assert.deepEqual(scenariosOf({ vus: 2, iterations: 10 }), { default: { executor: 'shared-iterations', vus: 2, iterations: 10 } });
  assert.equal(scenariosOf({ stages: [{ duration: '10s', target: 5 }] }).default.executor, 'ramping-vus');
  assert.deepEqual(scenariosOf({}), { default: { executor: 'per-vu-iterations', vus: 1, iterations: 1 } });
  const own = { a: { executor: 'constant-vus', vus: 1, duration: '5s' } };
  assert.equal(scenariosOf({ scenarios: own }), own);
});

test('slices only when every scenario runs for one fixed duration; k6 consolidated durations read the same', () => {
  const a: ScenarioOptions = { executor: 'constant-vus', vus: 2, duration: '1m0s' };
  const b: ScenarioOptions = { executor: 'constant-arrival-rate', rate: 5, duration: '60s', preAllocatedVUs: 4 };
  assert.deepEqual(windowMode({ a, b }, 6), { kind: 'slices', durationMs: 60_000, slices: 6, sliceMs: 10_000 });
  assert.deepEqual(windowMode({ a, c: { ...a, duration: '30s' } }, 6), { kind: 'until-last-request' });
  assert.deepEqual(windowMode({ a, d: { executor: 'shared-iterations', iterations: 5 } }, 6), { kind: 'until-last-request' });
  const w = scenarioWindow({ kind: 'until-last-request' }, 1000);
  assert.equal(w.slices, 0, 'no slice samples');
  assert.equal(w.trackLastEnd, true);
});

test('a scenario load: VUs (a ramp at its most), or arrivals per second', () => {
  assert.deepEqual(loadOf({ executor: 'constant-vus', vus: 4 }), { kind: 'vus', vus: 4 });
  assert.deepEqual(loadOf({ executor: 'ramping-vus', startVUs: 1, stages: [{ target: 8 }, { target: 2 }] }), { kind: 'vus', vus: 8 });
  assert.deepEqual(loadOf({ executor: 'constant-arrival-rate', rate: 30, timeUnit: '1m' }), { kind: 'rate', rate: 0.5 });
});

test('llmOptions declares the sub-metrics the report reads and no threshold that can fail', () => {
  const scenarios = { journey: { executor: 'constant-vus', vus: 2, duration: '30s' } };
  const keep = keepThresholds(scenarios, ['a', 'b'], windowMode(scenarios, 3));
  assert.deepEqual(keep[subKey('e2e', 'journey')], ['min>=0']);
  assert.deepEqual(keep[subKey('windowTokens', 'journey', { slice: '2' })], ['count>=0']);
  assert.deepEqual(keep[variantKey('journey', 'b')], ['rate>=0']);
  assert.equal(keep['llm_success'], undefined, "the benchmarks' success-rate SLO is not the user's");
  assert.equal(keep['llm_variant_down'], undefined);
  assert.equal(keep['llm_target_down'], undefined);
  const always = new Set(['min>=0', 'count>=0', 'rate>=0']);
  for (const [k, v] of Object.entries(keep))
    assert.ok(
      v.every((e) => always.has(e)),
      `${k}: ${v}`,
    );
  const merged = mergeThresholds({ [subKey('e2e', 'journey')]: ['p(95)<900'], llm_ttft: ['p(99)<500'] }, keep);
  assert.deepEqual(merged[subKey('e2e', 'journey')], ['p(95)<900', 'min>=0'], "the user's expression first");
  assert.deepEqual(merged.llm_ttft, ['p(99)<500']);
});

const counter = (count: number) => ({ type: 'counter', values: { count, rate: 0 } });
const rate = (passes: number, fails = 0) => ({ type: 'rate', values: { rate: passes / (passes + fails), passes, fails } });
const trend = (avg: number, count: number) => ({
  type: 'trend',
  values: { avg, min: avg * 0.8, med: avg, max: avg * 1.5, 'p(90)': avg * 1.2, 'p(95)': avg * 1.3, 'p(99)': avg * 1.4, count },
});

function client(name: string, transport: 'http' | 'sse' = 'sse'): ClientSpec {
  return { name, url: `http://${name}.local`, dialect: 'auto', model: '', apiKey: 'secret', transport, timeoutMs: 30_000, tags: {} };
}

/** Summary data of scenarios each run by one client at a steady rate, six 10 s slices. */
function metrics(runs: Array<{ scenario: string; variant: string; tps: number; requests: number }>): SummaryMetrics {
  const m: SummaryMetrics = {};
  for (const r of runs) {
    m[subKey('success', r.scenario)] = rate(r.requests);
    m[variantKey(r.scenario, r.variant)] = rate(r.requests);
    m[subKey('outputTokens', r.scenario)] = counter(r.requests * 64);
    m[subKey('inputTokens', r.scenario)] = counter(r.requests * 210);
    m[subKey('e2e', r.scenario)] = trend(400, r.requests);
    for (let s = 0; s < 6; s++) {
      const wobble = 1 + 0.02 * Math.sin(s * 5 + r.tps);
      m[subKey('windowTokens', r.scenario, { slice: String(s) })] = counter(r.tps * 10 * wobble);
      m[subKey('windowRequests', r.scenario, { slice: String(s) })] = counter(r.requests / 6);
      m[subKey('windowE2e', r.scenario, { slice: String(s) })] = counter((400 * r.requests) / 6);
    }
  }
  return m;
}

test('the report of a script: runs are its scenarios, the cell its load, ISL/OSL measured, two clients at one load compared', () => {
  const scenarios = {
    provider_a: { executor: 'constant-vus', vus: 2, duration: '60s', exec: 'askA' },
    provider_b: { executor: 'constant-vus', vus: 2, duration: '60s', exec: 'askB' },
  };
  const report = libraryReport({
    title: 'side by side',
    runId: 'r1',
    clients: [client('a'), client('b'), client('unused')],
    scenarios,
    slices: 6,
    data: {
      metrics: metrics([
        { scenario: 'provider_a', variant: 'a', tps: 300, requests: 120 },
        { scenario: 'provider_b', variant: 'b', tps: 900, requests: 360 },
      ]),
    },
    now: NOW,
  });
  assert.equal(report.kind, 'ab');
  assert.deepEqual(
    report.runs.map((r) => [r.scenario, r.variant, r.cellId, r.isl, r.osl]),
    [
      ['provider_a', 'a', 'c2', 210, 64],
      ['provider_b', 'b', 'c2', 210, 64],
    ],
  );
  assert.deepEqual(
    report.variants.map((t) => t.variant),
    ['a', 'b'],
    'the unused client is left out',
  );
  assert.match(report.comparisons[0].verdict, /^b faster by 3\.\d\d×/);
  assert.ok(Math.abs((report.runs[1].throughput as number) - 900) < 30);
  assert.ok(report.runs[0].throughputCi, 'an interval from the steady slices');
  assert.equal(report.settings.SCENARIOS, 'provider_a,provider_b');
  assert.equal(report.settings.ISL, undefined, 'no benchmark variable the script did not set');
  assert.ok(!summaryJson(report).includes('secret'), 'the API key never reaches a report');
  assert.match(renderMarkdown(report), /\| 210 \| 64 \| c=2 \| b \| 360 \|/);
});

test('a scenario whose iterations are not timed: throughput until the last request, and the report says there is no interval', () => {
  const scenarios = { chat: { executor: 'per-vu-iterations', vus: 2, iterations: 3 } };
  const m = metrics([{ scenario: 'chat', variant: 'x', tps: 100, requests: 6 }]);
  m[subKey('windowLastEnd', 'chat')] = trend(3000, 6);
  const report = libraryReport({ title: 't', runId: 'r', clients: [client('x', 'http')], scenarios, slices: 6, data: { metrics: m }, now: NOW });
  assert.equal(report.kind, 'smoke');
  assert.equal(report.runs[0].window?.method, 'until-last-request');
  assert.ok(Math.abs((report.runs[0].throughput as number) - (6 * 64) / 4.5) < 1e-9, 'output tokens over the last end (max 4.5 s)');
  assert.ok(report.notMeasured.some((n) => n.startsWith('TTFT, ITL and TPOT: the http transport')));
  assert.ok(report.notMeasured.some((n) => n.startsWith('throughput intervals')));
  assert.equal(report.variants[0].engineLabel, 'not identified (no preflight result in the setup data)');
});

test('two clients in one scenario: one row that says it mixes them', () => {
  const scenarios = { both: { executor: 'constant-vus', vus: 1, duration: '60s' } };
  const m = metrics([{ scenario: 'both', variant: 'a', tps: 100, requests: 10 }]);
  m[variantKey('both', 'b')] = rate(10);
  const report = libraryReport({ title: 't', runId: 'r', clients: [client('a'), client('b')], scenarios, slices: 6, data: { metrics: m }, now: NOW });
  assert.equal(report.runs[0].variant, 'a+b');
  assert.ok(report.warnings.some((w) => w.includes('both sent requests in this scenario')));
  assert.equal(report.kind, 'smoke');
});

test("setup's preflight result is found as setup's value or its llm field", () => {
  const s = { ok: true, variants: [], warnings: [], failures: [] };
  assert.equal(setupOf(s), s);
  assert.equal(setupOf({ llm: s, other: 1 }), s);
  assert.equal(setupOf({ other: 1 }), null);
  assert.equal(setupOf(undefined), null);
  // The last release's LlmSetup named its variants `targets`: still read until the next one.
  const old = { ok: true, targets: [], warnings: [], failures: [] };
  assert.equal(setupOf(old), old);
});

test('a script that did not wrap its options in llmOptions is told why its report has no rows', () => {
  const scenarios = { default: { executor: 'constant-vus', vus: 1, duration: '10s' } };
  const report = libraryReport({ title: 't', runId: 'r', clients: [client('x')], scenarios, slices: 6, data: { metrics: { llm_success: rate(5) } }, now: NOW });
  assert.equal(report.runs.length, 0);
  assert.ok(
    report.notMeasured.some((n) => n.includes('wrap the options in llmOptions()')),
    report.notMeasured.join('; '),
  );
});
