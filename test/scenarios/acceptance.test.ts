// Acceptance by draft position on real k6, on both transports: a simulated vLLM with
// --per-request-spec-decode-metrics puts each request's steps by accepted drafts in its reply; the
// report's counts must equal the simulator's record of the same requests exactly, and the
// acceptance length must be the truth's within 1 %. About 6 s of k6 per transport (time scale 8,
// 3 s of load): the subject is counting, not timing.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSim } from './sim-process';
import { explain, RUNNERS } from './harness';
import { SPEC_ACCEPTED_BINS } from '../../lib/metrics/samples';

const OSL = 96;

interface AcceptanceJson {
  variant: string;
  verify_steps: number;
  steps_by_accepted_drafts: number[];
  accepted_share_by_position: number[];
  acceptance_length: number | null;
  acceptance_length_ci95: [number, number] | null;
  acceptance_length_source: string | null;
}

for (const runner of RUNNERS) {
  for (const transport of ['http', 'sse'] as const) {
    const skip = runner.skip ?? (transport === 'sse' ? runner.sseSkip : null) ?? undefined;
    describe(`acceptance by draft position over ${transport} on ${runner.name}`, { skip }, () => {
      test("steps by accepted drafts equal the simulator's record; the acceptance length is the truth's within 1 %", async () => {
        const sim = await spawnSim({
          engine: 'vllm',
          spec: 'dflash',
          timeScale: 8,
          seed: transport === 'http' ? 41 : 42,
          perRequestSpecDecodeMetrics: 'summary',
        });
        try {
          const run = await runner.run(
            'context-matrix',
            {
              TARGET_URL: sim.url,
              TRANSPORT: transport,
              ISL: '64',
              OSL: String(OSL),
              CONCURRENCY: '2',
              DURATION: '3s',
              SLICES: '3',
              REQUEST_TIMEOUT: '5s',
              GRACEFUL_STOP: '3s',
              WARMUP_REQUESTS: '0',
            },
            60_000,
          );
          assert.equal(run.result.exitCode, 0, explain(run));
          const rec = run.summary!.records[0] as unknown as { requests_ok: number; acceptance_length_source: string | null };
          const rows = (run.summary as unknown as { acceptance_by_position: AcceptanceJson[] | null }).acceptance_by_position;
          assert.ok(rows && rows.length === 1, explain(run));
          const row = rows[0];
          // The run's requests: OSL tokens asked (the preflight asks for fewer), finished whole.
          const reqs = (await sim.requests()).filter((r) => r.maxNewTokens === OSL && r.finishReason === 'length');
          assert.equal(reqs.length, rec.requests_ok, 'the client counted the requests the server finished');
          const truth = new Array<number>(SPEC_ACCEPTED_BINS).fill(0);
          let steps = 0;
          let tokens = 0;
          for (const r of reqs) {
            r.acceptedHistogram!.forEach((n, j) => (truth[Math.min(j, SPEC_ACCEPTED_BINS - 1)] += n));
            steps += r.verifySteps;
            tokens += r.verifyTokens;
          }
          assert.deepEqual(row.steps_by_accepted_drafts, truth, 'steps by accepted drafts');
          assert.equal(row.verify_steps, steps);
          assert.equal(rec.acceptance_length_source, 'vllm-metrics');
          assert.equal(row.acceptance_length_source, 'vllm-metrics');
          const al = tokens / steps;
          assert.ok(Math.abs((row.acceptance_length as number) / al - 1) < 0.01, `acceptance length ${row.acceptance_length} vs the truth's ${al}`);
          assert.ok(
            row.acceptance_length_ci95 && row.acceptance_length_ci95[0] < al && al < row.acceptance_length_ci95[1],
            `interval ${row.acceptance_length_ci95}`,
          );
          // Position i: the steps that accepted i drafts or more.
          const first = truth.slice(1).reduce((a, b) => a + b, 0) / steps;
          assert.ok(Math.abs((row.accepted_share_by_position[0] as number) - first) < 1e-9, 'position 1');
        } finally {
          await sim.stop();
        }
      });
    });
  }
}
