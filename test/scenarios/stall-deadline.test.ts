// A healthy but hung server (the simulator's --stall: /health 200, no generation ever yields a token)
// is localised after ONE preflight deadline: smoke.js sends its one-token check and the probe of the
// server's other API layer together (http.batch), so "the engine itself is stuck, not the OpenAI
// layer" is known when the check's deadline ends, not one deadline per route later.
//
// The elapsed time is the simulator's: from the first probe's arrival to the last probe's end (k6
// closing it at its timeout), so k6's start and the reports do not count and the bound is relative
// to the deadline. On k6 v1.3 and v2.2 (.ci/run names this file in its v2.2 phase): the concurrency
// is k6's http.batch. About 5 s a run: a 2 s PREFLIGHT_TIMEOUT, no load sent. The simulator runs at
// time-scale 1: the deadline is k6's wall clock, and a stalled engine needs no simulated time.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSim } from './sim-process';
import { explain, RUNNERS } from './harness';

const DEADLINE_MS = 2000;

for (const runner of RUNNERS) {
  describe(`a hung server on ${runner.name}`, { skip: runner.skip ?? undefined }, () => {
    test('the engine is named stuck after one PREFLIGHT_TIMEOUT, both layers probed at once; exit 108, reason stalled', async (t) => {
      const sim = await spawnSim({ engine: 'sglang', stall: true });
      try {
        const run = await runner.run('smoke', { TARGET_URL: sim.url, PREFLIGHT_TIMEOUT: `${DEADLINE_MS}ms`, REQUEST_TIMEOUT: '60s' }, 60_000);
        assert.equal(run.result.exitCode, 108, explain(run));
        assert.match(
          run.result.stderr + run.result.stdout,
          /GET \/health and GET \/v1\/models → 200 but no token within 2 s: the engine is stalled \(it accepts requests and generates nothing\)\. Both POST \/generate and POST \/v1\/chat\/completions produced no token in 2 s: the engine itself is stuck, not the OpenAI layer\./,
        );
        assert.equal(run.summary?.preflight_failures[0]?.reason, 'stalled', explain(run));

        const probes = await sim.requests();
        assert.deepEqual(probes.map((r) => r.route).sort(), ['/generate', '/v1/chat/completions'], 'one probe per layer, nothing after');
        const arrived = probes.map((r) => r.arrivalMs);
        const ended = probes.map((r) => r.finishMs ?? NaN);
        const span = Math.max(...ended) - Math.min(...arrived);
        const apart = Math.max(...arrived) - Math.min(...arrived);
        const detail = `probes arrived ${apart.toFixed(0)} ms apart, ${span.toFixed(0)} ms from the first arrival to the last end; k6 ran ${run.wallMs} ms`;
        t.diagnostic(detail);
        assert.ok(
          probes.every((r) => r.finishReason === 'disconnect' && (r.finishMs as number) - r.arrivalMs >= 0.9 * DEADLINE_MS),
          `each probe waited its deadline: ${detail}`,
        );
        assert.ok(apart < 0.5 * DEADLINE_MS, `sent together: ${detail}`);
        assert.ok(span < 1.5 * DEADLINE_MS, `one deadline, not two: ${detail}`);
      } finally {
        await sim.stop();
      }
    });
  });
}
