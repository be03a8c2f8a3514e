// ARRIVALS=gamma:0.5 on real k6 against the simulator: the drawn schedule (lib/workload/arrivals.ts,
// redrawn here from the same seed) is what the server saw: each request arrives at its instant (the
// replay clock k6 logs plus its offset), so the server's gaps are the schedule's bursty ones; and
// the report carries the replay's schedule lag and its faithful verdict, as a trace replay's.
// 4 requests/s for 5 s of tiny requests (ISL 32, OSL 5): about 20 arrivals, 6 s of k6 per binary.
// test-runner: alone (its bounds are arrival lags of a few milliseconds)
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { arrivalTrace } from '../../lib/workload/arrivals';
import { spawnSim } from './sim-process';
import { explain, RUNNERS } from './harness';

const RATE = 4;
const DURATION_MS = 5000;
const ISL = 32;
const OSL = 5;
const SEED = 11;
const MAX_LAG_MS = 50;

interface ArrivalsRecord {
  requests_ok: number;
  requests_failed: number;
  notes: string[];
  trace: { arrivals: string | null; requests: number; schedule_lag_ms: { p50: number; p99: number; count: number } | null; faithful: boolean | null } | null;
}

const quantile = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))];

for (const runner of RUNNERS) {
  describe(`ARRIVALS=gamma:0.5 on ${runner.name}`, { skip: runner.skip ?? undefined }, () => {
    test('the server sees the drawn bursty schedule; the report gives its schedule lag and verdict', async () => {
      const schedule = arrivalTrace(
        { process: { kind: 'gamma', shape: 0.5, name: 'gamma:0.5' }, rate: RATE, durationMs: DURATION_MS, input: ISL, output: OSL },
        SEED,
      ).entries.map((e) => e.atMs);
      const gaps = schedule.slice(1).map((t, i) => t - schedule[i]);
      const mean = gaps.reduce((a, b) => a + b, 0) / gaps.length;
      const cv2 = gaps.reduce((a, b) => a + (b - mean) ** 2, 0) / gaps.length / (mean * mean);
      assert.ok(cv2 > 1, `the drawn schedule is bursty (CV² ${cv2.toFixed(2)})`);
      const sim = await spawnSim({ seed: 3 });
      try {
        const run = await runner.run(
          'arrival-rate',
          {
            TARGET_URL: sim.url,
            ARRIVALS: 'gamma:0.5',
            RATE: String(RATE),
            DURATION: `${DURATION_MS / 1000}s`,
            ISL: String(ISL),
            OSL: String(OSL),
            SEED: String(SEED),
            WARMUP_REQUESTS: '0',
            TRACE_MAX_LAG: `${MAX_LAG_MS}ms`,
          },
          60_000,
        );
        assert.equal(run.result.exitCode, 0, explain(run));
        const rec = run.summary!.records[0] as unknown as ArrivalsRecord;
        assert.equal(rec.requests_ok, schedule.length, `every request of the schedule succeeded: ${explain(run)}`);
        assert.ok(rec.trace !== null && rec.trace.arrivals === `gamma:0.5 ${RATE}/s` && rec.trace.requests === schedule.length, JSON.stringify(rec.trace));
        const lag = rec.trace.schedule_lag_ms;
        assert.ok(lag !== null && lag.count === schedule.length, 'a schedule lag per request');
        assert.equal(rec.trace.faithful, lag.p99 <= MAX_LAG_MS, 'the verdict is the p99 lag against TRACE_MAX_LAG');
        assert.ok(
          rec.notes.some((n) => /drawn gamma:0\.5 4\/s arrival schedule: .* schedule lag/.test(n)),
          rec.notes.join(' | '),
        );
        const start = Number(/▶ run \d+\/\d+: \S+ \S+ \(replay clock starts at (\d+(?:\.\d+)?) ms/.exec(run.result.stderr + run.result.stdout)?.[1]);
        assert.ok(Number.isFinite(start), `k6 logged the replay clock: ${run.result.stderr.slice(0, 2000)}`);
        const arrivals = (await sim.requests())
          .filter((r) => r.maxNewTokens === OSL && r.status === 200)
          .map((r) => ({ at: r.arrivalMs, intake: r.intakeLagMs }))
          .sort((a, b) => a.at - b.at);
        assert.equal(arrivals.length, schedule.length, 'the server saw each request of the schedule once');
        // All requests are alike, so the k-th due is the k-th to arrive. The simulator may read a
        // request late by its intake lag; the client's share is the earliest moment it could have come.
        const late = arrivals.map((a, i) => a.at - (start + schedule[i]));
        const charged = arrivals.map((a, i) => Math.max(0, a.at - a.intake - (start + schedule[i])));
        console.log(
          `# ${schedule.length} arrivals, schedule CV² ${cv2.toFixed(2)}; arrival − due by the server p50 ${quantile(charged, 0.5).toFixed(1)} ` +
            `ms, max ${Math.max(...charged).toFixed(1)} ms; client lag p50 ${lag.p50.toFixed(1)} ms, p99 ${lag.p99.toFixed(1)} ` +
            `ms, faithful ${rec.trace.faithful}`,
        );
        assert.ok(Math.min(...late) > -2, `no request arrives before its instant (${Math.min(...late)} ms)`);
        assert.ok(
          quantile(charged, 0.5) <= MAX_LAG_MS / 5,
          `half the requests arrive within ${MAX_LAG_MS / 5} ms of their instant (${quantile(charged, 0.5)} ms)`,
        );
        // The server's gaps are the schedule's: a constant-rate or redrawn schedule would be off by a gap's length (250 ms on average).
        const serverGaps = arrivals.slice(1).map((a, i) => a.at - arrivals[i].at);
        const off = serverGaps.map((g, i) => Math.abs(g - gaps[i]));
        assert.ok(quantile(off, 0.5) <= MAX_LAG_MS / 5, `the server's gaps match the schedule's: median difference ${quantile(off, 0.5)} ms`);
      } finally {
        await sim.stop();
      }
    });
  });
}
