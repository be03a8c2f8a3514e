// REPEATS=3 on real k6: the A/B runs three times in one k6 run (each repeat's order rotated), and
// the verdict rests on the across-run interval (t over the three repeats' ratios, 2 df), with each
// repeat's within-run figures beside it. Against two simulators at time-scale 4 (timing is not the
// subject): one cell, 3 s runs of six 0.5 s slices, 2 variants × 3 repeats × 4.5 s ≈ 27 s of load.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { spawnSim } from './sim-process';
import { explain, RUNNERS } from './harness';

interface RepeatsJson {
  per_repeat: Array<{ repeat: number; variant_output_tokens_per_s: number; baseline_output_tokens_per_s: number; throughput_ratio: number; standing: string }>;
  spread: { min: number; max: number; sd_log: number | null };
  across_run_ratio: number;
  across_run_ci: [number, number];
  across_run_df: number;
  agreement: string;
}

for (const runner of RUNNERS) {
  describe(`REPEATS on ${runner.name}`, { skip: runner.skip ?? undefined }, () => {
    test('REPEATS=3: three repeats in one summary, the verdict from the interval across them', async () => {
      const [dflash, mtp] = await Promise.all([
        spawnSim({ engine: 'sglang', spec: 'dflash', timeScale: 4, seed: 41 }),
        spawnSim({ engine: 'vllm', spec: 'mtp', timeScale: 4, seed: 42 }),
      ]);
      try {
        const run = await runner.run(
          'dflash-vs-mtp',
          {
            DFLASH_URL: dflash.url,
            MTP_URL: mtp.url,
            ISL: '64',
            OSL: '32',
            CONCURRENCY: '2',
            DURATION: '3s',
            SLICES: '6',
            REPEATS: '3',
            REQUEST_TIMEOUT: '5s',
            GRACEFUL_STOP: '500ms',
            WARMUP_REQUESTS: '1',
          },
          120_000,
        );
        assert.equal(run.result.exitCode, 0, explain(run));
        const s = run.summary as unknown as {
          records: Array<{ variant: string; scenario: string; repeat?: number; output_throughput_tokens_per_s: number | null }>;
          comparisons: Array<{ verdict: string; throughput_ratio_a_over_b: number; throughput_ratio_ci: [number, number]; repeats?: RepeatsJson }>;
        };
        assert.deepEqual(s.records.map((r) => r.scenario).sort(), [
          'dflash_i64_o32_c2_r1',
          'dflash_i64_o32_c2_r2',
          'dflash_i64_o32_c2_r3',
          'mtp_i64_o32_c2_r1',
          'mtp_i64_o32_c2_r2',
          'mtp_i64_o32_c2_r3',
        ]);
        for (const r of s.records) assert.ok((r.output_throughput_tokens_per_s ?? 0) > 0, `${r.scenario} measured`);
        assert.equal(s.comparisons.length, 1);
        const c = s.comparisons[0];
        const rep = c.repeats;
        assert.ok(rep, 'the comparison carries its repeats');
        assert.deepEqual(
          rep.per_repeat.map((p) => p.repeat),
          [1, 2, 3],
        );
        // Each repeat's ratio is of that repeat's own runs.
        for (const p of rep.per_repeat) {
          const own = (v: string) => s.records.find((r) => r.variant === v && r.repeat === p.repeat)?.output_throughput_tokens_per_s;
          assert.equal(p.variant_output_tokens_per_s, own('dflash'));
          assert.equal(p.baseline_output_tokens_per_s, own('mtp'));
        }
        assert.equal(rep.across_run_df, 2);
        // The verdict's ratio and interval are the across-run ones: the geometric mean of the repeats' ratios.
        const geo = Math.exp(rep.per_repeat.reduce((a, p) => a + Math.log(p.throughput_ratio), 0) / 3);
        assert.ok(Math.abs(c.throughput_ratio_a_over_b / geo - 1) < 1e-9, `${c.throughput_ratio_a_over_b} vs ${geo}`);
        assert.deepEqual(c.throughput_ratio_ci, rep.across_run_ci);
        const [lo, hi] = rep.across_run_ci;
        assert.ok(lo <= rep.across_run_ratio && rep.across_run_ratio <= hi);
        assert.ok(rep.spread.min <= rep.spread.max && rep.spread.sd_log !== null);
        // DFlash is about 2× MTP on these simulators: faster across runs, and the verdict says so from that interval.
        assert.ok(lo > 1, `across-run interval [${lo}, ${hi}]`);
        assert.match(c.verdict, /^DFlash faster by \d\.\d\d× \[\d\.\d\d, \d\.\d\d\] at ISL 64, OSL 32, c=2, across 3 repeats \(within-run r1 .* \(t, 2 df\): /);
        const out = run.result.stdout + run.result.stderr;
        assert.match(out, /DFlash vs MTP \(output throughput, 95% interval across 3 repeats/);
        assert.match(out, /dflash r3/, 'the per-run table names the repeat');
        assert.match(out, /1 cell\(s\) × 2 variant\(s\) × 3 repeats = 6 run\(s\)/);
        assert.match(out, /dflash r2 i64_o32_c2: .*reset/, 'the prefix-cache lines name the repeat');
        const md = run.result.files.find((f) => f.endsWith('.report.md'));
        assert.ok(md && /across 3 repeats/.test(readFileSync(md, 'utf8')));
      } finally {
        await Promise.all([dflash.stop(), mtp.stop()]);
      }
    });

    test('a bad REPEATS ends in one clear message before any load', async () => {
      const run = await runner.run('dflash-vs-mtp', { DFLASH_URL: 'http://127.0.0.1:9', MTP_URL: 'http://127.0.0.1:10', REPEATS: '1.5' }, 60_000);
      assert.notEqual(run.result.exitCode, 0);
      assert.match(run.result.stdout + run.result.stderr, /REPEATS='1\.5' is not valid: expected a whole number from 1 to 20\./);
    });
  });
}
