// The N-way comparison on real k6 against four simulated deployments of one model (no speculation,
// MTP, DFlash, DDTree): speedups whose intervals hold the simulators' true ratios, and a crossover
// where the simulator's batching makes one.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSim, type RemoteSim } from './sim-process';
import { explain, RUNNERS } from './harness';

const OSL = 64;
const DURATION_MS = 8000;
const SLICES = 8;
const TIME_SCALE = 4;
const COMMON = {
  ISL: '256',
  OSL: String(OSL),
  DURATION: `${DURATION_MS}ms`,
  SLICES: String(SLICES),
  REQUEST_TIMEOUT: '5s',
  GRACEFUL_STOP: '2s',
  WARMUP_REQUESTS: '1',
};

interface Entry {
  cell: string;
  variant: string;
  throughput_ratio: number | null;
  throughput_ratio_ci: [number, number] | null;
  standing: string;
  why: string | null;
  verdict: string;
}
interface ServingJson {
  settings: Array<{ setting: string; mark: string }>;
  pairs: Array<{ variant: string; confounders: Array<{ setting: string; values: [string, string] }> }>;
}
interface VersusJson {
  baseline: string;
  interval_level: number;
  entries: Entry[];
  rankings: Array<{ cellId: string; tiers: string[][] }>;
  crossovers: Array<{ variant: string; kind: string; from: number | null; to: number | null; text: string }>;
}

/** The simulator's true output throughput of each of its runs (in run order), over the run's steady window. */
async function truths(sim: RemoteSim): Promise<number[]> {
  const arrivals = (await sim.requests())
    .filter((r) => r.completionTokens === OSL)
    .map((r) => r.arrivalMs)
    .sort((a, b) => a - b);
  // Runs are apart by at least the graceful stop and the gap between runs; requests within a run are not.
  const starts = arrivals.filter((t, i) => i === 0 || t - arrivals[i - 1] > 1500);
  const out: number[] = [];
  for (const start of starts) out.push((await sim.summary(start + DURATION_MS / SLICES, start + DURATION_MS)).outputTokensPerSec);
  return out;
}

