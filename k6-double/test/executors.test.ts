// Executors run by the double on real worker-thread VUs (fixtures/executors.js, one case per run).
// The cases mostly wait on timers, so they run concurrently.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { runK6, type K6RunResult } from '../index';
import { fixture, loggedJSON, logLines } from './helpers';
import { startServer, type TestServer } from './server';

interface IterationRecord {
  vu: number;
  iter: number;
  vuIterInScenario: number;
  scenario: string;
  executor: string;
  scenarioIter: number;
  startTime: number;
  at: number;
  who?: string;
  tags: Record<string, string>;
  started?: number;
}

let server: TestServer;
before(async () => (server = await startServer()));
after(() => server.close());

async function runCase(name: string): Promise<{ r: K6RunResult; records: IterationRecord[]; count: (m: string) => number | undefined }> {
  const r = await runK6(fixture('executors.js'), { env: { CASE: name, BASE: server.url }, quiet: true, timeoutMs: 20_000 });
  const metrics = r.summaryData?.metrics ?? {};
  return { r, records: loggedJSON<IterationRecord>(r.stderr), count: (m) => metrics[m]?.values.count };
}

const distinct = <T>(xs: T[]) => new Set(xs).size;

describe('executors', { concurrency: 3 }, () => {
  test('shared-iterations: the iterations are shared by the VUs', async () => {
    const { r, records, count } = await runCase('shared');
    assert.equal(r.exitCode, 0);
    assert.equal(count('iterations'), 9);
    assert.equal(records.length, 9);
    assert.deepEqual(new Set(records.map((x) => x.vu)), new Set([1, 2, 3]));
    assert.deepEqual(records.map((x) => x.scenarioIter).sort((a, b) => a - b), [0, 1, 2, 3, 4, 5, 6, 7, 8]);
    assert.ok(records.every((x) => x.executor === 'shared-iterations' && x.tags.scenario === 's' && x.tags.group === ''));
  });

  test('per-vu-iterations: each VU runs its own iterations', async () => {
    const { records, count } = await runCase('perVU');
    assert.equal(count('iterations'), 6);
    for (const vu of [1, 2]) {
      assert.deepEqual(records.filter((x) => x.vu === vu).map((x) => x.vuIterInScenario), [0, 1, 2]);
    }
  });

  test('constant-vus: the VUs loop for the duration', async () => {
    const { records, count } = await runCase('constant');
    const n = count('iterations')!;
    // 2 VUs x 1 s / ~50 ms per iteration.
    assert.ok(n >= 8 && n <= 44, `iterations: ${n}`);
    assert.equal(distinct(records.map((x) => x.vu)), 2);
    // No iteration starts after the duration (logging it may take a moment under load).
    assert.ok(records.every((x) => x.at - x.startTime < 1100));
  });

  test('startTime chains scenarios, which reuse the same VU, each with its env and tags', async () => {
    const { r, records } = await runCase('chained');
    assert.equal(r.exitCode, 0, r.stderr);
    const first = records.filter((x) => x.scenario === 'first');
    const [second] = records.filter((x) => x.scenario === 'second');
    assert.equal(first.length, 2);
    assert.ok(second);
    assert.ok(second.startTime - first[0]!.startTime >= 1000);
    // Planned VUs: `first` ends at 1s, `second` starts then, so one VU serves both and its
    // iteration counter carries on while the per-scenario one starts again.
    assert.ok([...first, second].every((x) => x.vu === 1));
    assert.deepEqual([second.iter, second.vuIterInScenario], [2, 0], JSON.stringify([first, second]));
    assert.deepEqual([first[0]!.who, second.who], ['first', 'second']);
    assert.deepEqual(first[0]!.tags, { run: 'r1', phase: 'one', group: '', scenario: 'first' });
    assert.deepEqual(second.tags, { run: 'r1', group: '', scenario: 'second' });
    const thresholds = r.summaryData!.metrics['iterations{phase:one}']!.thresholds;
    assert.deepEqual(thresholds, { 'count==2': { ok: true } });
  });

  test('gracefulStop: an iteration still running is interrupted and not counted', async () => {
    const { r, records, count } = await runCase('graceful');
    assert.equal(records.length, 1);
    assert.equal(count('after_sleep'), undefined, 'the code after sleep(3) never ran');
    assert.equal(count('iterations'), undefined);
    assert.ok(logLines(r.stderr).some((l) => l.msg.startsWith('No script iterations fully finished')));
    assert.ok(r.summaryData!.state.testRunDurationMs < 2900);
  });

  test('gracefulStop: a request cut short emits no HTTP samples', async () => {
    const { count } = await runCase('gracefulHttp');
    assert.equal(count('http_reqs'), undefined);
    assert.equal(count('after_sleep'), undefined);
  });

  test('constant-arrival-rate: iterations without a free VU are dropped', async () => {
    const { r, count } = await runCase('arrival');
    const done = count('iterations')!;
    const dropped = count('dropped_iterations')!;
    // 10 starts at 0, 100, ... 900 ms; one VU busy 350 ms per iteration runs about 3 of them.
    assert.equal(done + dropped, 10);
    assert.ok(dropped >= 5, `dropped ${dropped}`);
    assert.ok(logLines(r.stderr).some((l) => l.msg === 'Insufficient VUs, reached 1 active VUs and cannot initialize more' && l.fields.scenario === 'a'));
  });

  test('constant-arrival-rate: unplanned VUs up to maxVUs take the load', async () => {
    const { records, count } = await runCase('arrivalGrow');
    assert.ok(distinct(records.map((x) => x.vu)) >= 2);
    assert.equal(count('iterations')! + (count('dropped_iterations') ?? 0), 10);
  });

  test('ramping-vus: VUs follow the stages', async () => {
    const { records } = await runCase('ramping');
    // Slots open at 200, 400 and 600 ms and close at 800, 1000, 1200 ms (no gracefulRampDown).
    assert.equal(distinct(records.map((x) => x.vu)), 3);
    const offsets = records.map((x) => x.at - x.startTime);
    assert.ok(Math.min(...offsets) >= 190 && Math.max(...offsets) <= 1250, offsets.join());
    // The third VU only gets the 600-800 ms slot: 2 iterations of ~100 ms at most.
    const byVU = (vu: number) => records.filter((x) => x.vu === vu).length;
    assert.ok(byVU(3) <= 3 && byVU(1) > byVU(3), `${byVU(1)} ${byVU(3)}`);
  });

  test('ramping-arrival-rate: iterations start as the rate ramps up', async () => {
    const { records, count } = await runCase('rampingArrival');
    // Due at sqrt(i/10) s for i = 1..10; the 10th falls exactly at the end and never starts
    // (on a loaded machine one of the last, 50 ms apart, may find both VUs busy and be dropped).
    assert.ok(records.length >= 7 && records.length <= 9, `${records.length}`);
    assert.equal(records.length + (count('dropped_iterations') ?? 0), 9);
    const offsets = records.map((x) => x.at - x.startTime).sort((a, b) => a - b);
    // The first iteration is due at sqrt(1/10) s ~ 316 ms, not at 0.
    assert.ok(offsets[0]! >= 250, `${offsets[0]}`);
  });
});
