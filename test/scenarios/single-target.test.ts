// The single-server benchmarks on a simulated server whose capacity is known, so the knee and the
// fall-behind point are where the simulator's configuration puts them.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { spawnSim } from './sim-process';
import { explain, RUNNERS } from './harness';

// TEST_SUBSET=stock (.ci/run's stock k6 v2.2 phase): the arrival-rate case alone. An http bundle runs
// the same JavaScript on stock k6 v2.2 as on v2.2 + xk6-sse, where ab.test runs one (closed loop);
// what a user of stock v2.2 meets beyond that is its open-loop executor.
const STOCK = process.env.TEST_SUBSET === 'stock';
const onStock = STOCK ? { skip: 'TEST_SUBSET=stock: the closed-loop http bundles run on k6 v2.2 in ab.test' } : {};

interface Extra {
  knee: { concurrency: number | null; text: string } | null;
  fall_behind: { rate: number | null; text: string } | null;
}

function extra(run: { result: { files: string[] } }): Extra {
  const file = run.result.files.find((f) => f.endsWith('.summary.json'));
  return JSON.parse(readFileSync(file as string, 'utf8')) as Extra;
}

for (const runner of RUNNERS) {
  describe(`single-server benchmarks on ${runner.name}`, { skip: runner.skip ?? undefined }, () => {
    test('concurrency-ramp finds the knee where the server runs out of batch slots', onStock, async () => {
      // At most 4 sequences decode at once: beyond c=4 requests queue and throughput stops growing.
      const sim = await spawnSim({ engine: 'vllm', timeScale: 8, maxRunning: 4, seed: 3 });
      try {
        const run = await runner.run(
          'concurrency-ramp',
          {
            TARGET_URL: sim.url,
            ISL: '128',
            OSL: '64',
            CONCURRENCY: '1,2,4,8',
            DURATION: '5s',
            SLICES: '2',
            REQUEST_TIMEOUT: '5s',
            GRACEFUL_STOP: '2s',
            WARMUP_REQUESTS: '1',
          },
          120_000,
        );
        assert.equal(run.result.exitCode, 0, explain(run));
        const tps = run.summary!.records.map((r) => r.output_throughput_tokens_per_s as number);
        assert.ok(tps[1] > tps[0] * 1.5 && tps[2] > tps[1] * 1.5, `throughput grows up to c=4: ${tps.map((x) => x.toFixed(0))}`);
        assert.equal(extra(run).knee?.concurrency, 4, extra(run).knee?.text);
        assert.match(run.result.stdout, /Concurrency: knee at c=4/);
      } finally {
        await sim.stop();
      }
    });

    test('arrival-rate reports the offered rate the server cannot keep up with', async () => {
      // One sequence at a time, 32 tokens at ~27 ms per step / 8: about 9 requests per second at most.
      const sim = await spawnSim({ engine: 'sglang', timeScale: 8, maxRunning: 1, seed: 4 });
      try {
        const run = await runner.run(
          'arrival-rate',
          {
            TARGET_URL: sim.url,
            ISL: '64',
            OSL: '32',
            RATE: '2,30',
            MAX_VUS: '20',
            DURATION: '5s',
            SLICES: '2',
            REQUEST_TIMEOUT: '5s',
            GRACEFUL_STOP: '5s',
            WARMUP_REQUESTS: '0',
            SLO_ERROR_RATE: '1',
          },
          120_000,
        );
        assert.equal(run.result.exitCode, 0, explain(run));
        const [low, high] = run.summary!.records;
        assert.ok(
          Math.abs((low.output_throughput_tokens_per_s as number) / (2 * 32) - 1) < 0.2,
          `rate 2/s gives ~64 tokens/s: ${low.output_throughput_tokens_per_s}`,
        );
        assert.ok(high.requests < 30 * 5, 'the overloaded cell completed fewer than offered');
        assert.equal(extra(run).fall_behind?.rate, 30, extra(run).fall_behind?.text);
      } finally {
        await sim.stop();
      }
    });

    test('context-matrix: one run per ISL × OSL, latency grows with both', onStock, async () => {
      const sim = await spawnSim({ engine: 'vllm', timeScale: 8, seed: 5 });
      try {
        const run = await runner.run(
          'context-matrix',
          {
            TARGET_URL: sim.url,
            ISL: '128,4096',
            OSL: '16,64',
            CONCURRENCY: '2',
            DURATION: '3s',
            SLICES: '1',
            REQUEST_TIMEOUT: '5s',
            GRACEFUL_STOP: '2s',
            WARMUP_REQUESTS: '0',
          },
          120_000,
        );
        assert.equal(run.result.exitCode, 0, explain(run));
        const p50 = (cell: string) => run.summary!.records.find((r) => r.cell === cell)!.e2e_ms!.p50;
        assert.deepEqual(
          run.summary!.records.map((r) => r.cell),
          ['i128_o16_c2', 'i128_o64_c2', 'i4096_o16_c2', 'i4096_o64_c2'],
        );
        assert.ok(p50('i128_o64_c2') > p50('i128_o16_c2'), 'more output, longer');
        assert.ok(p50('i4096_o16_c2') > p50('i128_o16_c2'), 'longer prompt, longer');
      } finally {
        await sim.stop();
      }
    });
  });
}
