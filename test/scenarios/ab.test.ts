// The A/B scenario against two simulated servers, checked against the simulators' ground truth.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSim, type RemoteSim } from './sim-process';
import { explain, RUNNERS } from './harness';

const OSL = 128;
const DURATION_MS = 9000;
const SLICES = 6;

/** The simulator's true output throughput over the run's steady window. */
async function groundTruth(sim: RemoteSim): Promise<{ tokensPerSec: number; acceptLength: number | null }> {
  // The run's requests are the ones with OSL output tokens: preflight and warm-up ask for fewer.
  const runReqs = (await sim.requests()).filter((r) => r.completionTokens === OSL);
  assert.ok(runReqs.length > 5, `only ${runReqs.length} run requests reached the simulator`);
  const start = Math.min(...runReqs.map((r) => r.arrivalMs));
  const from = start + DURATION_MS / SLICES;
  const s = await sim.summary(from, start + DURATION_MS);
  return { tokensPerSec: s.outputTokensPerSec, acceptLength: s.acceptLength };
}

for (const runner of RUNNERS) {
  describe(`dflash-vs-mtp on ${runner.name}`, { skip: runner.skip ?? undefined }, () => {
    test('speedup and acceptance lengths agree with the simulators within 5%', async () => {
      const [dflash, mtp] = await Promise.all([
        spawnSim({ engine: 'sglang', spec: 'dflash', timeScale: 4, seed: 11 }),
        spawnSim({ engine: 'vllm', spec: 'mtp', timeScale: 4, seed: 12 }),
      ]);
      try {
        const run = await runner.run(
          'dflash-vs-mtp',
          {
            DFLASH_URL: dflash.url,
            MTP_URL: mtp.url,
            ISL: '256',
            OSL: String(OSL),
            CONCURRENCY: '2',
            DURATION: `${DURATION_MS}ms`,
            SLICES: String(SLICES),
            REQUEST_TIMEOUT: '5s',
            GRACEFUL_STOP: '3s',
            WARMUP_REQUESTS: '1',
          },
          120_000,
        );
        assert.equal(run.result.exitCode, 0, explain(run));
        assert.ok(run.summary, explain(run));
        const rec = (v: string) => run.summary!.records.find((r) => r.variant === v)!;
        const a = rec('dflash');
        const b = rec('mtp');
        assert.equal(a.requests_failed + b.requests_failed, 0);
        const measured = a.output_throughput_tokens_per_s! / b.output_throughput_tokens_per_s!;
        const truthA = await groundTruth(dflash);
        const truthB = await groundTruth(mtp);
        const truth = truthA.tokensPerSec / truthB.tokensPerSec;
        assert.ok(Math.abs(measured / truth - 1) < 0.05, `measured ratio ${measured.toFixed(3)} vs ground truth ${truth.toFixed(3)}`);
        // Each throughput on its own, too.
        assert.ok(
          Math.abs(a.output_throughput_tokens_per_s! / truthA.tokensPerSec - 1) < 0.05,
          `dflash ${a.output_throughput_tokens_per_s} vs ${truthA.tokensPerSec}`,
        );
        // The verdict's ratio is of mean slice throughputs, the statistic its interval resamples.
        const c = run.summary!.comparisons[0];
        assert.ok(Math.abs(c.throughput_ratio_a_over_b! / measured - 1) < 0.02, `${c.throughput_ratio_a_over_b} vs ${measured}`);
        assert.ok(
          c.throughput_ratio_ci && c.throughput_ratio_ci[0] <= c.throughput_ratio_a_over_b! && c.throughput_ratio_a_over_b! <= c.throughput_ratio_ci[1],
          'the interval holds its estimate',
        );
        assert.match(run.summary!.comparisons[0].verdict, /^DFlash faster by/);

        // Acceptance: SGLang from meta_info per request, vLLM from /metrics over the window.
        assert.equal(a.acceptance_length_source, 'meta_info', explain(run));
        assert.equal(b.acceptance_length_source, 'server-metrics', explain(run));
        assert.ok(Math.abs(a.acceptance_length_tokens_per_step! / 6 - 1) < 0.05, `dflash AL ${a.acceptance_length_tokens_per_step} vs configured 6`);
        assert.ok(Math.abs(b.acceptance_length_tokens_per_step! / 2.5 - 1) < 0.05, `mtp AL ${b.acceptance_length_tokens_per_step} vs configured 2.5`);
        assert.ok(truthB.acceptLength !== null && Math.abs(b.acceptance_length_tokens_per_step! / truthB.acceptLength - 1) < 0.05);
      } finally {
        await Promise.all([dflash.stop(), mtp.stop()]);
      }
    });
  });
}
