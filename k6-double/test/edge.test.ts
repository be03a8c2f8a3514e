// Stopping things: a VU stuck in plain JS, abortOnFail thresholds, the runner's own time cap.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { K6DoubleTimeoutError, runK6 } from '../index';
import { fixture, logLines } from './helpers';

const edge = (name: string, timeoutMs = 20_000) => runK6(fixture('edge.js'), { env: { CASE: name }, quiet: true, timeoutMs });

describe('stopping', { concurrency: true }, () => {
  test('a VU spinning in JavaScript is terminated at the end of the scenario', async () => {
    const r = await edge('spin');
    assert.equal(r.exitCode, 0);
    assert.equal(r.summaryData!.metrics.iterations, undefined);
    assert.ok(logLines(r.stderr).some((l) => l.msg === 'teardown ran'));
  });

  test('abortOnFail stops the test at the next threshold evaluation with exit code 99', async () => {
    const r = await edge('abortOnFail');
    assert.equal(r.exitCode, 99);
    const lines = logLines(r.stderr);
    assert.ok(lines.some((l) => l.msg === "thresholds on metrics 'failures' were crossed; at least one has abortOnFail enabled, stopping test prematurely"));
    assert.ok(lines.some((l) => l.msg === 'teardown ran'), 'teardown still runs');
    assert.deepEqual(r.summaryData!.metrics.failures!.thresholds, { 'rate<0.5': { ok: false } });
    // Evaluated every 2 s: well before the 10 s duration.
    assert.ok(r.summaryData!.state.testRunDurationMs < 6000);
  });

  test('timeoutMs stops a run that does not end and rejects', async () => {
    await assert.rejects(edge('forever', 1500), (e: unknown) => e instanceof K6DoubleTimeoutError && e.timeoutMs === 1500);
  });
});