for (const runner of RUNNERS) {
  describe(`compare on ${runner.name}`, { skip: runner.skip ?? undefined }, () => {
    test("four variants against none: every interval holds the simulators' true ratio; verdicts, rankings, reports", async () => {
      const names = ['none', 'mtp', 'dflash', 'ddtree'];
      // DDTree's server shows CUDA graphs off (its timing is the same): the one setting that confounds its verdict.
      const sims = await Promise.all(
        names.map((spec, i) => spawnSim({ engine: 'sglang', spec, timeScale: TIME_SCALE, seed: 20 + i, ...(spec === 'ddtree' ? { cudaGraph: false } : {}) })),
      );
      try {
        const env: Record<string, string> = { ...COMMON, VARIANTS: names.join(','), CONCURRENCY: '1,8' };
        names.forEach((n, i) => (env[`${n.toUpperCase()}_URL`] = sims[i].url));
        const run = await runner.run('compare', env, 240_000);
        assert.equal(run.result.exitCode, 0, explain(run));
        const v = (run.summary as unknown as { versus: VersusJson }).versus;
        assert.equal(v.baseline, 'none');
        assert.ok(Math.abs(v.interval_level - (1 - 0.05 / 3)) < 1e-9);
        assert.equal(v.entries.length, 6);
        // Each simulator ran c=1 then c=8 (cells in order; the variants' order rotates within a cell).
        const truth = await Promise.all(sims.map(truths));
        for (const t of truth) assert.equal(t.length, 2, `two runs per simulator: ${t}`);
        const lines: string[] = [];
        for (const e of v.entries) {
          const c = e.cell.endsWith('_c1') ? 0 : 1;
          const want = truth[names.indexOf(e.variant)][c] / truth[0][c];
          assert.equal(e.standing, 'faster', `${e.variant} ${e.cell}: ${e.standing} (${e.why})`);
          const [lo, hi] = e.throughput_ratio_ci as [number, number];
          lines.push(`${e.variant} ${e.cell}: ${e.throughput_ratio!.toFixed(3)} [${lo.toFixed(3)}, ${hi.toFixed(3)}], truth ${want.toFixed(3)}`);
          // 2 % beyond the interval: the client's and the simulator's windows start a request apart.
          assert.ok(want >= lo * 0.98 && want <= hi * 1.02, `${e.variant} ${e.cell}: truth ${want.toFixed(3)} outside [${lo.toFixed(3)}, ${hi.toFixed(3)}]`);
        }
        console.log(`# ${runner.name}: ${lines.join('; ')}`);
        assert.equal(v.rankings[0].tiers[v.rankings[0].tiers.length - 1].join(), 'none', 'the baseline ranks last at c=1');
        const md = run.result.files.find((f) => f.endsWith('.report.md'));
        assert.ok(md);
        assert.match(run.result.stdout + run.result.stderr, /Output throughput against none \(98\.3 % simultaneous intervals/);
        // A fair A/B: the serving configurations read before the load; equal ones do not confound, one scheduling setting does.
        const sc = (run.summary as unknown as { serving_configuration: ServingJson }).serving_configuration;
        assert.deepEqual(
          sc.pairs.map((p) => [p.variant, p.confounders.map((d) => `${d.setting}: ${d.values.join(' → ')}`)]),
          [
            ['mtp', []],
            ['dflash', []],
            ['ddtree', ['cuda_graphs: true → false']],
          ],
          JSON.stringify(sc.pairs),
        );
        assert.equal(sc.settings.find((r) => r.setting === 'speculative_method')?.mark, 'intended');
        for (const e of v.entries) {
          if (e.variant === 'ddtree') assert.match(e.verdict, /; confounded: cuda_graphs differs \(none: true, DDTree: false; --disable-cuda-graph\)$/);
          else assert.doesNotMatch(e.verdict, /confounded/);
        }
        assert.match(run.result.stdout + run.result.stderr, /Serving configuration \(read from each server before any load\)/);
        assert.match(run.result.stdout + run.result.stderr, /DDTree vs none: confounded: cuda_graphs differs/);
      } finally {
        await Promise.all(sims.map((s) => s.stop()));
      }
    });

    test('DDTree against DFlash: ahead with one stream, not once the batch is full — a crossover, bracketed', async () => {
      const [dflash, ddtree] = await Promise.all([
        spawnSim({ engine: 'sglang', spec: 'dflash', timeScale: TIME_SCALE, seed: 31 }),
        spawnSim({ engine: 'sglang', spec: 'ddtree', timeScale: TIME_SCALE, seed: 32 }),
      ]);
      try {
        const run = await runner.run(
          'compare',
          { ...COMMON, VARIANTS: 'dflash,ddtree', CONCURRENCY: '1,16', DFLASH_URL: dflash.url, DDTREE_URL: ddtree.url },
          180_000,
        );
        assert.equal(run.result.exitCode, 0, explain(run));
        const v = (run.summary as unknown as { versus: VersusJson }).versus;
        const truth = await Promise.all([truths(dflash), truths(ddtree)]);
        const trueRatio = truth[1].map((t, i) => t / truth[0][i]);
        const x = v.crossovers.find((c) => c.variant === 'ddtree');
        assert.ok(x, JSON.stringify(v.crossovers));
        console.log(`# ${runner.name}: ${x.text}; true DDTree ÷ DFlash ${trueRatio.map((r) => r.toFixed(3)).join(' → ')}`);
        // The simulators' own ratio: ahead at c=1, the lead gone (or reversed) at c=16.
        assert.ok(trueRatio[0] > 1.1 && trueRatio[1] < trueRatio[0] - 0.1, `true ratios ${trueRatio}`);
        assert.ok(x.kind === 'ends' || x.kind === 'reverses', x.text);
        assert.deepEqual([x.from, x.to], [1, 16]);
      } finally {
        await Promise.all([dflash.stop(), ddtree.stop()]);
      }
    });
  });
}
