// The dataset part of the report, from summary metrics shaped as k6 gives them: per-domain figures
// and verdicts with their intervals, the turn table, the length agreement warning; and the
// sub-metrics a dataset run declares (bounded, none without a dataset).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SPEC_ACCEPTED_BINS } from '../../../lib/metrics/samples';
import { BENCHMARKS } from '../../../lib/benchmarks';
import { loadConfig } from '../../../lib/config/load';
import { buildCells, buildPlan } from '../../../lib/plan/matrix';
import { datasetThresholds } from '../../../lib/plan/dataset-keys';
import { k6Options } from '../../../lib/plan/k6-options';
import { subKey } from '../../../lib/plan/summary-keys';
import { datasetReport, domainVerdict } from '../../../lib/report/figures/domain-figures';
import { dataset } from '../../../lib/report/sections/dataset-section';
import type { SummaryMetrics } from '../../../lib/report/figures/run-figures';
import type { Report } from '../../../lib/report/build-report';
import type { DatasetPlan } from '../../../lib/dataset/bucket-plan';

const NOW = new Date('2026-12-01T00:00:00Z');
const env = {
  DFLASH_URL: 'http://a:1',
  MTP_URL: 'http://b:2',
  ISL: '24',
  OSL: '96',
  CONCURRENCY: '1',
  DURATION: '12s',
  SLICES: '4',
  DATASET: 'builtin:code,chat',
};
const cfg = loadConfig(BENCHMARKS['dflash-vs-mtp'], env, NOW);
const plan = buildPlan(cfg, buildCells(cfg.isl, cfg.osl, [{ kind: 'vus', vus: 1 }]), ['dflash', 'mtp']);

const dsPlan = (over: Partial<DatasetPlan> = {}): DatasetPlan => ({
  source: 'DATASET=builtin:code,chat',
  lengths: { kind: 'estimate' },
  countedBy: null,
  total: 180,
  examined: 80,
  filtered: 0,
  outside: 16,
  buckets: [{ isl: 24, lo: 12, hi: 48, items: [0, 1, 2], tokens: [20, 30, 40] }],
  notes: [],
  shape: { domains: ['code', 'chat'], turns: [] },
  format: 'json',
  withOutputTokens: 0,
  skipped: 0,
  ...over,
});

const trend = (avg: number, n: number, extra: Record<string, number> = {}) => ({
  type: 'trend',
  values: { avg, med: avg, 'p(90)': avg, 'p(99)': avg, max: avg, min: avg, count: n, ...extra },
});
const counter = (n: number) => ({ type: 'counter', values: { count: n, rate: 0 } });

/** Per domain: e2e mean (ms) on each side, the same in every slice, a little noise so the interval is not a point. */
function metrics(e2e: Record<string, Record<string, number>>, ratio = 1.0, runs = plan.runs): SummaryMetrics {
  const m: SummaryMetrics = {};
  for (const run of runs) {
    const s = run.scenario;
    m[subKey('promptLength', s)] = trend(30, 40);
    m[subKey('outputLength', s)] = trend(96, 40);
    m[subKey('lengthRatio', s)] = trend(ratio, 40, { med: ratio, max: ratio * 1.2 });
    for (const [domain, byVariant] of Object.entries(e2e)) {
      const mean = byVariant[run.variant];
      m[subKey('e2e', s, { domain })] = trend(mean, 20);
      m[subKey('success', s, { domain })] = { type: 'rate', values: { rate: 1, passes: 20, fails: 0 } };
      if (run.variant === 'dflash') {
        m[subKey('specVerifySteps', s, { domain })] = counter(100);
        m[subKey('specTokens', s, { domain })] = counter(domain === 'code' ? 700 : 200);
      }
      for (let k = 1; k < 4; k++) {
        const n = 5 + k;
        m[subKey('windowE2e', s, { slice: String(k), domain })] = counter(mean * n * (1 + 0.01 * (k - 2)));
        m[subKey('windowRequests', s, { slice: String(k), domain })] = counter(n);
      }
    }
  }
  return m;
}

