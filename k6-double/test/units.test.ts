// Unit tests of the double's pure parts, against values worked out from k6's Go code.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { rampingSchedule } from '../src/executors/arrival-rate';
import { rampingGracefulSteps, rampingRawSteps, testPlan } from '../src/executors/plan';
import { EventParser } from '../src/host/sse-service';
import { MetricsEngine } from '../src/metrics/engine';
import { MetricRegistry } from '../src/metrics/registry';
import { TrendSink } from '../src/metrics/sinks';
import { parseThresholdExpression } from '../src/metrics/thresholds';
import { normalizeOptions, type ScenarioConfig } from '../src/options';
import { formatGoDuration, parseExtendedDuration, toDurationMs } from '../src/shared/duration';
import { canonicalHeaderKey } from '../src/shared/http-names';
import { k6JSONParseError } from '../src/vu/go-json-error';

describe('durations', () => {
  test('numbers and numeric strings are milliseconds, other strings Go durations', () => {
    assert.equal(toDurationMs(1500), 1500);
    assert.equal(toDurationMs('250'), 250);
    assert.equal(toDurationMs('1m30s'), 90_000);
    assert.equal(toDurationMs('1.5s'), 1500);
    assert.equal(toDurationMs('2d1h'), 2 * 86_400_000 + 3_600_000);
    assert.throws(() => parseExtendedDuration('soon'), /time: invalid duration "soon"/);
    assert.throws(() => parseExtendedDuration('5'.concat('x')), /unknown unit "x"/);
  });

  test('formatted like Go time.Duration.String()', () => {
    assert.equal(formatGoDuration(0), '0s');
    assert.equal(formatGoDuration(600_000), '10m0s');
    assert.equal(formatGoDuration(630_000), '10m30s');
    assert.equal(formatGoDuration(3_600_000), '1h0m0s');
    assert.equal(formatGoDuration(1500), '1.5s');
    assert.equal(formatGoDuration(200), '200ms');
  });
});

describe('thresholds', () => {
  test('the grammar, including the first-operator-match rule', () => {
    assert.deepEqual(parseThresholdExpression('p(99.9) < 500'), { method: 'p', percentile: 99.9, operator: '<', value: 500 });
    assert.deepEqual(parseThresholdExpression('rate<=0.01'), { method: 'rate', percentile: NaN, operator: '<=', value: 0.01 });
    assert.equal(parseThresholdExpression('count===3').operator, '===');
    assert.throws(() => parseThresholdExpression('p95<1'), /left hand side; reason: failed parsing method from expression/);
    assert.throws(() => parseThresholdExpression('avg'), /malformed threshold expression/);
    assert.throws(() => parseThresholdExpression('avg<abc'), /right hand side; reason: strconv.ParseFloat: parsing "abc": invalid syntax/);
  });

  test('evaluation on metrics and sub-metrics, and validation errors', () => {
    const registry = new MetricRegistry();
    registry.register('latency', 'trend', 'time');
    const engine = new MetricsEngine(registry);
    engine.initThresholds({ latency: ['p(50)<20', 'max<100'], 'latency{variant:a}': ['avg<15'], checks: ['rate>0.9'] });
    for (const [v, variant] of [[10, 'a'], [20, 'a'], [30, 'b']] as const) {
      engine.ingest({ metric: 'latency', value: v, time: 0, tags: { variant } });
    }
    // med = 20 (not < 20); the sub-metric only sees 10 and 20 (avg 15, not < 15); no checks
    // samples, so the rate threshold passes (k6 issue #2520).
    assert.deepEqual(engine.evaluate(false, 1000).breached, ['latency', 'latency{variant:a}']);
    const names = engine.observed().map((e) => e.name);
    assert.ok(names.includes('latency{variant:a}') && names.includes('checks'));
    assert.throws(() => new MetricsEngine(registry).initThresholds({ latency: ['count>1'] }), /unsupported aggregation method count on metric of type trend/);
    assert.throws(() => new MetricsEngine(registry).initThresholds({ 'latency{variant}': ['avg<1'] }), /tag expression is malformed/);
  });

  test('trend percentiles interpolate between ranks like k6', () => {
    const t = new TrendSink();
    for (const v of [1, 2, 3, 4, 10]) t.add(v);
    assert.equal(t.p(0.5), 3);
    assert.ok(Math.abs(t.p(0.9) - 7.6) < 1e-9);
    assert.ok(Math.abs(t.p(0.95) - 8.8) < 1e-9);
  });

  test('metric names and redefinitions', () => {
    const r = new MetricRegistry();
    assert.throws(() => r.register('a', 'counter', 'default'), /Invalid metric name: 'a'/);
    assert.throws(() => r.register('1abc', 'counter', 'default'), /Invalid metric name/);
    assert.throws(() => r.register('x'.repeat(130), 'counter', 'default'), /Invalid metric name/);
    r.register('x'.repeat(129), 'counter', 'default');
    assert.throws(() => r.register('checks', 'trend', 'default'), /metric 'checks' already exists but with type rate, instead of trend/);
    r.register('t_ms', 'trend', 'time');
    assert.throws(() => r.register('t_ms', 'trend', 'default'), /already exists but with a value type time, instead of default/);
  });
});

