// The real-binary side: locating k6, the runner's plumbing (with a stand-in binary), and the
// same fixtures on a real k6 compared with the double. The comparison tests skip when no k6 is
// installed (set K6_BIN or put k6 on PATH to run them).

import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, test, type TestContext } from 'node:test';
import { findK6, runK6, runRealK6, type K6RunResult } from '../index';
import { fixture } from './helpers';

const NO_K6 = 'no k6 binary: set K6_BIN or put k6 on PATH';

function withEnv<T>(vars: Record<string, string | undefined>, fn: () => Promise<T>): Promise<T> {
  const saved = Object.fromEntries(Object.keys(vars).map((k) => [k, process.env[k]]));
  const apply = (v: Record<string, string | undefined>) => {
    for (const [k, x] of Object.entries(v)) {
      if (x === undefined) delete process.env[k];
      else process.env[k] = x;
    }
  };
  apply(vars);
  return fn().finally(() => apply(saved));
}

describe('real k6 runner', () => {
  test('findK6: K6_BIN wins, and must be an executable file', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'k6-bin-'));
    const bin = path.join(dir, 'k6');
    fs.writeFileSync(bin, '#!/bin/sh\nexit 0\n', { mode: 0o755 });
    await withEnv({ K6_BIN: bin }, async () => assert.equal(findK6(), bin));
    await withEnv({ K6_BIN: path.join(dir, 'missing') }, async () => assert.equal(findK6(), null));
    await withEnv({ K6_BIN: undefined, PATH: dir }, async () => assert.equal(findK6(), bin));
  });

  test('runRealK6 passes env and flags, wraps scripts with handleSummary, cleans up', async () => {
    // A stand-in binary: prints its arguments and whether the script it got exists, exits 3.
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'k6-bin-'));
    const bin = path.join(dir, 'k6');
    fs.writeFileSync(bin, '#!/bin/sh\necho "$@"\nfor last; do :; done\ntest -f "$last" && echo "script exists"\necho oops >&2\nexit 3\n', { mode: 0o755 });
    const r = await withEnv({ K6_BIN: bin }, () => runRealK6(fixture('lifecycle.js'), { env: { MODE: 'ok' }, quiet: true }));
    assert.equal(r.exitCode, 3);
    assert.equal(r.stderr, 'oops\n');
    const [args, exists] = r.stdout.trim().split('\n');
    assert.match(args!, /^run --no-usage-report --include-system-env-vars=false --quiet -e MODE=ok \S+\/\.k6-double-wrapper-[0-9a-f]+\.js$/);
    assert.equal(exists, 'script exists');
    const wrapper = args!.split(' ').at(-1)!;
    assert.equal(fs.existsSync(wrapper), false, 'the wrapper is removed after the run');
    assert.equal(r.summaryData, undefined);
  });
});

/** The double and a real k6 on the same fixture: same exit code and summary data shape. */
async function compare(t: TestContext, name: string, env: Record<string, string>): Promise<[K6RunResult, K6RunResult] | null> {
  if (!findK6()) {
    t.skip(NO_K6);
    return null;
  }
  const cwdA = fs.mkdtempSync(path.join(os.tmpdir(), 'k6-cmp-'));
  const cwdB = fs.mkdtempSync(path.join(os.tmpdir(), 'k6-cmp-'));
  const real = await runRealK6(fixture(name), { env, cwd: cwdA, quiet: true, timeoutMs: 60_000 });
  const double = await runK6(fixture(name), { env, cwd: cwdB, quiet: true, timeoutMs: 60_000 });
  return [real, double];
}

const shape = (r: K6RunResult) =>
  Object.fromEntries(
    Object.entries(r.summaryData?.metrics ?? {})
      .filter(([name]) => !['vus', 'vus_max'].includes(name))
      .map(([name, m]) => [name, { type: m.type, contains: m.contains, keys: Object.keys(m.values).sort(), thresholds: m.thresholds }]),
  );

describe('double vs real k6', () => {
  for (const mode of ['ok', 'thresholds-fail', 'abort', 'setup-throw', 'init-throw', 'bad-threshold-metric']) {
    test(`lifecycle.js MODE=${mode}`, async (t) => {
      const pair = await compare(t, 'lifecycle.js', { MODE: mode });
      if (!pair) return;
      const [real, double] = pair;
      assert.equal(double.exitCode, real.exitCode, real.stderr);
      assert.deepEqual(shape(double), shape(real));
      // How many iterations finish before test.abort() lands depends on timing.
      if (mode !== 'abort') assert.deepEqual(double.summaryData?.root_group, real.summaryData?.root_group);
      assert.equal(double.stdout, real.stdout);
    });
  }

  test('executors.js CASE=arrival', async (t) => {
    const pair = await compare(t, 'executors.js', { CASE: 'arrival' });
    if (!pair) return;
    const [real, double] = pair;
    const count = (r: K6RunResult, m: string) => r.summaryData?.metrics[m]?.values.count ?? 0;
    // The one difference left (README.md, "Arrival-rate end"): an iteration due exactly at the end of the
    // duration, which k6 may still start and the double does not.
    const d = count(double, 'iterations') + count(double, 'dropped_iterations');
    const r = count(real, 'iterations') + count(real, 'dropped_iterations');
    assert.ok(r === d || r === d + 1, `double ${d}, real ${r}`);
    assert.ok(d >= 10);
  });
});
