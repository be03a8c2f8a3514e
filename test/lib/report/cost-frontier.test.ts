// The cost-per-token and throughput–interactivity sections, built into a report from a synthetic
// end-of-test summary: in the terminal, report.md, report.html and summary.json with the right
// numbers; an unset GPU_HOUR_COST gives null, never 0; bad values one clear error.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadConfig } from '../../../lib/config/load';
import { BENCHMARKS } from '../../../lib/benchmarks';
import { buildCells, buildPlan, type Plan } from '../../../lib/plan/matrix';
import { subKey } from '../../../lib/plan/summary-keys';
import type { SummaryMetrics } from '../../../lib/report/figures/run-figures';
import { buildReport } from '../../../lib/report/build-report';
import { renderText } from '../../../lib/report/render/text-report';
import { summaryJson } from '../../../lib/report/render/summary-json';
import { renderMarkdown } from '../../../lib/report/render/markdown-report';
import { renderHtml } from '../../../lib/report/render/html-report';

const NOW = new Date('2026-11-29T20:15:00Z');
const counter = (count: number) => ({ type: 'counter', contains: 'default', values: { count, rate: 0 } });
const flat = (v: number, count: number) => ({
  type: 'trend',
  contains: 'time',
  values: { avg: v, min: v, med: v, max: v, 'p(90)': v, 'p(95)': v, 'p(99)': v, count },
});

// Output tokens/s and TPOT (ms) per run: dflash c=1 100 tok/s at 10 ms, c=8 400 at 25 ms; mtp c=1 150 at 20 ms, c=8 600 at 40 ms.
const RUNS: Record<string, [number, number]> = {
  dflash_i128_o64_c1: [100, 10],
  dflash_i128_o64_c8: [400, 25],
  mtp_i128_o64_c1: [150, 20],
  mtp_i128_o64_c8: [600, 40],
};

function fakeRun(plan: Plan): SummaryMetrics {
  const m: SummaryMetrics = {};
  const sliceSec = plan.sliceMs / 1000;
  for (const run of plan.runs) {
    const [rate, tpot] = RUNS[run.scenario];
    let tokens = 0;
    for (let s = 0; s < plan.slices; s++) {
      const n = Math.round((s === 0 ? 0.5 : 1 + 0.03 * Math.sin(s * 7)) * rate * sliceSec);
      m[subKey('windowTokens', run.scenario, { slice: String(s) })] = counter(n);
      m[subKey('windowRequests', run.scenario, { slice: String(s) })] = counter(4);
      m[subKey('windowE2e', run.scenario, { slice: String(s) })] = counter(4000);
      tokens += n;
    }
    m[subKey('outputTokens', run.scenario)] = counter(tokens);
    m[subKey('inputTokens', run.scenario)] = counter(tokens * 2);
    m[subKey('success', run.scenario)] = { type: 'rate', values: { rate: 1, passes: 24, fails: 0 } };
    m[subKey('e2e', run.scenario)] = flat(1000, 24);
    m[subKey('tpot', run.scenario)] = flat(tpot, 24);
  }
  return m;
}

function report(env: Record<string, string>) {
  const spec = BENCHMARKS['dflash-vs-mtp'];
  const cfg = loadConfig(
    spec,
    { DFLASH_URL: 'http://a:1', MTP_URL: 'http://b:2', ISL: '128', OSL: '64', CONCURRENCY: '1,8', DURATION: '60s', SLICES: '6', TRANSPORT: 'sse', ...env },
    NOW,
  );
  const cells = buildCells(
    cfg.isl,
    cfg.osl,
    cfg.concurrency.map((vus) => ({ kind: 'vus' as const, vus })),
  );
  const plan = buildPlan(cfg, cells, ['dflash', 'mtp']);
  return buildReport(spec, cfg, plan, { metrics: fakeRun(plan) }, { now: NOW });
}

const close = (a: number, b: number) => Math.abs(a - b) < 1e-9 * Math.max(1, Math.abs(b));

