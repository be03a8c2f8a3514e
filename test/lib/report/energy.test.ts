// The energy-per-token section from a synthetic end-of-test summary: joules over the steady slices
// ÷ the output tokens of the same slices, with the per-slice interval, in every output; a variant
// without GPU_METRICS_URL, or whose probe failed, is null with its reason, never 0.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadConfig } from '../../../lib/config/load';
import { BENCHMARKS } from '../../../lib/benchmarks';
import { buildCells, buildPlan, probeScenario, type Plan } from '../../../lib/plan/matrix';
import { subKey } from '../../../lib/plan/summary-keys';
import type { SummaryMetrics } from '../../../lib/report/figures/run-figures';
import { buildReport } from '../../../lib/report/build-report';
import { renderText } from '../../../lib/report/render/text-report';
import { summaryJson } from '../../../lib/report/render/summary-json';
import { renderMarkdown } from '../../../lib/report/render/markdown-report';
import { renderHtml } from '../../../lib/report/render/html-report';

const NOW = new Date('2026-11-29T20:15:00Z');
const counter = (count: number) => ({ type: 'counter', contains: 'default', values: { count, rate: 0 } });
const one = (v: number) => ({ type: 'trend', values: { avg: v, min: v, med: v, max: v, 'p(90)': v, 'p(95)': v, 'p(99)': v, count: 1 } });
const TOKENS = [50, 1000, 1100, 900];
const JOULES = [0, 500, 560, 430];

function fakeRun(plan: Plan, gpuFailed: boolean): SummaryMetrics {
  const m: SummaryMetrics = {};
  for (const run of plan.runs) {
    const probe = probeScenario(run);
    for (let s = 0; s < plan.slices; s++) {
      m[subKey('windowTokens', run.scenario, { slice: String(s) })] = counter(TOKENS[s]);
      m[subKey('windowRequests', run.scenario, { slice: String(s) })] = counter(4);
      if (run.variant === 'dflash' && !gpuFailed) m[subKey('gpuEnergy', probe, { slice: String(s) })] = counter(JOULES[s]);
    }
    m[subKey('outputTokens', run.scenario)] = counter(3050);
    m[subKey('success', run.scenario)] = { type: 'rate', values: { rate: 1, passes: 24, fails: 0 } };
    if (run.variant !== 'dflash') continue;
    if (gpuFailed) {
      m[subKey('gpuNotMeasured', probe, { gpu_reason: 'unreachable' })] = counter(1);
      continue;
    }
    m[subKey('gpuCount', probe, { gpu_exporter: 'dcgm', gpu_energy_source: 'energy-counter' })] = counter(2);
    m[subKey('gpuPower', probe)] = one(497.5);
    m[subKey('gpuUtilization', probe)] = one(88);
    m[subKey('gpuMemoryUsed', probe)] = one(40_960);
  }
  return m;
}

function report(env: Record<string, string>, gpuFailed = false) {
  const spec = BENCHMARKS['dflash-vs-mtp'];
  const cfg = loadConfig(
    spec,
    { DFLASH_URL: 'http://a:1', MTP_URL: 'http://b:2', ISL: '128', OSL: '64', CONCURRENCY: '8', DURATION: '4s', SLICES: '4', ...env },
    NOW,
  );
  const cells = buildCells(cfg.isl, cfg.osl, [{ kind: 'vus' as const, vus: 8 }]);
  const plan = buildPlan(cfg, cells, ['dflash', 'mtp']);
  return buildReport(spec, cfg, plan, { metrics: fakeRun(plan, gpuFailed) }, { now: NOW });
}

test('J per output token over the steady slices, its interval, power, utilisation, memory: in every output', () => {
  const r = report({ DFLASH_GPU_METRICS_URL: 'http://gpu-a:9400/metrics' });
  const j = JSON.parse(summaryJson(r)) as { energy: { runs: Array<Record<string, unknown>> } };
  const d = j.energy.runs.find((x) => x.variant === 'dflash') as Record<string, number | number[] | string | null>;
  // The ramp-up slice (slice 0) is left out, as from the throughput.
  assert.equal(d.j_per_output_token, (500 + 560 + 430) / (1000 + 1100 + 900));
  assert.equal(d.joules, 1490);
  assert.equal(d.output_tokens, 3000);
  const ci = d.j_per_output_token_ci as number[];
  assert.ok(ci[0] < 0.4967 && ci[1] > 0.4967 && ci[0] > 0.3 && ci[1] < 0.7, `${ci}`);
  assert.equal(d.mean_power_w, 497.5);
  assert.equal(d.gpus, 2);
  assert.equal(d.energy_source, 'energy-counter');
  assert.equal(d.not_measured, null);
  const m = j.energy.runs.find((x) => x.variant === 'mtp') as Record<string, unknown>;
  assert.equal(m.j_per_output_token, null, 'never 0');
  assert.equal(m.not_measured, 'GPU_METRICS_URL not set for this variant');
  assert.match(
    renderText(r, []),
    /dflash i128_o64_c8: 0\.497 J\/token \[[\d.]+, [\d.]+\], 498 W mean over 2 GPU\(s\), 88% utilisation, 40\.0 GiB used \(NVIDIA DCGM exporter, energy counter\)/,
  );
  assert.match(renderText(r, []), /mtp i128_o64_c8: not measured \(GPU_METRICS_URL not set for this variant\)/);
  assert.match(renderMarkdown(r), /## Energy per token[\s\S]*\| 128\/64 c=8 \| dflash \| 0\.497 J\/token/);
  assert.match(renderHtml(r), /<h2>Energy per token<\/h2>[\s\S]*0\.497 J\/token/);
});

test('no GPU_METRICS_URL: no section in the reports, every run null with the reason; a failed probe says why', () => {
  const r = report({});
  const j = JSON.parse(summaryJson(r)) as { energy: { runs: Array<Record<string, unknown>> } };
  assert.ok(j.energy.runs.every((x) => x.j_per_output_token === null && x.not_measured === 'GPU_METRICS_URL not set for this variant'));
  assert.doesNotMatch(renderMarkdown(r), /Energy per token/);
  assert.doesNotMatch(renderText(r, []), /Energy per output token/);
  const failed = JSON.parse(summaryJson(report({ GPU_METRICS_URL: 'http://gpu:9400/metrics' }, true))) as { energy: { runs: Array<Record<string, unknown>> } };
  const d = failed.energy.runs.find((x) => x.variant === 'dflash') as Record<string, unknown>;
  assert.equal(d.j_per_output_token, null);
  assert.equal(d.not_measured, 'the GPU exporter did not answer (GPU_METRICS_URL)');
});

test('GPU_METRICS_URL must be a URL without credentials: one clear message', () => {
  assert.throws(() => report({ GPU_METRICS_URL: 'gpu:9400' }), /GPU_METRICS_URL.*http:\/\/ or https:\/\/ URL/);
  assert.throws(
    () => report({ MTP_GPU_METRICS_URL: 'http://u:secret@gpu/metrics' }),
    (e: Error) => /MTP_GPU_METRICS_URL/.test(e.message) && !/secret/.test(e.message),
  );
});
