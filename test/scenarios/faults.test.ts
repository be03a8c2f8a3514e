// Every simulator fault × both transports × the dialects where it applies: the exit code, the
// error classes and counts, a run that stays bounded, and reports that carry the diagnosis, on
// real k6 (with xk6-sse for the sse transport).
// test-runner: alone (each case must end within a stated bound, three cases at a time already)
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { spawnSim, type RemoteSim } from './sim-process';
import { explain, RUNNERS, type Run, type SummaryJson } from './harness';
import { DIALECTS, FAULT_CASES, MATRIX_ENV, TRANSPORTS, type FaultCase } from '../../scripts/fault-matrix';
import { simulatedEngine } from '../../scripts/simulated-dialects';

const OSL = Number(MATRIX_ENV.OSL);

/** Resolves once the simulator has seen the first measured request (preflight never asks for OSL tokens). */
async function loadStarted(sim: RemoteSim, limitMs: number): Promise<void> {
  const until = Date.now() + limitMs;
  while (Date.now() < until) {
    if ((await sim.requests()).some((r) => r.maxNewTokens === OSL)) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('the load never reached the simulator');
}

/** Classes a non-2xx status gives: over sse their bodies are fetched once per VU. */
const STATUS_CLASSES = new Set(['bad_request', 'context_length', 'rate_limited', 'server_error', 'overloaded', 'auth', 'unknown_model', 'wrong_dialect']);

interface Extended extends SummaryJson {
  test_run_duration_ms: number | null;
  records: Array<SummaryJson['records'][number] & { unreachable_attempts: number; variant_down_vus: number; target_down_vus: number }>;
  preflight_failures: Array<{ variant: string; reason: string; message: string | null }>;
}

async function runCase(runner: (typeof RUNNERS)[number], c: FaultCase, transport: string, dialect: string): Promise<void> {
  const server = c.server ?? simulatedEngine(dialect);
  const sim = await spawnSim({ engine: server, timeScale: 4, seed: 11 });
  if (c.when === 'start') await sim.setFaults(c.faults);
  let switched: Promise<void> = Promise.resolve();
  let seenBeforeCrash = -1;
  try {
    if (c.when === 'load') {
      switched = loadStarted(sim, 30_000).then(async () => {
        if (c.crash) {
          seenBeforeCrash = (await sim.requests()).filter((r) => r.maxNewTokens === OSL).length;
          await sim.crash();
        } else await sim.setFaults(c.faults);
      });
      switched.catch(() => {});
    }
    const env: Record<string, string> = { ...MATRIX_ENV, ...c.env, TARGET_URL: sim.url, DIALECT: dialect, TRANSPORT: transport };
    if (c.streamOnly && transport === 'http') env.STREAM = 'true';
    const run: Run = await runner.run('context-matrix', env, 90_000);
    const why = explain(run);
    assert.equal(run.result.exitCode, c.exit, why);

    // All three reports exist and say what happened.
    assert.equal(run.result.files.length, 3, why);
    for (const f of run.result.files) assert.ok(existsSync(f), `${f} was claimed but not written`);
    const s = run.summary as Extended;
    assert.ok(s, why);
    const md = readFileSync(
      run.result.files.find((f) => f.endsWith('.report.md'))!,
      'utf8',
    );
    const html = readFileSync(
      run.result.files.find((f) => f.endsWith('.report.html'))!,
      'utf8',
    );

    if (c.exit === 108) {
      assert.equal(s.preflight_failures[0]?.reason, c.preflight, why);
      const message = s.preflight_failures[0].message;
      assert.ok(message && message.length > 40, `the whole diagnosis is in summary.json: ${message}`);
      assert.ok(md.includes(message), 'report.md carries the diagnosis');
      assert.ok(html.includes(message.slice(0, 30).replace(/&/g, '&amp;').replace(/</g, '&lt;')), 'report.html carries the diagnosis');
      assert.equal((await sim.requests()).filter((r) => r.maxNewTokens === OSL).length, 0, 'no load was sent');
      return;
    }
    await switched;
    const rec = s.records[0];
    const classes = Object.keys(s.errors_by_class);
    if (c.exit === 0) {
      assert.deepEqual(s.errors_by_class, {}, 'no failure where the fault does not apply');
      assert.ok(rec.requests_ok > 0);
      return;
    }
    assert.ok(classes.length > 0, `failures reported: ${JSON.stringify(s.errors_by_class)}`);
    for (const cls of classes) assert.ok(c.classes.includes(cls as never), `unexpected class ${cls} (${JSON.stringify(s.errors_by_class)})`);
    for (const cls of classes) assert.ok(md.includes(cls), `report.md names ${cls}`);
    // Every failure is in the numbers: the classes add up to the failed requests and refused attempts.
    const counted = Object.values(s.errors_by_class).reduce((a, b) => a + b, 0);
    assert.equal(
      counted,
      rec.requests_failed + rec.unreachable_attempts,
      `classes ${counted} vs failed ${rec.requests_failed} + unreachable ${rec.unreachable_attempts}`,
    );

    const seen = (await (c.crash ? Promise.resolve([]) : sim.requests())).filter((r) => r.maxNewTokens === OSL).length;
    if (!c.crash) {
      // What the server saw is what the client counted: no request vanished in a hung VU. Over sse a
      // non-2xx has no body, so each VU sends the first request of each status once more over http
      // to read it (lib/k6/transport.ts): the server sees up to one more per VU, never fewer.
      const diagnoses = transport === 'sse' && classes.some((k) => STATUS_CLASSES.has(k)) ? Number(MATRIX_ENV.CONCURRENCY) : 0;
      // And the message says how the class was learned: from the body fetched over http, or (the
      // request sent again succeeded, as a random fault allows) from the status alone.
      if (diagnoses > 0)
        assert.match(run.result.stderr, /Body fetched by sending the request once more over http|Classified by status alone: xk6-sse exposes no body/, why);
      assert.ok(
        seen >= rec.requests && seen <= rec.requests + diagnoses,
        `client counted ${rec.requests} requests, the server saw ${seen} (${diagnoses} body fetches allowed)`,
      );
    } else {
      assert.ok(rec.requests >= seenBeforeCrash, `client counted ${rec.requests}, the server had seen ${seenBeforeCrash} before dying`);
      assert.ok(rec.variant_down_vus > 0, 'the dead variant was declared down');
      // The old key, written one release more.
      assert.equal(rec.target_down_vus, rec.variant_down_vus);
      // Back-off: 50 ms doubling to 1 s, then down after VARIANT_DOWN_AFTER=1s: a handful per VU.
      assert.ok(rec.unreachable_attempts <= 2 * 12, `${rec.unreachable_attempts} refused attempts`);
      assert.match(md, /declared down/);
    }
    // Bounded: the load (DURATION) plus one REQUEST_TIMEOUT for the last requests, plus setup;
    // a VU held past its deadline would hold the run until GRACEFUL_STOP (15 s) instead.
    const bound = 3000 + 2000 + 5000;
    assert.ok(s.test_run_duration_ms !== null && s.test_run_duration_ms < bound, `the run took ${s.test_run_duration_ms} ms (bound ${bound})`);
  } finally {
    await switched.catch(() => {});
    await sim.stop();
  }
}

// TEST_SUBSET=v2 (.ci/run's k6 v2.2 phase): the sse half, and over http only the cases marked
// bothTransportsOnV2. The exit codes and the classes come from the same JavaScript on both
// transports; over sse the errors come from the extension, which is built anew for k6 v2.
const V2 = process.env.TEST_SUBSET === 'v2';
for (const runner of RUNNERS) {
  for (const transport of TRANSPORTS) {
    const cases = FAULT_CASES.filter((c) => !V2 || transport === 'sse' || c.bothTransportsOnV2);
    if (cases.length === 0) continue;
    const skip = runner.skip ?? (transport === 'sse' ? runner.sseSkip : null) ?? undefined;
    describe(`fault matrix, ${transport} transport, on ${runner.name}`, { skip, concurrency: 3 }, () => {
      for (const c of cases) {
        for (const dialect of c.dialects ?? DIALECTS) {
          test(`${c.id} · ${dialect}`, () => runCase(runner, c, transport, dialect));
        }
      }
    });
  }
}
