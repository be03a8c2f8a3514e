// Nothing lost when a run is killed, on real k6 (with xk6-sse for the sse transport) against the
// simulator: the raw record (k6 --out json, as npm start writes it) rebuilt by `npm run report`
// gives handleSummary's figures for a finished run, field by field; for a run killed with SIGKILL
// in its third of five cells, the first two cells as an uninterrupted run of the same seed gives
// them (within the run-to-run noise, durability-run.ts NOISE) and the third marked incomplete;
// Ctrl-C (SIGINT, k6's graceful stop) leaves a closed record read as stopped; Prometheus remote
// write going down mid-run (or never up) changes neither the exit code nor the reports, and k6's
// log lines say how many pushes were lost.
// test-runner: alone (a killed run is compared with an uninterrupted one within run-to-run noise)
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { lossSentence, remoteWriteLoss } from '../../lib/raw/k6-log';
import { reportFromRecord } from '../../scripts/report';
import { findBinaries, freePort, startPrometheus } from '../deploy/prometheus';
import { FIVE_CELLS, NOISE, recordedRun, relativeDiffs, SIM, type RecordedRun } from './durability-run';
import { RUNNERS } from './harness';
import { spawnSim } from './sim-process';

type Json = Record<string, unknown>;

/** Every field of handleSummary's summary.json against the rebuilt one: numbers to 1e-9 (summation order), except the noted ones. */
function fieldDiffs(handle: Json, rebuilt: Json, setupRecorded: boolean): string[] {
  const out: string[] = [];
  const skip = (p: string) =>
    p === '.generated_at' ||
    p === '.rebuilt_from' ||
    /^\.records\.\d+\.run_state$/.test(p) ||
    // k6's own test duration runs from its start to the summary; the record's from its first sample to its last.
    p === '.test_run_duration_ms' ||
    // Without setup's data in the record (see docs/durability.md), what preflight found is unknown.
    (!setupRecorded && (/^\.(targets|variants)\.\d+\.(engine|engineLabel|model|serverMetrics|notes)/.test(p) || p.startsWith('.warnings')));
  const walk = (x: unknown, y: unknown, p: string) => {
    if (skip(p)) return;
    if (typeof x === 'number' && typeof y === 'number') {
      if (Math.abs(x - y) > 1e-9 * Math.max(Math.abs(x), Math.abs(y), 1e-9)) out.push(`${p}: ${x} vs ${y}`);
      return;
    }
    if (x !== null && y !== null && typeof x === 'object' && typeof y === 'object') {
      for (const k of new Set([...Object.keys(x), ...Object.keys(y)])) walk((x as Json)[k], (y as Json)[k], `${p}.${k}`);
      return;
    }
    if (JSON.stringify(x) !== JSON.stringify(y)) out.push(`${p}: ${JSON.stringify(x)} vs ${JSON.stringify(y)}`);
  };
  // The SLO list follows the order of k6's summary data, a Go map's (it differs from run to run): compared as a set.
  const sorted = (j: Json) => ({ ...j, thresholds: [...((j.thresholds as Json[]) ?? [])].sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b))) });
  walk(sorted(handle), sorted(rebuilt), '');
  const d1 = handle.test_run_duration_ms as number;
  const d2 = rebuilt.test_run_duration_ms as number;
  if (Math.abs(d1 - d2) > Math.max(1000, 0.03 * d1)) out.push(`.test_run_duration_ms: ${d1} vs ${d2}`);
  return out;
}

const records = (s: Json) => s.records as Json[];
const tail = (r: RecordedRun) => `exit ${r.code} ${r.signal ?? ''}\n${r.stderr.slice(-2500)}`;