test('per-domain verdicts: the e2e ratio with its interval, per domain; acceptance per domain where reported per request', () => {
  const d = datasetReport(cfg, plan, metrics({ code: { dflash: 100, mtp: 210 }, chat: { dflash: 400, mtp: 260 } }), dsPlan(), {
    kind: 'ab',
    where: () => 'at ISL 24, OSL 96, c=1',
  });
  assert.ok(d);
  const c = d.comparisons[0];
  const code = c.domains.find((x) => x.domain === 'code');
  assert.ok(code?.speedup?.ci);
  assert.ok(Math.abs(code.speedup.value - 2.1) < 1e-9);
  assert.ok(code.speedup.ci.lo > 2 && code.speedup.ci.hi < 2.2, JSON.stringify(code.speedup));
  assert.match(code.text, /^DFlash 2\.10× \[2\.\d\d, 2\.\d\d\] faster on code$/);
  assert.match(c.verdict, /^by domain at ISL 24, OSL 96, c=1: DFlash 2\.10× .* faster on code; MTP 1\.54× \[1\.\d\d, 1\.\d\d\] faster on chat$/);
  assert.deepEqual(code.acceptance, { a: 7, b: null });
  assert.deepEqual(d.warnings, [], 'lengths agree');
});

test('domain verdict wording: faster either way, not significant, no interval', () => {
  assert.equal(domainVerdict('dflash', 'mtp', 'chat', { value: 1.2, ci: { lo: 0.98, hi: 1.4 } }), '1.20× [0.98, 1.40] on chat: not significant');
  assert.equal(domainVerdict('dflash', 'mtp', 'code', { value: 2.1, ci: { lo: 1.9, hi: 2.3 } }), 'DFlash 2.10× [1.90, 2.30] faster on code');
  assert.equal(domainVerdict('dflash', 'mtp', 'chat', { value: 0.5, ci: { lo: 0.4, hi: 0.625 } }), 'MTP 2.00× [1.60, 2.50] faster on chat');
  assert.match(domainVerdict('dflash', 'mtp', 'math', { value: 1.5, ci: null }), /DFlash 1\.50× faster on math \(no interval/);
  assert.equal(domainVerdict('dflash', 'mtp', 'math', null), 'math: not measured for both');
});

test('prompt-to-server agreement: a mean off by more than 5% is said, with the figures and how lengths were obtained', () => {
  const d = datasetReport(cfg, plan, metrics({ code: { dflash: 100, mtp: 100 }, chat: { dflash: 100, mtp: 100 } }, 1.3), dsPlan(), {
    kind: 'ab',
    where: () => '',
  });
  assert.ok(d);
  assert.equal(d.warnings.length, 2);
  assert.match(
    d.warnings[0],
    /^dflash: the server counted 30% more prompt tokens than intended \(server ÷ intended: mean 1\.30, median 1\.30, max 1\.56 over 40 first-turn requests; intended lengths estimated as characters ÷ 4/,
  );
  const near = datasetReport(cfg, plan, metrics({ code: { dflash: 100, mtp: 100 }, chat: { dflash: 100, mtp: 100 } }, 1.04), dsPlan(), {
    kind: 'ab',
    where: () => '',
  });
  assert.deepEqual(near?.warnings, []);
});

test('turns: TTFT, e2e and the cached share of prompt tokens by turn; rendered in text and JSON', () => {
  const m = metrics({ code: { dflash: 100, mtp: 100 }, chat: { dflash: 100, mtp: 100 } });
  const s = plan.runs[0].scenario;
  m[subKey('e2e', s, { turn: '1' })] = trend(100, 10);
  m[subKey('ttft', s, { turn: '1' })] = trend(20, 10);
  m[subKey('inputTokens', s, { turn: '1' })] = counter(300);
  m[subKey('e2e', s, { turn: '2' })] = trend(110, 8);
  m[subKey('ttft', s, { turn: '2' })] = trend(9, 8);
  m[subKey('inputTokens', s, { turn: '2' })] = counter(800);
  m[subKey('cachedTokens', s, { turn: '2' })] = counter(400);
  const multi = loadConfig(BENCHMARKS['dflash-vs-mtp'], { ...env, MULTI_TURN: 'true' }, NOW);
  const d = datasetReport(multi, plan, m, dsPlan({ shape: { domains: ['chat'], turns: ['1', '2', '3'] } }), { kind: 'ab', where: () => '' });
  assert.ok(d);
  const r = d.runs.find((x) => x.scenario === s);
  assert.deepEqual(
    r?.turns.map((t) => [t.turn, t.requests, t.ttft?.avg ?? null, t.cachedShare]),
    [
      ['1', 10, 20, 0],
      ['2', 8, 9, 0.5],
      ['3', 0, null, null],
    ],
  );
  assert.deepEqual(r?.domains, [], 'one domain: no breakdown');
  assert.ok(d);
  const report = { dataset: d } as Report;
  const text = dataset.text(d, report).join('\n');
  assert.match(text, /By turn:/);
  assert.match(text, /conversations replayed turn by turn \(history from the dataset\)/);
  const json = dataset.json(d, report) as { records: Array<{ turns: Array<{ turn: string; cached_share: number | null }> }> };
  assert.equal(json.records[0].turns[1].cached_share, 0.5);
});

test('sub-metrics: per run × domain (× slice for the interval) and × turn, only for what the dataset has; none without DATASET', () => {
  const th = datasetThresholds(plan, { domains: ['code', 'chat'], turns: ['1', '2'] });
  const s = plan.runs[0].scenario;
  assert.deepEqual(th[subKey('windowE2e', s, { slice: '3', domain: 'chat' })], ['count>=0']);
  assert.deepEqual(th[subKey('ttft', s, { turn: '2' })], ['min>=0']);
  assert.equal(th[subKey('e2e', s, { domain: 'math' })], undefined);
  assert.deepEqual(th[subKey('specStepsByAccepted', s, { accepted: '16+', domain: 'code' })], ['count>=0']);
  // 2 runs × (3 length trends + 2 domains × (6 + 4 slices × 2 + 17 acceptance bins) + 2 turns × 4)
  assert.equal(Object.keys(th).length, 2 * (3 + 2 * (6 + 4 * 2 + SPEC_ACCEPTED_BINS) + 2 * 4));
  assert.equal(Object.keys(datasetThresholds(plan, { domains: ['only'], turns: [] })).length, 2 * 3, 'one domain: no breakdown');
  const plain = loadConfig(BENCHMARKS['dflash-vs-mtp'], { ...env, DATASET: '' }, NOW);
  assert.equal(plain.dataset, null);
  const keys = Object.keys(k6Options(plan, plain).thresholds as object);
  assert.equal(keys.filter((k) => /domain:|turn:|llm_request_prompt_tokens|llm_prompt_length_ratio/.test(k)).length, 0);
});

test('compare: each variant against the baseline by domain, the intervals simultaneous over every variant and domain', () => {
  const nway = loadConfig(
    BENCHMARKS.compare,
    {
      VARIANTS: 'none,mtp,dflash',
      NONE_URL: 'http://a:1',
      MTP_URL: 'http://b:2',
      DFLASH_URL: 'http://c:3',
      ISL: '24',
      OSL: '96',
      CONCURRENCY: '1',
      DURATION: '12s',
      SLICES: '4',
      DATASET: 'builtin:code,chat',
    },
    NOW,
  );
  const p3 = buildPlan(nway, buildCells(nway.isl, nway.osl, [{ kind: 'vus', vus: 1 }]), ['none', 'mtp', 'dflash']);
  const e2e = { code: { none: 300, mtp: 210, dflash: 100 }, chat: { none: 300, mtp: 260, dflash: 400 } };
  const d = datasetReport(nway, p3, metrics(e2e, 1, p3.runs), dsPlan(), { kind: 'compare', where: () => 'at c=1' });
  assert.ok(d);
  assert.deepEqual(
    d.comparisons.map((c) => `${c.a}÷${c.b}`),
    ['mtp÷none', 'dflash÷none'],
    'each variant against the baseline, none against itself',
  );
  // 2 variants × 2 domains: each interval at 1 − 0.05/4.
  for (const c of d.comparisons) assert.equal(c.level, 1 - 0.05 / 4);
  const dflashCode = d.comparisons[1].domains.find((x) => x.domain === 'code');
  assert.ok(dflashCode?.speedup?.ci);
  assert.ok(Math.abs(dflashCode.speedup.value - 3) < 1e-9);
  // Wider than the single 95% interval of the same data.
  const single = datasetReport(cfg, plan, metrics({ code: { dflash: 100, mtp: 300 }, chat: { dflash: 400, mtp: 300 } }), dsPlan(), {
    kind: 'ab',
    where: () => '',
  });
  const ci95 = single?.comparisons[0].domains.find((x) => x.domain === 'code')?.speedup?.ci;
  assert.ok(ci95);
  assert.ok(dflashCode.speedup.ci.hi - dflashCode.speedup.ci.lo > ci95.hi - ci95.lo, `${JSON.stringify(dflashCode.speedup.ci)} vs ${JSON.stringify(ci95)}`);
  const text = dataset.text(d, { dataset: d } as Report).join('\n');
  assert.match(text, /each variant vs none by domain \(mean e2e latency, 98\.8% bootstrap intervals, 95% simultaneous over 4 comparisons\):/);
  assert.match(text, /DFlash 3\.00× \[\d\.\d\d, \d\.\d\d\] faster on code/);
});
