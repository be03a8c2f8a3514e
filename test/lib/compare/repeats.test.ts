// npm run compare between two runs with REPEATS: the across-run rule (Welch's t over the two runs'
// repeat means) where both were repeated, said in the output; the within-run rule otherwise.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compareSummaries, type Comparison } from '../../../lib/compare/compare-summaries';
import { parseSummary } from '../../../lib/compare/read-summary';
import { renderCompareText } from '../../../lib/compare/render-comparison';
import { fakeSummary } from './fixtures';

const summary = (o: Parameters<typeof fakeSummary>[0]) => parseSummary(fakeSummary(o), 'x');

function compared(base: Parameters<typeof fakeSummary>[0], next: Parameters<typeof fakeSummary>[0]): Comparison {
  const out = compareSummaries(summary(base), summary(next));
  assert.equal(out.refused, false);
  return (out as { comparison: Comparison }).comparison;
}

const R3 = { REPEATS: '3' };

test('summary.json of a repeated run: one record per repeat, each with its repeat; verdicts carry the repeats', () => {
  const s = JSON.parse(fakeSummary({ env: R3, drift: [1, 1.02, 0.99] }));
  assert.equal(s.records.length, 12);
  assert.deepEqual(
    s.records.filter((r: { cell: string; variant: string }) => r.cell === 'i128_o64_c1' && r.variant === 'dflash').map((r: { repeat: number }) => r.repeat),
    [1, 2, 3],
  );
  const c = s.comparisons[0];
  assert.equal(c.repeats.per_repeat.length, 3);
  assert.ok(
    c.repeats.per_repeat.every(
      (p: { variant_output_tokens_per_s: number; baseline_output_tokens_per_s: number }) =>
        p.variant_output_tokens_per_s > 0 && p.baseline_output_tokens_per_s > 0,
    ),
  );
  assert.equal(c.repeats.across_run_df, 2);
  assert.ok(c.repeats.spread.max >= c.repeats.spread.min);
  assert.deepEqual(c.throughput_ratio_ci, c.repeats.across_run_ci, "the verdict's interval is the across-run one");
  assert.match(c.verdict, /across 3 repeats/);
  // Unrepeated: no repeat anywhere.
  const once = JSON.parse(fakeSummary({}));
  assert.ok(once.records.every((r: object) => !('repeat' in r)));
  assert.ok(once.comparisons.every((x: object) => !('repeats' in x)));
});

test('both runs repeated: drift between repeats is no regression across runs, though the first repeats alone would be one', () => {
  // Baseline and new run of one workload; the repeats drift ±7 %, the slices within one barely move.
  const base = { env: R3, drift: [1.0, 1.08, 0.93], wobble: 0.005, noise: 1 };
  const next = { env: R3, drift: [1.07, 0.94, 1.0], wobble: 0.005, noise: 2, runId: 'new' };
  const c = compared(base, next);
  assert.equal(c.rule, 'across-run');
  assert.ok(
    c.notes.some((n) => /^rule: across runs/.test(n)),
    c.notes.join('\n'),
  );
  assert.equal(c.regressions, 0, c.cells.map((x) => `${x.cell} ${x.variant} ${x.verdict} ${JSON.stringify(x.throughput)}`).join('\n'));
  for (const x of c.cells) {
    assert.ok(x.throughput?.ci && x.throughput.ci.lo < 1 && x.throughput.ci.hi > 1, `${x.cell} ${x.variant}: ${JSON.stringify(x.throughput)}`);
    assert.match(x.notes[0], /^across runs: 3 repeat\(s\) in the baseline, 3 in the new run/);
  }
  // The same first repeats compared as unrepeated runs: 7 % slower within the run, a regression.
  const within = compared({ ...base, env: {} }, { ...next, env: {} });
  assert.equal(within.rule, 'within-run');
  assert.ok(within.regressions > 0, "the within-run rule calls the first repeat's drift a regression");
  assert.ok(renderCompareText(c).includes('rule: across runs'));
  assert.match(renderCompareText(c), /ratios new ÷ baseline with 95% intervals across runs/);
  assert.match(renderCompareText(within), /ratios new ÷ baseline with 95% intervals over the steady time slices/);
});

test('both runs repeated, the new one 10 % slower in every repeat: a regression across runs (exit 3)', () => {
  const c = compared({ env: R3, drift: [1, 1.01, 0.99], wobble: 0.01 }, { env: R3, drift: [1.005, 0.995, 1], slow: 1.1, wobble: 0.01, noise: 5, runId: 'new' });
  assert.equal(c.rule, 'across-run');
  assert.equal(c.regressions, c.cells.length);
  assert.equal(c.exitCode, 3);
  assert.equal(c.cells.length, 4, 'one comparison per cell and variant, not per repeat');
  assert.deepEqual(c.onlyBaseline, []);
});

test('only one run repeated: the within-run rule on its first repeat, and it says so', () => {
  const c = compared({ env: R3 }, { runId: 'new' });
  assert.equal(c.rule, 'within-run');
  assert.ok(
    c.notes.some((n) => /^rule: within one run — only the baseline was repeated/.test(n)),
    c.notes.join('\n'),
  );
  assert.equal(compared({}, { runId: 'new' }).notes.filter((n) => n.startsWith('rule:')).length, 0, 'neither repeated: as before');
});

test('a malformed repeat is bad input: one line', () => {
  const s = JSON.parse(fakeSummary({ env: R3 }));
  s.records[0].repeat = 0;
  assert.throws(() => parseSummary(JSON.stringify(s), 'bad.json'), /^CompareInputError: bad\.json: records\[0\]\.repeat is malformed/);
});