test('cost per token: dollars per million output and input tokens per run, in every output', () => {
  // dflash: $2/GPU-h × 2 GPUs; mtp: its own $3/GPU-h, GPUS unset (1).
  const r = report({ GPU_HOUR_COST: '2', DFLASH_GPUS: '2', MTP_GPU_HOUR_COST: '3' });
  const j = JSON.parse(summaryJson(r));
  assert.equal(j.cost.unit, 'USD per million tokens');
  assert.equal(j.cost.runs.length, 4);
  for (const x of r.runs) {
    const rec = j.cost.runs.find((c: { variant: string; cell: string }) => c.variant === x.variant && c.cell === x.cellId);
    const perHour = x.variant === 'dflash' ? 4 : 3;
    assert.ok(x.throughput !== null && x.throughputCi !== null);
    assert.ok(close(rec.output_usd_per_million_tokens, (perHour / (x.throughput * 3600)) * 1e6), JSON.stringify(rec));
    assert.ok(close(rec.output_usd_per_million_tokens_ci[0], (perHour / (x.throughputCi.hi * 3600)) * 1e6));
    // Two input tokens per output token: half the price per input token.
    assert.ok(close(rec.input_usd_per_million_tokens, rec.output_usd_per_million_tokens / 2));
    assert.equal(rec.gpus, x.variant === 'dflash' ? 2 : 1);
    assert.equal(rec.gpus_set, x.variant === 'dflash');
    assert.equal(rec.not_measured, null);
  }
  const d1 = j.cost.runs.find((c: { variant: string; cell: string }) => c.variant === 'dflash' && c.cell.endsWith('c1'));
  const usd = `$${d1.output_usd_per_million_tokens.toFixed(2)}`;
  const text = renderText(r, []);
  assert.match(text, /\nCost per million tokens \(USD, at the measured throughput; GPU_HOUR_COST × GPUS\):\n/);
  assert.ok(text.includes(`  dflash i128_o64_c1: ${usd} [`), text);
  assert.ok(text.includes('per 1M output tokens'));
  const md = renderMarkdown(r);
  assert.ok(md.includes('## Cost per token') && md.includes(`| ${usd} [`), md);
  const html = renderHtml(r);
  assert.ok(html.includes('<h2>Cost per token</h2>') && html.includes(`${usd} [`));
});

test('cost not set: no section, summary.json cost null (never 0); throughput not measured: null with the reason', () => {
  const r = report({});
  assert.equal(JSON.parse(summaryJson(r)).cost, null);
  assert.doesNotMatch(renderText(r, []) + renderMarkdown(r) + renderHtml(r), /Cost per/);
  // Set for one variant only: the other's prices are null, said why.
  const one = JSON.parse(summaryJson(report({ DFLASH_GPU_HOUR_COST: '2' })));
  const mtp = one.cost.runs.filter((c: { variant: string }) => c.variant === 'mtp');
  assert.ok(mtp.every((c: Record<string, unknown>) => c.output_usd_per_million_tokens === null && c.input_usd_per_million_tokens === null));
  assert.match(mtp[0].not_measured, /GPU_HOUR_COST not set/);
});

test('bad GPU_HOUR_COST or GPUS: one error naming the variable', () => {
  assert.throws(() => report({ GPU_HOUR_COST: '0' }), /GPU_HOUR_COST='0' is not valid: expected dollars per GPU-hour/);
  assert.throws(() => report({ MTP_GPU_HOUR_COST: 'cheap' }), /MTP_GPU_HOUR_COST='cheap' is not valid/);
  assert.throws(() => report({ DFLASH_GPUS: '1.5' }), /DFLASH_GPUS='1.5' is not valid: expected a whole number/);
});

test('frontier: points per GPU against tok/s per user, each variant its frontier, the dominance sentence and a chart', () => {
  const r = report({ DFLASH_GPUS: '2', MTP_GPUS: '1' });
  const j = JSON.parse(summaryJson(r)).frontier;
  assert.equal(j.y, 'output tokens/s per GPU');
  const d = j.variants.find((v: { variant: string }) => v.variant === 'dflash');
  const run = (s: string) => r.runs.find((x) => x.scenario === s);
  assert.deepEqual(
    d.points.map((p: Record<string, number>) => [p.tokens_per_s_per_user, p.tokens_per_s_per_gpu]),
    [
      [100, (run('dflash_i128_o64_c1')?.throughput ?? NaN) / 2],
      [40, (run('dflash_i128_o64_c8')?.throughput ?? NaN) / 2],
    ],
  );
  assert.deepEqual(d.frontier, ['i128_o64_c8', 'i128_o64_c1']);
  // Per GPU: dflash ~50 at 100, ~200 at 40; mtp ~150 at 50, ~600 at 25.
  const sentence =
    'Up to 25.0 tok/s per user, mtp leads; above 25.0 and up to 40.0 tok/s per user, dflash leads; above ' +
    '40.0 and up to 50.0 tok/s per user, mtp leads; above 50.0 and up to 100 tok/s per user, only dflash ' +
    'reaches it.';
  assert.equal(j.dominance, sentence);
  const text = renderText(r, []);
  assert.match(text, /\nThroughput–interactivity frontier \(x: output tok\/s per user = 1000 \/ TPOT p50 ms; y: output tok\/s per GPU\):\n/);
  assert.match(text, / {2}dflash: 128\/64 c=8 \(40\.0 tok\/s per user, \d+(\.\d)? tok\/s per GPU\), 128\/64 c=1 \(100 tok\/s per user, /);
  assert.ok(text.includes(`  ${sentence}`));
  assert.ok(renderMarkdown(r).includes('## Throughput–interactivity frontier'));
  const html = renderHtml(r);
  assert.ok(html.includes('<h2>Throughput–interactivity frontier</h2>') && html.includes(sentence));
  assert.match(html, /data-series="dflash frontier"/);
  assert.match(html, /data-series="mtp runs"/);
  // GPUS unset: per deployment.
  assert.equal(JSON.parse(summaryJson(report({}))).frontier.y, 'output tokens/s per deployment');
});
