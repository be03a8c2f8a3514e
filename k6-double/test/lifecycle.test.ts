// Test lifecycle, exit codes, handleSummary and the script's environment, on the double.

import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, test } from 'node:test';
import { runK6, type K6RunResult } from '../index';
import { fixture, loggedJSON, logLines } from './helpers';

interface IterRecord {
  kind: 'iter';
  vu: number;
  iter: number;
  moduleCounter: number;
  dataCount: number;
  token: string;
  list: number[];
  sharedLength: number;
  item: number;
  frozen: boolean;
}

function tmpdir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'k6-double-test-'));
}

async function lifecycle(mode: string, cwd = tmpdir()): Promise<K6RunResult & { cwd: string }> {
  const r = await runK6(fixture('lifecycle.js'), { env: { MODE: mode }, cwd, quiet: true, timeoutMs: 20_000 });
  return { ...r, cwd };
}

/** One run of the fixture's normal mode, shared by the tests that only read its results. */
let okRun: Promise<K6RunResult & { cwd: string }> | undefined;
const ok = () => (okRun ??= lifecycle('ok'));

const errors = (r: K6RunResult) => logLines(r.stderr).filter((l) => l.level === 'error');
const teardownRan = (r: K6RunResult) => loggedJSON<{ kind: string }>(r.stderr).some((x) => x.kind === 'teardown');

