// A concurrency ramp against a simulator that runs at most two requests at once: from c=8 on, six
// or more wait in its queue. The ramp must see that in the server's queue gauge while the level
// runs, end the test there (k6 exit 108) with the reason in the report, and send nothing to the
// heavier levels; by the simulator's own record, nothing arrives later than SATURATED_WITHIN_MS
// after the saturated level began. With SATURATION_STOP=false every level runs.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { spawnSim } from './sim-process';
import { explain, RUNNERS } from './harness';
import { RUN_GAP_MS } from '../../lib/plan/matrix';

const OSL = 64;
const DURATION_S = 20;
const GRACE_S = 2;
/** The stated bound: the rule judges 10 s of scrapes a second apart; then the abort, and the requests in flight cut. */
const SATURATED_WITHIN_MS = 15_000;

interface Rec {
  cell: string;
  requests: number;
  notes: string[];
  saturation: { rule: string; after_ms: number | null; waiting: number | null } | null;
}

const env = (url: string, transport: string) => ({
  TARGET_URL: url,
  TRANSPORT: transport,
  CONCURRENCY: '1,8,16',
  ISL: '128',
  OSL: String(OSL),
  DURATION: `${DURATION_S}s`,
  SLICES: '2',
  GRACEFUL_STOP: `${GRACE_S}s`,
  REQUEST_TIMEOUT: '20s',
  WARMUP_REQUESTS: '0',
});

for (const runner of RUNNERS) {
  for (const transport of ['sse', 'http'] as const) {
    const skip = runner.skip ?? (transport === 'sse' ? runner.sseSkip : null) ?? undefined;
    describe(`saturation stop over ${transport} on ${runner.name}`, { skip }, () => {
      test('the ramp ends at the level that saturates the server, with the reason, and sends nothing heavier', async () => {
        const sim = await spawnSim({ engine: 'sglang', maxRunning: 2, seed: 5 });
        try {
          const run = await runner.run('concurrency-ramp', env(sim.url, transport), 120_000);
          assert.equal(run.result.exitCode, 108, `k6 exits 108 after the abort\n${explain(run)}`);
          assert.match(run.result.stderr, /the server is saturated [\d.]+ s into this level: at least \d+ of 8 VUs' requests waited/);
          const file = run.result.files.find((f) => f.endsWith('.summary.json'));
          assert.ok(file, `the reports are written after the abort\n${explain(run)}`);
          const recs = (JSON.parse(readFileSync(file, 'utf8')) as { records: Rec[] }).records;
          const at = (c: number) => recs.find((r) => r.cell.endsWith(`_c${c}`)) as Rec;
          assert.equal(at(1).saturation, null, 'one request at a time never waits');
          const s = at(8).saturation;
          assert.ok(s !== null && s.rule === 'full', JSON.stringify(at(8)));
          assert.ok(s.after_ms !== null && s.after_ms <= SATURATED_WITHIN_MS, `seen ${s.after_ms} ms into the level`);
          assert.ok(s.waiting !== null && s.waiting >= 4, `${s.waiting} waiting`);
          assert.ok(
            at(8).notes.some((n) => /^saturated [\d.]+ s into this level: at least half .* later levels were not run/.test(n)),
            at(8).notes.join(' | '),
          );
          assert.equal(at(16).requests, 0, 'the heavier level sent nothing');
          // By the server's record: the c=8 level starts one run after the first request; nothing arrives after the bound.
          const truth = (await sim.requests()).filter((r) => r.maxNewTokens === OSL).sort((a, b) => a.arrivalMs - b.arrivalMs);
          const c8Start = truth[0].arrivalMs + (DURATION_S + GRACE_S) * 1000 + RUN_GAP_MS;
          const last = truth[truth.length - 1].arrivalMs - c8Start;
          console.log(
            `# ${runner.name} ${transport}: saturation seen ${((s.after_ms ?? 0) / 1000).toFixed(1)} s into c=8 (${s.waiting} ` +
              `waiting); last request arrived ${(last / 1000).toFixed(1)} s into it`,
          );
          assert.ok(last <= SATURATED_WITHIN_MS, `last arrival ${last} ms after the saturated level began`);
          if (transport === 'sse') return;
          // And with the stop off, every level runs (a few seconds each: no rule judges them).
          const all = await runner.run(
            'concurrency-ramp',
            { ...env(sim.url, transport), SATURATION_STOP: 'false', CONCURRENCY: '1,8', DURATION: '4s' },
            120_000,
          );
          assert.equal(all.result.exitCode, 0, explain(all));
          const recs2 = (JSON.parse(readFileSync(all.result.files.find((f) => f.endsWith('.summary.json')) as string, 'utf8')) as { records: Rec[] }).records;
          assert.ok(recs2.every((r) => r.requests > 0 && r.saturation === null));
        } finally {
          await sim.stop();
        }
      });
    });
  }
}
