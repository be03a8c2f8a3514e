// One benchmark over two k6 instances (execution segments), merged, against the same plan run by
// one instance and against the simulators' ground truth.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { K6RunResult, RunOptions } from '../../scripts/k6-runtime';
import { mergeFiles } from '../../scripts/merge';
import { spawnSim, type RemoteSim } from './sim-process';
import { ROOT, RUNNERS } from './harness';

const OSL = 64;
const DURATION_MS = 8000;
const SLICES = 6;
const ENV = {
  ISL: '128',
  OSL: String(OSL),
  CONCURRENCY: '4',
  DURATION: `${DURATION_MS}ms`,
  SLICES: String(SLICES),
  REQUEST_TIMEOUT: '5s',
  GRACEFUL_STOP: '3s',
  WARMUP_REQUESTS: '0',
  PARTIAL: 'true',
  RESULTS_DIR: '.',
};

/** The simulator's own output throughput over a run's steady window, from the requests that arrived after `sinceMs`. */
async function truth(sim: RemoteSim, sinceMs: number): Promise<{ tokensPerSec: number; requests: number }> {
  const reqs = (await sim.requests()).filter((r) => r.maxNewTokens === OSL && r.arrivalMs >= sinceMs);
  const start = Math.min(...reqs.map((r) => r.arrivalMs));
  const s = await sim.summary(start + DURATION_MS / SLICES, start + DURATION_MS);
  return { tokensPerSec: s.outputTokensPerSec, requests: reqs.length };
}

interface Rec {
  variant: string;
  requests: number;
  requests_failed: number;
  output_throughput_tokens_per_s: number;
  e2e_ms: { p50: number; p99: number; count: number };
  notes: string[];
}
const summaryOf = (file: string) => JSON.parse(readFileSync(file, 'utf8')) as { records: Rec[]; comparisons: Array<{ verdict: string }> };

for (const rt of RUNNERS) {
  describe(`two instances merged on ${rt.name}`, { skip: rt.skip ?? undefined }, () => {
    test('the merged run matches one instance and the ground truth: throughput within 3 %, the same verdict; mismatched partials are refused', async () => {
      const [dflash, mtp] = await Promise.all([
        spawnSim({ engine: 'sglang', spec: 'dflash', timeScale: 4, seed: 3 }),
        spawnSim({ engine: 'vllm', spec: 'mtp', timeScale: 4, seed: 4 }),
      ]);
      const script = join(ROOT, 'dist', 'dflash-vs-mtp.js');
      const env = { ...ENV, DFLASH_URL: dflash.url, MTP_URL: mtp.url };
      const opts = (cwd: string, extra: Partial<RunOptions> = {}): RunOptions => ({
        cwd,
        env: { ...env, RUN_ID: 'ab' },
        timeoutMs: 120_000,
        quiet: true,
        ...extra,
      });
      const why = (r: K6RunResult) => `exit ${r.exitCode}\n${r.stdout.slice(-2500)}\n${r.stderr.slice(-2500)}`;
      try {
        // One instance.
        const one = mkdtempSync(join(tmpdir(), 'merge-one-'));
        const t1 = Date.now();
        const single = await rt.exec(script, opts(one));
        assert.equal(single.exitCode, 0, why(single));
        const truthOne = { dflash: await truth(dflash, t1), mtp: await truth(mtp, t1) };

        // Two instances at once, each its execution segment.
        const two = mkdtempSync(join(tmpdir(), 'merge-two-'));
        const t2 = Date.now();
        const seq = { executionSegmentSequence: '0,1/2,1' };
        const [a, b] = await Promise.all([
          rt.exec(script, opts(two, { executionSegment: '0:1/2', ...seq })),
          rt.exec(script, opts(two, { executionSegment: '1/2:1', ...seq })),
        ]);
        assert.equal(a.exitCode, 0, why(a));
        assert.equal(b.exitCode, 0, why(b));
        const partials = ['0-1_2', '1_2-1'].map((s) => join(two, `ab.segment-${s}.partial.json`));
        for (const p of partials) assert.ok(existsSync(p), `${p} was written`);
        const half = summaryOf(join(two, 'ab.segment-0-1_2.summary.json'));
        assert.match(half.records[0].notes.join(' '), /this instance \(execution segment 0:1\/2\) ran 2 of the run's 4 VUs/);

        const merged = mergeFiles(partials, two);
        const m = summaryOf(join(two, 'ab.summary.json'));
        const s = summaryOf(join(one, 'ab.summary.json'));
        const truthTwo = { dflash: await truth(dflash, t2), mtp: await truth(mtp, t2) };
        for (const v of ['dflash', 'mtp'] as const) {
          const mr = m.records.find((r) => r.variant === v)!;
          const sr = s.records.find((r) => r.variant === v)!;
          const parts = [summaryOf(join(two, 'ab.segment-0-1_2.summary.json')), summaryOf(join(two, 'ab.segment-1_2-1.summary.json'))].map((x) =>
            x.records.find((r) => r.variant === v)!,
          );
          assert.equal(mr.requests_failed, 0);
          assert.equal(mr.requests, parts[0].requests + parts[1].requests, 'requests add exactly');
          assert.equal(mr.requests, truthTwo[v].requests, `${v}: the merged run counted every request the server saw`);
          const vsTruth = mr.output_throughput_tokens_per_s / truthTwo[v].tokensPerSec;
          assert.ok(
            Math.abs(vsTruth - 1) < 0.03,
            `${v}: merged ${mr.output_throughput_tokens_per_s.toFixed(1)} tok/s vs the simulator's ${truthTwo[v].tokensPerSec.toFixed(1)}`,
          );
          const vsSingle = mr.output_throughput_tokens_per_s / sr.output_throughput_tokens_per_s;
          const truthRatio = truthTwo[v].tokensPerSec / truthOne[v].tokensPerSec;
          assert.ok(
            Math.abs(vsSingle / truthRatio - 1) < 0.03,
            `${v}: merged ${mr.output_throughput_tokens_per_s.toFixed(1)} vs single ${sr.output_throughput_tokens_per_s.toFixed(1)} ` +
              `tok/s (the simulator moved by ${truthRatio.toFixed(3)})`,
          );
          // A merged percentile lies within the instances' own (a mixture's quantile always does).
          const lo = Math.min(...parts.map((p) => p.e2e_ms.p50));
          const hi = Math.max(...parts.map((p) => p.e2e_ms.p50));
          assert.ok(mr.e2e_ms.p50 >= lo - 1e-9 && mr.e2e_ms.p50 <= hi + 1e-9, `${v}: merged p50 ${mr.e2e_ms.p50} outside the instances' [${lo}, ${hi}]`);
          assert.equal(mr.e2e_ms.count, parts[0].e2e_ms.count + parts[1].e2e_ms.count);
        }
        const verdict = (x: { comparisons: Array<{ verdict: string }> }) => x.comparisons[0].verdict.split(' by ')[0];
        assert.equal(verdict(m), verdict(s), `merged "${m.comparisons[0].verdict}" vs single "${s.comparisons[0].verdict}"`);
        assert.match(merged.text, /merged from 2 instances' partial results/);

        // A whole run's partial with one instance's: the segments overlap.
        assert.throws(() => mergeFiles([join(one, 'ab.partial.json'), partials[1]], two), /overlap/);
      } finally {
        await Promise.all([dflash.stop(), mtp.stop()]);
      }
    });
  });
}
