// The embeddings benchmark on two simulators (one five times faster: its time scale), on the real
// k6 (v1.3 and v2.2, .ci/run's phases): the items and the input tokens the report gives for each run
// are those the simulator's ground truth served, every vector has the simulator's dimension, and
// the verdict names the faster deployment. Over http only: the pooling routes do not stream, so the
// sse transport has nothing of its own to time there (it sends these over k6/http too).
// About 12 s: one cell (ISL 32, BATCH 4, c=2), two 3 s runs of 6 slices (5 steady: the verdict's least) with a 0.5 s grace, no warm-up.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSim } from './sim-process';
import { explain, RUNNERS } from './harness';

interface PoolingRun {
  variant: string;
  cell: string;
  ok: number;
  items: number;
  input_tokens: number | null;
  items_per_second: number | null;
  dimension: number | null;
}
interface PoolingJson {
  runs: PoolingRun[];
  verdicts: Array<{ a: string; b: string; verdict: string }>;
}

for (const runner of RUNNERS) {
  describe(`embeddings on ${runner.name}`, { skip: runner.skip ?? undefined }, () => {
    test("items and input tokens equal the simulator's truth; one dimension; the faster deployment wins", async () => {
      const fast = await spawnSim({ engine: 'vllm', timeScale: 10 });
      const slow = await spawnSim({ engine: 'sglang', timeScale: 2 });
      try {
        const env = {
          VARIANTS: 'fast,slow',
          FAST_URL: fast.url,
          SLOW_URL: slow.url,
          ISL: '32',
          BATCH: '4',
          CONCURRENCY: '2',
          DURATION: '3s',
          SLICES: '6',
          GRACEFUL_STOP: '500ms',
          WARMUP_REQUESTS: '0',
          CACHE_RESET: 'never',
          TRANSPORT: 'http',
        };
        const run = await runner.run('embeddings', env, 90_000);
        assert.equal(run.result.exitCode, 0, explain(run));
        const pooling = (run.summary as unknown as { pooling: PoolingJson | null }).pooling;
        assert.ok(pooling, explain(run));
        for (const [variant, sim] of [
          ['fast', fast],
          ['slow', slow],
        ] as const) {
          // The preflight's check is one item; every request of the run carries BATCH.
          const served = (await sim.requests()).filter((r) => r.route === '/v1/embeddings' && r.items === 4);
          const row: PoolingRun | undefined = pooling.runs.find((r) => r.variant === variant);
          assert.ok(row && row.ok > 0, explain(run));
          assert.equal(row.ok, served.length, `${variant}: requests`);
          assert.equal(
            row.items,
            served.reduce((s, r) => s + (r.items ?? 0), 0),
            `${variant}: items`,
          );
          assert.equal(
            row.input_tokens,
            served.reduce((s, r) => s + r.promptTokens, 0),
            `${variant}: input tokens`,
          );
          assert.equal(row.dimension, 256, `${variant}: dimension`);
          assert.ok(row.items_per_second !== null && row.items_per_second > 0, `${variant}: items/s`);
        }
        const v = pooling.verdicts[0];
        assert.ok(v, 'a verdict for the cell');
        assert.match(v.verdict, /^fast faster by /, v.verdict);
      } finally {
        await Promise.all([fast.stop(), slow.stop()]);
      }
    });
  });
}