// TEST_SUBSET=v2 (.ci/run's k6 v2.2 phase): what can differ on v2 is k6's side (its JSON output, how
// it dies and stops, its remote-write output), not the transport or when Prometheus went away: the
// raw record over sse, Ctrl-C, and Prometheus down mid-run.
const V2 = process.env.TEST_SUBSET === 'v2';
for (const runner of RUNNERS) {
  const bin = runner.k6?.bin ?? '';
  for (const transport of V2 ? (['sse'] as const) : (['http', 'sse'] as const)) {
    const skip = runner.skip ?? (transport === 'sse' ? runner.sseSkip : null) ?? undefined;
    const bundle = transport === 'sse' ? 'dist/sse/concurrency-ramp.js' : 'dist/concurrency-ramp.js';
    describe(`a raw record on ${runner.name}, ${transport}`, { skip }, () => {
      test(
        "finished: the rebuilt reports have handleSummary's figures; killed with SIGKILL in cell 3 of 5: " + 'cells 1–2 as uninterrupted, cell 3 incomplete',
        async (t) => {
          const dir = mkdtempSync(join(tmpdir(), 'durability-'));
          let sim = await spawnSim({ ...SIM });
          let full: RecordedRun;
          try {
            full = await recordedRun(bin, bundle, 'concurrency-ramp', { ...FIVE_CELLS, TARGET_URL: sim.url, RUN_ID: 'full' }, { dir, timeoutMs: 120_000 });
          } finally {
            await sim.stop();
          }
          assert.equal(full.code, 0, tail(full));
          assert.ok(full.summary, 'handleSummary wrote summary.json');
          const rebuiltFull = await reportFromRecord(full.raw, { out: join(dir, 'rebuilt') });
          assert.equal(rebuiltFull.rebuilt.progress.ending, 'finished');
          assert.equal(rebuiltFull.settingsFrom, 'record', 'setup wrote the run record');
          const rebuiltFullJson = JSON.parse(readFileSync(rebuiltFull.files[0], 'utf8')) as Json;
          assert.deepEqual(fieldDiffs(full.summary, rebuiltFullJson, rebuiltFull.rebuilt.setupRecorded), []);

          // The same plan and seed on a fresh simulator, killed 2 s into run 3 (of 4 s).
          sim = await spawnSim({ ...SIM });
          let killed: RecordedRun;
          try {
            killed = await recordedRun(
              bin,
              bundle,
              'concurrency-ramp',
              { ...FIVE_CELLS, TARGET_URL: sim.url, RUN_ID: 'killed' },
              {
                dir,
                timeoutMs: 120_000,
                kill: { signal: 'SIGKILL', run: 3, afterMs: 2000 },
              },
            );
          } finally {
            await sim.stop();
          }
          assert.equal(killed.signal, 'SIGKILL', tail(killed));
          assert.equal(killed.summary, null, 'a killed k6 writes no summary');
          const r = await reportFromRecord(killed.raw, { out: join(dir, 'rebuilt') });
          assert.equal(r.rebuilt.progress.ending, 'killed');
          const json = JSON.parse(readFileSync(r.files[0], 'utf8')) as Json;
          assert.deepEqual(
            records(json).map((x) => x.run_state),
            ['complete', 'complete', 'incomplete', 'not run', 'not run'],
          );
          for (const cell of [0, 1]) {
            const d = relativeDiffs(records(full.summary)[cell], records(json)[cell]);
            t.diagnostic(
              `cell ${cell + 1}, killed vs uninterrupted: ${Object.entries(d)
                .map(([f, v]) => `${f} ${(v * 100).toFixed(1)} %`)
                .join(', ')}`,
            );
            for (const [f, v] of Object.entries(d))
              assert.ok(
                v <= NOISE[f as keyof typeof NOISE],
                `cell ${cell + 1} ${f}: ${(v * 100).toFixed(1)} % apart (noise allowed ${NOISE[f as keyof typeof NOISE] * 100} %)`,
              );
            assert.ok((records(json)[cell].requests_ok as number) > 0);
          }
          const third = records(json)[2];
          assert.match((third.notes as string[])[0], /^incomplete: the test stopped \d+\.\d s into this run's 4\.0 s of load/);
          assert.ok((third.requests_ok as number) > 0, 'the partial cell keeps what it measured');
          assert.match((json.warnings as string[])[0], /^partial run: the test stopped .* into run 3\/5 .*the record is cut off mid-write/);
          assert.match(r.text, /partial run/);
          assert.equal((json.rebuilt_from as Json).ending, 'killed');
          rmSync(dir, { recursive: true, force: true });
        },
      );
    });
  }

  describe(`Ctrl-C on ${runner.name}`, { skip: runner.skip ?? undefined }, () => {
    test('SIGINT: k6 stops gracefully, writes its summary and closes the record; the rebuild reads it as stopped in run 3', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'durability-int-'));
      const sim = await spawnSim({ ...SIM });
      let run: RecordedRun;
      try {
        run = await recordedRun(
          bin,
          'dist/concurrency-ramp.js',
          'concurrency-ramp',
          { ...FIVE_CELLS, TARGET_URL: sim.url, RUN_ID: 'int' },
          {
            dir,
            timeoutMs: 120_000,
            kill: { signal: 'SIGINT', run: 3, afterMs: 2000 },
          },
        );
      } finally {
        await sim.stop();
      }
      // k6's exit code for a run stopped by a signal (errext ExternalAbort).
      assert.equal(run.code, 105, tail(run));
      assert.ok(run.summary, 'handleSummary still wrote summary.json');
      const r = await reportFromRecord(run.raw, { out: join(dir, 'rebuilt') });
      assert.equal(r.rebuilt.progress.ending, 'stopped');
      assert.deepEqual(
        r.rebuilt.progress.runs.map((x) => x.state),
        ['complete', 'complete', 'incomplete', 'not run', 'not run'],
      );
      assert.match(r.rebuilt.report.warnings[0], /partial run: .*k6 stopped the test early and closed the record/);
      // handleSummary's own report says so too: setup stamped the runs' start (writeRunRecord).
      assert.ok(r.rebuilt.setupRecorded, 'the record holds the run record');
      assert.match((run.summary.warnings as string[])[0] ?? '', /^partial run: the test stopped .* into run 3\/5 .*k6 stopped the test early/);
      const handled = run.summary.records as Json[];
      assert.match((handled[2].notes as string[])[0], /^incomplete/);
      assert.match((handled[3].notes as string[])[0], /^not run/);
      rmSync(dir, { recursive: true, force: true });
    });
  });

  const prom = findBinaries();
  describe(`Prometheus remote write failing on ${runner.name}`, { skip: runner.skip ?? (typeof prom === 'string' ? prom : undefined) }, () => {
    const env = { ...FIVE_CELLS, CONCURRENCY: '1,2,3', DURATION: '6s', SLICES: '3' };
    for (const when of V2 ? (['mid-run'] as const) : (['mid-run', 'at start'] as const)) {
      test(`down ${when}: exit code as a clean run's, reports complete, the failed pushes counted from k6's log`, async (t) => {
        if (typeof prom === 'string') return;
        const dir = mkdtempSync(join(tmpdir(), 'durability-prom-'));
        const p = when === 'mid-run' ? await startPrometheus(prom, dir, ['--web.enable-remote-write-receiver']) : null;
        const url = p ? `${p.base}/api/v1/write` : `http://127.0.0.1:${await freePort()}/api/v1/write`;
        const sim = await spawnSim({ ...SIM });
        let run: RecordedRun;
        try {
          const pushed = p ? waitForSeries(p.base) : Promise.resolve(true);
          // Down about when the second of three runs starts (each 6 s, a 1 s graceful stop and a 1 s gap).
          const down = p ? pushed.then(() => new Promise((r) => setTimeout(r, 8000))).then(() => p.stop()) : Promise.resolve();
          run = await recordedRun(
            bin,
            'dist/concurrency-ramp.js',
            'concurrency-ramp',
            { ...env, TARGET_URL: sim.url, RUN_ID: 'prom', K6_PROMETHEUS_RW_SERVER_URL: url, K6_PROMETHEUS_RW_PUSH_INTERVAL: '1s' },
            { dir, timeoutMs: 120_000, extraArgs: ['-o', 'experimental-prometheus-rw'] },
          );
          assert.ok(await pushed, 'Prometheus received series before it went down');
          await down;
        } finally {
          await sim.stop();
          await p?.stop();
        }
        assert.equal(run.code, 0, tail(run));
        assert.ok(run.summary);
        for (const rec of records(run.summary)) assert.ok((rec.requests_ok as number) > 0, `${rec.cell as string} measured`);
        const loss = remoteWriteLoss(run.stderr);
        assert.ok(loss.failed >= 3, `${loss.failed} failed pushes logged`);
        assert.match(loss.lastError ?? '', /connection refused/);
        const pushes = Math.ceil((run.summary.test_run_duration_ms as number) / 1000);
        if (when === 'mid-run') assert.ok(loss.failed < pushes - 5, `${loss.failed} of ~${pushes} pushes failed: the first ones arrived`);
        const sentence = lossSentence(loss, 1000, run.summary.test_run_duration_ms as number);
        assert.match(sentence ?? '', /^Prometheus remote write: \d+ of ~\d+ pushes failed/);
        t.diagnostic(sentence ?? '');
        // The raw record has every sample: its rebuild is handleSummary's report.
        const r = await reportFromRecord(run.raw, { out: join(dir, 'rebuilt') });
        assert.equal(r.rebuilt.progress.ending, 'finished');
        rmSync(dir, { recursive: true, force: true });
      });
    }
  });
}

/** Resolves true once k6's series are queryable in Prometheus (the remote write worked), false after 30 s. */
async function waitForSeries(base: string): Promise<boolean> {
  const until = Date.now() + 30_000;
  while (Date.now() < until) {
    try {
      const res = await fetch(`${base}/api/v1/query?query=${encodeURIComponent('count({__name__=~"k6_llm_.*"})')}`);
      const body = (await res.json()) as { data?: { result?: Array<{ value: [number, string] }> } };
      if (Number(body.data?.result?.[0]?.value[1] ?? 0) > 0) return true;
    } catch {
      // not up yet
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  return false;
}
