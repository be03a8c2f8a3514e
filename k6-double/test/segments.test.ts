// Execution segments (--execution-segment / --execution-segment-sequence): what each instance of a
// split test runs, on the double and, when a k6 binary is installed, on real k6 with the same options.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { findK6, runK6, runRealK6, type K6RunResult, type RunOptions } from '../index';
import { fixture, loggedJSON } from './helpers';

interface Share {
  /** scenario -> the global VU ids (idInTest) that ran it, sorted. */
  vus: Record<string, number[]>;
  /** scenario -> the test-wide iteration numbers run (not for constant-vus), sorted. */
  iterations: Record<string, number[]>;
  /** exec.test.options.executionSegment / executionSegmentSequence in setup() and handleSummary(). */
  options: unknown[];
  /** The "scenarios:" block of the execution description. */
  description: string[];
  vusMax: number | undefined;
}

function share(r: K6RunResult): Share {
  assert.equal(r.exitCode, 0, r.stderr);
  const lines = loggedJSON<{ phase?: string; scenario?: string; vu?: number; iterationInTest?: number }>(r.stderr);
  const vus: Record<string, number[]> = {};
  const iterations: Record<string, number[]> = {};
  for (const l of lines) {
    if (!l.scenario) continue;
    const v = (vus[l.scenario] ??= []);
    if (!v.includes(l.vu!)) v.push(l.vu!);
    if (l.scenario !== 'cv') (iterations[l.scenario] ??= []).push(l.iterationInTest!);
  }
  for (const x of [...Object.values(vus), ...Object.values(iterations)]) x.sort((a, b) => a - b);
  const out = r.stdout.split('\n');
  const from = out.findIndex((l) => l.startsWith('     scenarios:'));
  const description = from < 0 ? [] : out.slice(from, out.indexOf('', from));
  const options = lines.filter((l) => l.phase);
  return { vus, iterations, options, description, vusMax: r.summaryData?.metrics.vus_max?.values.max };
}

const SPLITS: Array<{ name: string; segments: string[]; sequence?: string }> = [
  { name: 'N=2', segments: ['0:1/2', '1/2:1'], sequence: '0,1/2,1' },
  { name: 'N=3', segments: ['0:1/3', '1/3:2/3', '2/3:1'], sequence: '0,1/3,2/3,1' },
  { name: 'unequal 0,1/4,1', segments: ['0:1/4', '1/4:1'], sequence: '0,1/4,1' },
  // No sequence: k6 fills one around the segment (0,1/3,2/3,1 here).
  { name: 'segment only', segments: ['1/3:2/3'] },
];

const run = (runner: typeof runK6, executionSegment: string, executionSegmentSequence?: string, extra: RunOptions = {}) =>
  runner(fixture('segments.js'), { executionSegment, executionSegmentSequence, timeoutMs: 60_000, ...extra });

describe('execution segments on the double', () => {
  test('the instances of a split run every VU and iteration exactly once', async () => {
    for (const split of SPLITS.filter((s) => s.sequence)) {
      const shares = await Promise.all(split.segments.map(async (seg) => share(await run(runK6, seg, split.sequence, { quiet: true }))));
      const all = (pick: (s: Share) => Record<string, number[]>, scenario: string) =>
        shares.flatMap((s) => pick(s)[scenario] ?? []).sort((a, b) => a - b);
      const range = (n: number, from = 0) => Array.from({ length: n }, (_, i) => i + from);
      assert.equal(all((s) => s.vus, 'cv').length, 5, split.name);
      assert.deepEqual(all((s) => s.iterations, 'pvi').length, 10, split.name);
      assert.deepEqual(all((s) => s.iterations, 'si'), range(11), split.name);
      assert.deepEqual(all((s) => s.iterations, 'one'), [0], split.name);
      // VU ids are unique across the instances.
      const ids = shares.flatMap((s) => [...new Set(Object.values(s.vus).flat())]);
      assert.equal(new Set(ids).size, ids.length, split.name);
    }
  });

  test('the 1/2:1 half: scaled description, VUs, options', async () => {
    const s = share(await run(runK6, '1/2:1', '0,1/2,1'));
    assert.deepEqual(s.description, [
      '     scenarios: (50.00%) 4 scenarios, 6 max VUs, 10m30s max duration (incl. graceful stop):',
      '              * cv: 2 looping VUs for 1s',
      '              * one: 1 iterations for each of 0 VUs (maxDuration: 10m0s, gracefulStop: 30s)',
      '              * pvi: 2 iterations for each of 2 VUs (maxDuration: 10m0s, gracefulStop: 30s)',
      '              * si: 5 iterations shared among 2 VUs (maxDuration: 10m0s, gracefulStop: 30s)',
    ]);
    assert.equal(s.vus.one, undefined, 'a scenario with no VUs on this instance does not run');
    assert.deepEqual(s.iterations.si, [1, 3, 5, 7, 9]);
    assert.deepEqual(s.options, [
      { phase: 'setup', segment: '1/2:1', sequence: '0,1/2,1' },
      { phase: 'handleSummary', segment: '1/2:1', sequence: '0,1/2,1' },
    ]);
    assert.equal(s.vusMax, 6);
  });

  test('decimals and percentages are normalised as k6 prints them; no segment gives null', async () => {
    const s = share(await run(runK6, '50%:1', '0,0.5,1', { quiet: true }));
    assert.deepEqual(s.options[0], { phase: 'setup', segment: '1/2:1', sequence: '0,1/2,1' });
    const whole = share(await runK6(fixture('segments.js'), { quiet: true, timeoutMs: 60_000 }));
    assert.deepEqual(whole.options[0], { phase: 'setup', segment: null, sequence: null });
  });

  test('a segment missing from the sequence, and unsupported executors, fail the run', async () => {
    const missing = await run(runK6, '1/3:2/3', '0,1/2,1', { quiet: true });
    assert.equal(missing.exitCode, 104);
    assert.match(missing.stderr, /provided segment 1\/3:2\/3 can't be found in sequence 0,1\/2,1/);
    const ramping = await run(runK6, '0:1/2', '0,1/2,1', { quiet: true, env: { CASE: 'ramping' } });
    assert.equal(ramping.exitCode, 104);
    assert.match(ramping.stderr, /k6 double: execution segments are not supported for ramping-vus/);
    assert.equal(ramping.summaryData, undefined);
  });
});

describe('execution segments: double vs real k6', () => {
  for (const split of SPLITS) {
    for (const seg of split.segments) {
      test(`${split.name}: ${seg}`, async (t) => {
        if (!findK6()) return t.skip('no k6 binary: set K6_BIN or put k6 on PATH');
        const real = share(await run(runRealK6, seg, split.sequence));
        const double = share(await run(runK6, seg, split.sequence));
        // VU ids: which VU runs which scenario depends on timing; the sets per instance do not.
        const ids = (s: Share) => [...new Set(Object.values(s.vus).flat())].sort((a, b) => a - b);
        assert.deepEqual(ids(double), ids(real));
        const counts = (s: Share) => Object.fromEntries(Object.entries(s.vus).map(([k, v]) => [k, v.length]));
        assert.deepEqual(counts(double), counts(real));
        assert.deepEqual(double.iterations, real.iterations);
        assert.deepEqual(double.options, real.options);
        assert.deepEqual(double.description, real.description);
        assert.equal(double.vusMax, real.vusMax);
      });
    }
  }
});