describe('execution plan', () => {
  test('ramping-vus steps follow k6 (index carried between stages)', () => {
    const steps = rampingRawSteps(0, [
      { durationMs: 600, target: 3 },
      { durationMs: 600, target: 0 },
    ], true);
    assert.deepEqual(
      steps.map((s) => [s.offsetMs, s.vus]),
      [[0, 0], [200, 1], [400, 2], [600, 3], [800, 2], [1000, 1], [1200, 0]],
    );
  });

  test('gracefulRampDown keeps ramped-down VUs reserved', () => {
    const config = {
      name: 'r', executor: 'ramping-vus', startVUs: 2, stages: [{ durationMs: 1000, target: 0 }], gracefulRampDownMs: 300,
      gracefulStopMs: 500, startTimeMs: 0, exec: 'default', env: {}, tags: {},
    } as ScenarioConfig & { executor: 'ramping-vus' };
    assert.deepEqual(
      rampingGracefulSteps(config).map((s) => [s.offsetMs, s.vus]),
      [[0, 2], [800, 1], [1300, 0]],
    );
  });

  test('sequential scenarios share VUs, overlapping ones add up', () => {
    const opts = (second: Record<string, unknown>) =>
      normalizeOptions(
        {
          scenarios: {
            a: { executor: 'constant-vus', vus: 3, duration: '1s', gracefulStop: '0s' },
            b: { executor: 'constant-arrival-rate', rate: 1, duration: '1s', preAllocatedVUs: 2, maxVUs: 5, ...second },
          },
        },
        ['default'],
      ).scenarios;
    assert.deepEqual(testPlan(opts({ startTime: '1s' })), { maxPlanned: 3, maxPossible: 5, endMs: 32_000 });
    assert.deepEqual(testPlan(opts({ startTime: '500ms' })), { maxPlanned: 5, maxPossible: 8, endMs: 31_500 });
  });

  test('ramping-arrival-rate iteration times integrate the rate', () => {
    const times = [...rampingSchedule({ startRate: 0, timeUnitMs: 1000, stages: [{ durationMs: 1000, target: 20 }] })];
    // rate(t) = 20t per s: the i-th iteration starts at sqrt(i/10) s.
    assert.equal(times.length, 10);
    times.forEach((t, i) => assert.ok(Math.abs(t - 1000 * Math.sqrt((i + 1) / 10)) < 1e-3, `${i}: ${t}`));
  });

  test('shortcut options and configuration errors', () => {
    const [s] = normalizeOptions({ vus: 2, duration: '3s' }, ['default']).scenarios;
    assert.equal(s!.executor, 'constant-vus');
    assert.equal(s!.name, 'default');
    assert.equal(normalizeOptions({}, ['default']).scenarios[0]!.executor, 'per-vu-iterations');
    assert.throws(() => normalizeOptions({ iterations: 1, scenarios: {} }, ['default']), /using `iterations` and `scenarios` options simultaneously is not allowed/);
    assert.throws(
      () => normalizeOptions({ scenarios: { x: { executor: 'constant-vus', duration: '500ms', exec: 'nope' } } }, ['default']),
      (e: Error) =>
        e.message.includes('scenario x has configuration errors: the duration must be at least 1s, but is 500ms') &&
        e.message.includes("executor x: function 'nope' not found in exports"),
    );
    assert.throws(() => normalizeOptions({ scenarios: { x: { executor: 'shared-iterations', vu: 2 } } }, ['default']), /json: unknown field "vu"/);
  });
});

describe('wire formats', () => {
  test('SSE lines are split into events like xk6-sse', () => {
    const events: unknown[] = [];
    const errors: string[] = [];
    const p = new EventParser((e) => events.push(e), (m) => errors.push(m));
    p.push(Buffer.from('id: 1\nevent: tok'));
    p.push(Buffer.from('en\ndata: a\ndata:b\n: note\nretry: 5\n\nbogus\ndata: tail'));
    assert.deepEqual(events, [{ id: '1', name: 'token', data: 'a\nb', comment: 'note' }]);
    assert.deepEqual(errors, ['unknown event: bogus\n']);
  });

  test("res.json() errors carry Go's message and k6's position", () => {
    assert.equal(k6JSONParseError('{"a":1}'), null);
    assert.equal(
      k6JSONParseError('{"a":}'),
      // Go's offset is one past the bad byte, and k6 counts up to it: the reported "character"
      // is one past the culprit unless it is the last one.
      "cannot parse json due to an error at line 1, character 6 , error: invalid character '}' looking for beginning of value",
    );
    assert.match(k6JSONParseError('{"a":1')!, /error: unexpected end of JSON input$/);
  });

  test('header names are canonicalised like Go', () => {
    assert.equal(canonicalHeaderKey('content-type'), 'Content-Type');
    assert.equal(canonicalHeaderKey('X-REQUEST-id'), 'X-Request-Id');
    assert.equal(canonicalHeaderKey('bad header'), 'bad header');
  });
});
