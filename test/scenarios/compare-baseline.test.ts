// A run against a baseline run on real k6: three runs of concurrency-ramp, each on a fresh simulator.
// The second has the baseline's settings (no regression may be flagged), the third a simulator 10%
// slower (--time-scale divided by 1.1: every model duration × 1.1), which must be flagged in every
// cell, both by BASELINE= in the run itself and by `npm run compare` on the summaries.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { runCompare } from '../../scripts/compare';
import { compareSummaries, EXIT, type Comparison } from '../../lib/compare/compare-summaries';
import { parseSummary } from '../../lib/compare/read-summary';
import { readFileSync } from 'node:fs';
import { spawnSim } from './sim-process';
import { explain, RUNNERS, type Run, type Runner } from './harness';

const TIME_SCALE = 4;
// Two cells of six steady one-second slices; requests take about 0.25 s.
const ENV = { ISL: '64', OSL: '32', CONCURRENCY: '1,4', DURATION: '7s', SLICES: '7', REQUEST_TIMEOUT: '5s', GRACEFUL_STOP: '2s', WARMUP_REQUESTS: '1' };

async function runOn(runner: Runner, timeScale: number, env: Record<string, string>): Promise<{ run: Run; summary: string }> {
  const sim = await spawnSim({ engine: 'sglang', timeScale, seed: 21 });
  try {
    const run = await runner.run('concurrency-ramp', { TARGET_URL: sim.url, ...ENV, ...env }, 120_000);
    assert.equal(run.result.exitCode, 0, explain(run));
    const file = run.result.files.find((f) => f.endsWith('.summary.json'));
    assert.ok(file, explain(run));
    return { run, summary: file };
  } finally {
    await sim.stop();
  }
}

function compared(base: string, next: string): Comparison {
  const o = compareSummaries(parseSummary(readFileSync(base, 'utf8'), base), parseSummary(readFileSync(next, 'utf8'), next));
  assert.equal(o.refused, false, o.refused ? o.line : '');
  return (o as { comparison: Comparison }).comparison;
}

for (const runner of RUNNERS) {
  describe(`a run against a baseline on ${runner.name}`, { skip: runner.skip ?? undefined }, () => {
    test('the same settings: no regression; a simulator 10% slower: a regression in every cell', async (t) => {
      const base = await runOn(runner, TIME_SCALE, { RUN_ID: 'baseline' });
      const records = JSON.parse(readFileSync(base.summary, 'utf8')).records as Array<{ steady_slices: { requests: number[] } | null }>;
      assert.deepEqual(
        records.map((r) => r.steady_slices?.requests.length),
        [6, 6],
        'six steady slices per cell in summary.json',
      );

      const repeat = await runOn(runner, TIME_SCALE, { RUN_ID: 'repeat', BASELINE: base.summary });
      const same = runCompare([base.summary, repeat.summary], {});
      t.diagnostic(`same settings:\n${same.stdout}`);
      assert.equal(same.code, EXIT.ok, same.stdout + same.stderr);
      const c1 = compared(base.summary, repeat.summary);
      assert.equal(c1.cells.length, 2);
      for (const x of c1.cells) {
        assert.ok(['same', 'faster', 'slower'].includes(x.verdict), `${x.cell}: a verdict, not ${x.verdict} (${x.notes.join('; ')})`);
        assert.equal(x.regression, false, `${x.cell}: false alarm`);
      }
      // BASELINE= in the run itself: the comparison at the end of its output, and its files.
      assert.match(repeat.run.result.stdout, /2 cell\(s\) compared: .*; no regression beyond 5% → exit 0/, explain(repeat.run));
      assert.ok(repeat.run.result.files.some((f) => f.endsWith('repeat.compare.md')) && repeat.run.result.files.some((f) => f.endsWith('repeat.compare.html')));

      const slow = await runOn(runner, TIME_SCALE / 1.1, { RUN_ID: 'slow', BASELINE: base.summary });
      const slower = runCompare([base.summary, slow.summary], {});
      t.diagnostic(`10% slower simulator:\n${slower.stdout}`);
      assert.equal(slower.code, EXIT.regression, slower.stdout + slower.stderr);
      const c2 = compared(base.summary, slow.summary);
      for (const x of c2.cells) {
        assert.equal(x.regression, true, `${x.cell}: ${JSON.stringify(x)}`);
        assert.ok(x.throughput!.value > 0.85 && x.throughput!.value < 0.95, `${x.cell}: throughput ratio ${x.throughput!.value}`);
        assert.ok(x.latency!.value > 1.05 && x.latency!.value < 1.15, `${x.cell}: e2e ratio ${x.latency!.value}`);
      }
      assert.equal((slow.run.result.stdout.match(/REGRESSION: slower beyond 5%/g) ?? []).length, 2, explain(slow.run));
    });
  });
}