describe('lifecycle', { concurrency: 3 }, () => {
  test('setup data reaches every VU as its own copy, and teardown gets the original', async () => {
    const r = await ok();
    assert.equal(r.exitCode, 0, r.stderr);
    const iters = loggedJSON<IterRecord>(r.stderr).filter((x) => x.kind === 'iter');
    assert.equal(iters.length, 6);
    for (const vu of [1, 2]) {
      const mine = iters.filter((x) => x.vu === vu);
      // Module state and the setup data copy belong to the VU: 1, 2, 3 in each.
      assert.deepEqual(mine.map((x) => x.moduleCounter), [1, 2, 3]);
      assert.deepEqual(mine.map((x) => x.dataCount), [1, 2, 3]);
      assert.ok(mine.every((x) => x.token === 't' && x.list.join() === '1,2'));
    }
    const teardown = loggedJSON<{ kind: string; data: unknown }>(r.stderr).find((x) => x.kind === 'teardown');
    assert.deepEqual(teardown?.data, { token: 't', nested: { list: [1, 2] }, count: 0 });
    assert.deepEqual(r.summaryData?.setup_data, { token: 't', nested: { list: [1, 2] }, count: 0 });
  });

  test('SharedArray: computed once per run, read-only elements', async () => {
    const r = await ok();
    const computed = logLines(r.stderr).filter((l) => l.msg === 'computing shared array');
    assert.equal(computed.length, 1);
    const iters = loggedJSON<IterRecord>(r.stderr).filter((x) => x.kind === 'iter');
    assert.ok(iters.every((x) => x.sharedLength === 3 && x.frozen && x.item === (x.iter % 3) + 1));
  });

  test('handleSummary: k6-shaped data, outputs to stdout and files relative to cwd', async () => {
    const r = await ok();
    assert.equal(r.stdout, 'custom summary\n');
    assert.deepEqual(r.files.sort(), [path.join(r.cwd, 'raw.bin'), path.join(r.cwd, 'summary.json')]);
    assert.deepEqual([...fs.readFileSync(path.join(r.cwd, 'raw.bin'))], [107, 54]);
    const written = JSON.parse(fs.readFileSync(path.join(r.cwd, 'summary.json'), 'utf8')) as typeof r.summaryData;
    assert.deepEqual(written, r.summaryData);
    const data = r.summaryData!;
    assert.deepEqual(data.options, { summaryTrendStats: ['avg', 'min', 'med', 'max', 'p(90)', 'p(95)'], summaryTimeUnit: '', noColor: false });
    assert.deepEqual(Object.keys(data.state).sort(), ['isStdErrTTY', 'isStdOutTTY', 'testRunDurationMs']);
    assert.deepEqual(data.metrics.custom_counter, { type: 'counter', contains: 'default', values: { count: 6, rate: data.metrics.custom_counter!.values.rate } });
    assert.deepEqual(Object.keys(data.metrics.iteration_duration!.values), ['avg', 'min', 'med', 'max', 'p(90)', 'p(95)']);
    assert.equal(data.metrics.iteration_duration!.contains, 'time');
    assert.deepEqual(data.metrics.checks!.values, { rate: 1, passes: 6, fails: 0 });
    const check = data.root_group.checks[0]!;
    assert.deepEqual(check, { name: 'iteration ok', path: '::iteration ok', id: check.id, passes: 6, fails: 0 });
    assert.equal(data.root_group.id, 'd41d8cd98f00b204e9800998ecf8427e');
    // A path that cannot be opened is reported, the rest is still written, the exit code stays.
    assert.ok(errors(r).some((l) => l.msg === 'failed to handle the end-of-test summary' && l.fields.error!.includes("could not open 'missing-dir/x.txt'")));
  });

  test('thresholds: crossed ones exit 99 and are marked in the summary data', async () => {
    const r = await lifecycle('thresholds-fail');
    assert.equal(r.exitCode, 99);
    assert.deepEqual(r.summaryData!.metrics.custom_counter!.thresholds, { 'count>=6': { ok: true }, 'count<3': { ok: false } });
    assert.deepEqual(r.summaryData!.metrics.checks!.thresholds, { 'rate>0.99': { ok: false } });
    assert.ok(errors(r).some((l) => l.msg === "thresholds on metrics 'checks, custom_counter' have been crossed"));
    const pass = await lifecycle('thresholds-pass');
    assert.equal(pass.exitCode, 0, pass.stderr);
    assert.equal(pass.summaryData!.metrics['custom_counter{vu:one}']!.values.count, 3);
  });

  test('invalid thresholds are configuration errors (104), before any VU runs', async () => {
    const bad = await lifecycle('bad-threshold');
    assert.equal(bad.exitCode, 104);
    assert.match(errors(bad)[0]!.msg, /failed parsing threshold expresion's "rate>>0.5" right hand side/);
    const missing = await lifecycle('bad-threshold-metric');
    assert.equal(missing.exitCode, 104);
    assert.equal(errors(missing)[0]!.msg, 'invalid threshold defined on missing_metric; reason: no metric name "missing_metric" found');
    assert.equal(missing.summaryData, undefined);
  });

  test('exceptions in init exit 107 without a summary; in an iteration they are only logged', async () => {
    const init = await lifecycle('init-throw');
    assert.equal(init.exitCode, 107);
    assert.equal(init.summaryData, undefined);
    const [e] = errors(init);
    assert.match(e!.msg, /^Error: boom in init\n\tat file:\/\/.*lifecycle\.js:8:/);
    assert.equal(e!.fields.hint, 'script exception');

    const iter = await lifecycle('iter-throw');
    assert.equal(iter.exitCode, 0);
    const logged = errors(iter).filter((l) => l.fields.source === 'stacktrace');
    assert.equal(logged.length, 2);
    assert.deepEqual(logged[0]!.fields, { executor: 'per-vu-iterations', scenario: 'main', source: 'stacktrace' });
    assert.equal(iter.summaryData!.metrics.iterations!.values.count, 6);
  });

  test('setup() failing skips the scenarios and teardown, handleSummary still runs (107)', async () => {
    const r = await lifecycle('setup-throw');
    assert.equal(r.exitCode, 107);
    assert.ok(!teardownRan(r));
    assert.equal(loggedJSON<IterRecord>(r.stderr).length, 0);
    assert.equal(r.stdout, 'custom summary\n');
    assert.match(errors(r).at(-1)!.msg, /^Error: boom in setup/);
  });

  test('teardown() failing exits 107 after the summary', async () => {
    const r = await lifecycle('teardown-throw');
    assert.equal(r.exitCode, 107);
    assert.equal(r.stdout, 'custom summary\n');
  });

  test('test.abort() exits 108, stops the iterations, still runs teardown and handleSummary', async () => {
    const r = await lifecycle('abort');
    assert.equal(r.exitCode, 108);
    assert.ok(teardownRan(r));
    assert.equal(r.stdout, 'custom summary\n');
    assert.ok(!logLines(r.stderr).some((l) => l.msg === 'not reached'));
    assert.equal(errors(r).at(-1)!.msg, 'test aborted: enough');
    // The aborting iteration is interrupted, so fewer than 6 iterations complete.
    assert.ok(r.summaryData!.metrics.iterations!.values.count! < 6);

    const inSetup = await lifecycle('setup-abort');
    assert.equal(inSetup.exitCode, 108);
    assert.ok(!teardownRan(inSetup));
    assert.equal(inSetup.stdout, 'custom summary\n');
    const inInit = await lifecycle('init-abort');
    assert.equal(inInit.exitCode, 108);
    assert.equal(inInit.summaryData, undefined);
  });

  test('handleSummary throwing: error logged, default summary printed, exit code unchanged', async () => {
    const r = await lifecycle('summary-throw');
    assert.equal(r.exitCode, 0);
    assert.match(r.stdout, /checks \.+: 100% 6 out of 6/);
    assert.match(errors(r)[0]!.msg, /^Error: boom in summary/);
    assert.deepEqual(r.files, []);
  });

  test('metric names are validated and types cannot change, as in k6 (107)', async () => {
    const bad = await lifecycle('bad-metric');
    assert.equal(bad.exitCode, 107);
    assert.match(errors(bad)[0]!.msg, /^GoError: Invalid metric name: 'a'\. Metric names must only include up to 128 ASCII letters/);
    const clash = await lifecycle('type-clash');
    assert.equal(clash.exitCode, 107);
    assert.match(errors(clash)[0]!.msg, /^GoError: metric 'http_reqs' already exists but with type counter, instead of trend/);
  });
});

describe('script environment', () => {
  test('only k6 globals; init-only and VU-only APIs fail with k6 errors; async default works', async () => {
    const r = await runK6(fixture('globals.js'), { env: { GREETING: 'hi' }, quiet: true, timeoutMs: 20_000 });
    assert.equal(r.exitCode, 0, r.stderr);
    const [g] = loggedJSON<Record<string, unknown> & { types: Record<string, string> }>(r.stderr);
    assert.ok(g);
    for (const name of ['process', 'Buffer', 'setTimeout', 'setInterval', 'TextEncoder', 'fetch', 'structuredClone', 'Intl', 'performance', 'URL', 'SharedArrayBuffer']) {
      assert.equal(g.types[name], 'undefined', name);
    }
    assert.deepEqual([g.types.require, g.types.open, g.types.console, g.types.__ENV, g.types.__VU], ['function', 'function', 'object', 'object', 'number']);
    assert.equal(g.iterType, 'undefined');
    const err = (k: string) => (g[k] as { error: string; isError: boolean }).error;
    assert.match(err('requireFs'), /^GoError: k6 double: require\("fs"\)/);
    assert.equal((g.requireFs as { isError: boolean }).isError, true, 'errors are Errors of the script realm');
    assert.equal(err('httpInInit'), 'GoError: Making http requests in the init context is not supported');
    assert.equal(err('vuInInit'), 'GoError: getting VU information in the init context is not supported');
    assert.equal(err('scenarioInInit'), 'GoError: getting scenario information outside of the VU context is not supported');
    assert.equal(err('instanceInInit'), 'GoError: getting instance information in the init context is not supported');
    assert.equal(err('checkInInit'), 'GoError: Using check() in the init context is not supported');
    assert.equal(err('addInInit'), 'GoError: Adding to metrics in the init context is not supported');
    assert.match(err('openMissing'), /^GoError: open .*nope\.txt: no such file or directory$/);
    assert.equal(g.openText, 'hello from file');
    assert.deepEqual(g.openBin, { length: 16, tag: '[object ArrayBuffer]' });
    assert.match(err('openInVU'), /^GoError: the "open" function is only available in the init stage/);
    assert.match(err('requireInVU'), /^GoError: the "require" function is only available in the init stage/);
    assert.equal(err('metricInVU'), 'GoError: metrics must be declared in the init context');
    assert.match(err('asyncCheck'), /^GoError: the built-in check\(\) does not support async functions/);
    assert.match(err('badTag'), /cannot add tags for the 'globals_counter' custom metric: invalid value for metric tag 't'/);
    assert.equal(err('failed'), 'GoError: custom failure');
    assert.match(err('setBadTag'), /^TypeError: invalid value for metric tag 'bad'/);
    assert.equal(g.badValue, false);
    assert.equal(g.zeroString, true);
    assert.equal(g.groupResult, '::outer::inner');
    assert.equal(g.tagAfterSet, 'x');
    assert.equal(g.env, 'hi');
    assert.equal(g.options, 'shared-iterations');
    assert.equal(g.afterAwait, true);
    assert.ok(logLines(r.stderr).some((l) => l.level === 'warning' && l.msg.startsWith("'abc' is an invalid value for metric 'globals_counter'")));
    // add("0") counts as 1 (k6's "zero but truthy" rule); add("abc") records nothing.
    assert.equal(r.summaryData!.metrics.globals_counter!.values.count, 1);
    assert.equal(r.summaryData!.root_group.groups[0]!.groups[0]!.path, '::outer::inner');
  });

  test('k6/x/sse is an unknown module unless the extension is enabled', async () => {
    const r = await runK6(fixture('sse.js'), { quiet: true, timeoutMs: 20_000 });
    assert.equal(r.exitCode, 107);
    assert.match(errors(r)[0]!.msg, /^GoError: unknown module: k6\/x\/sse\n\tat file:\/\//);
  });

  test('the default summary and the scenario description without handleSummary', async () => {
    const r = await runK6(fixture('executors.js'), { env: { CASE: 'perVU' }, timeoutMs: 20_000 });
    assert.match(r.stdout, /scenarios: \(100\.00%\) 1 scenario, 2 max VUs, 10m30s max duration \(incl\. graceful stop\):/);
    assert.match(r.stdout, /\* p: 3 iterations for each of 2 VUs \(maxDuration: 10m0s, gracefulStop: 30s\)/);
    assert.match(r.stdout, /iterations \.+: 6 /);
  });
});
