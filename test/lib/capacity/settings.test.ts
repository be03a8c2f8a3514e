import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readCapacitySettings, LOOPS } from '../../../lib/capacity/settings';
import { ConfigError } from '../../../lib/config/parse';

test('defaults: closed loop from 1 stream, each SLO read as a limit', () => {
  const s = readCapacitySettings({ SLO_TTFT_P99: '500ms', SLO_ITL_P99: '50ms', SLO_ATTAINMENT: '0.9' });
  assert.equal(s.loop, LOOPS.closed);
  assert.equal(s.start, 1);
  assert.equal(s.maxLoad, 256);
  assert.deepEqual(
    s.criteria.map((c) => [c.key, c.limit]),
    [
      ['ttft', 500],
      ['itl', 50],
      ['attainment', 0.9],
    ],
  );
  const open = readCapacitySettings({ SLO_E2E_P99: '4s', CAPACITY_LOOP: 'open', CAPACITY_START: '0.25' });
  assert.equal(open.loop.variable, 'RATE');
  assert.equal(open.start, 0.25);
});

test('bad input stops with one line naming the variable', () => {
  const cases: Array<[Record<string, string>, RegExp]> = [
    [{}, /needs an SLO: set SLO_TTFT_P99/],
    [{ SLO_TTFT_P99: 'fast' }, /^SLO_TTFT_P99='fast' is not valid: expected a duration/],
    [{ SLO_E2E_P99: '-1s' }, /^SLO_E2E_P99=/],
    [{ SLO_ITL_P99: '50ms', SLO_ATTAINMENT: '1.5' }, /^SLO_ATTAINMENT='1.5'/],
    [{ SLO_ITL_P99: '50ms', SLO_ATTAINMENT: '1' }, /^SLO_ATTAINMENT='1' is not valid: expected a share above 0 and below 1/],
    [{ SLO_ATTAINMENT: '0.9' }, /SLO_ATTAINMENT needs a per-request SLO/],
    [{ SLO_E2E_P99: '1s', CAPACITY_LOOP: 'sideways' }, /^CAPACITY_LOOP='sideways' is not valid: expected one of closed, open/],
    [{ SLO_E2E_P99: '1s', CAPACITY_START: '2.5' }, /^CAPACITY_START='2.5' is not valid: expected a whole number/],
    [{ SLO_E2E_P99: '1s', CAPACITY_START: '8', CAPACITY_MAX_LOAD: '4' }, /CAPACITY_MAX_LOAD=4 is below CAPACITY_START=8/],
    [{ SLO_E2E_P99: '1s', CAPACITY_STEP: '30s', CAPACITY_STEP_MAX: '10s' }, /CAPACITY_STEP_MAX .* shorter than CAPACITY_STEP/],
    [{ SLO_E2E_P99: '1s', CAPACITY_MAX_TIME: 'soon' }, /^CAPACITY_MAX_TIME='soon'/],
    [{ SLO_E2E_P99: '1s', CAPACITY_PRECISION: '2' }, /^CAPACITY_PRECISION='2' is not valid: expected a number from 0.001 to 0.5/],
    [{ SLO_E2E_P99: '1s', CAPACITY_MIN_SAMPLES: 'many' }, /^CAPACITY_MIN_SAMPLES='many'/],
    [{ SLO_E2E_P99: '1s', ISL: '128,1024' }, /^ISL=128,1024: a capacity search measures one workload/],
    [{ SLO_E2E_P99: '1s', CONCURRENCY: '1,8' }, /^CONCURRENCY is set: the capacity search sets each step's load/],
    [{ SLO_E2E_P99: '1s', SLO_ERROR_RATE: '7' }, /^SLO_ERROR_RATE='7'/],
  ];
  for (const [env, re] of cases) {
    assert.throws(
      () => readCapacitySettings(env),
      (e: Error) => e instanceof ConfigError && re.test(e.message) && !e.message.includes('\n'),
      `${JSON.stringify(env)} should fail with ${re}`,
    );
  }
});
