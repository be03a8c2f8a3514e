// Synthetic summary.json files, made the way a run makes them: k6 summary metrics for a plan
// (per-slice tokens, requests and e2e sums with seeded noise) through buildReport and summaryJson.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BENCHMARKS } from '../../../lib/benchmarks';
import { loadConfig } from '../../../lib/config/load';
import { planOf, probeScenario } from '../../../lib/plan/matrix';
import { subKey } from '../../../lib/plan/summary-keys';
import { summaryJson } from '../../../lib/report/render/summary-json';
import type { SummaryMetrics } from '../../../lib/report/figures/run-figures';
import { buildReport } from '../../../lib/report/build-report';
import { mulberry32 } from '../../../lib/stats/rng';

const NOW = new Date('2026-12-03T10:00:00Z');

export interface FakeRun {
  /** Every duration × this: 1.1 is a run 10% slower. */
  slow?: number;
  /** With REPEATS: each repeat's durations × its factor too (drift between repeats). */
  drift?: number[];
  /** SLICES (the first is ramp-up and left out). */
  slices?: number;
  /** Seed of the per-slice noise: two seeds are two runs of one workload. */
  noise?: number;
  /** Relative per-slice noise amplitude (uniform ±). */
  wobble?: number;
  env?: Record<string, string>;
  runId?: string;
  /** Engine reported by preflight, per variant. */
  engine?: string;
  /** GPU telemetry: J per output token by variant (its <PREFIX>_GPU_METRICS_URL set), with the slices' noise. */
  energy?: Record<string, number>;
}

const counter = (count: number) => ({ type: 'counter', contains: 'default', values: { count, rate: 0 } });
const trend = (avg: number, count: number) => ({
  type: 'trend',
  contains: 'time',
  values: { avg, min: avg, med: avg, max: avg, 'p(90)': avg, 'p(95)': avg, 'p(99)': avg, count },
});

/** A dflash-vs-mtp A/B at c=1 and c=8 (two cells × two variants); DURATION 60s. */
export function fakeSummary(o: FakeRun = {}): string {
  const spec = BENCHMARKS['dflash-vs-mtp'];
  const env = {
    DFLASH_URL: 'http://a:1',
    MTP_URL: 'http://b:2',
    ISL: '128',
    OSL: '64',
    CONCURRENCY: '1,8',
    DURATION: '60s',
    SLICES: String(o.slices ?? 11),
    RUN_ID: o.runId ?? 'run',
    ...Object.fromEntries(Object.keys(o.energy ?? {}).map((v) => [`${v.toUpperCase()}_GPU_METRICS_URL`, 'http://gpu:9400/metrics'])),
    ...o.env,
  };
  const cfg = loadConfig(spec, env, NOW);
  const plan = planOf(spec.load, cfg);
  const rng = mulberry32(o.noise ?? 1);
  const slow = o.slow ?? 1;
  const wobble = o.wobble ?? 0.03;
  const m: SummaryMetrics = {};
  const sliceSec = plan.sliceMs / 1000;
  for (const run of plan.runs) {
    const vus = run.cell.load.kind === 'vus' ? run.cell.load.vus : 1;
    // Per request: 64 tokens in 0.5 s (dflash) or 1 s (mtp) at c=1, 1.5× longer at c=8.
    const e2eMs = (run.variant === 'dflash' ? 500 : 1000) * (vus > 1 ? 1.5 : 1) * slow * (o.drift?.[(run.repeat ?? 1) - 1] ?? 1);
    let reqs = 0;
    let tokens = 0;
    let e2eSum = 0;
    for (let s = 0; s < plan.slices; s++) {
      const f = 1 + wobble * (2 * rng() - 1);
      const perSec = (vus / (e2eMs / 1000)) * f;
      const q = Math.max(1, Math.round(perSec * sliceSec));
      const e = q * e2eMs * (1 + wobble * (2 * rng() - 1));
      m[subKey('windowTokens', run.scenario, { slice: String(s) })] = counter(perSec * 64 * sliceSec);
      m[subKey('windowRequests', run.scenario, { slice: String(s) })] = counter(q);
      m[subKey('windowE2e', run.scenario, { slice: String(s) })] = counter(e);
      const jpt = o.energy?.[run.variant];
      if (jpt !== undefined)
        m[subKey('gpuEnergy', probeScenario(run), { slice: String(s) })] = counter(jpt * perSec * 64 * sliceSec * (1 + wobble * (2 * rng() - 1)));
      tokens += Math.round(perSec * 64 * sliceSec);
      reqs += q;
      e2eSum += e;
    }
    m[subKey('outputTokens', run.scenario)] = counter(tokens);
    if (o.energy?.[run.variant] !== undefined)
      m[subKey('gpuCount', probeScenario(run), { gpu_exporter: 'dcgm', gpu_energy_source: 'energy-counter' })] = counter(1);
    m[subKey('success', run.scenario)] = { type: 'rate', values: { rate: 1, passes: reqs, fails: 0 } };
    m[subKey('e2e', run.scenario)] = trend(e2eSum / reqs, reqs);
  }
  const setup = {
    runId: env.RUN_ID,
    variants: cfg.variants.map((t) => ({
      variant: t.variant,
      url: t.url,
      dialect: 'sglang',
      model: 'qwen3-32b-sim',
      engineLabel: o.engine ?? 'SGLang',
      engine: 'sglang',
      metrics: null,
      notes: [],
    })),
    warnings: [],
    failures: [],
    segment: null,
    sequence: null,
  };
  const report = buildReport(spec, cfg, plan, { metrics: m, setup_data: setup as never }, { now: NOW });
  return summaryJson(report);
}

/** Writes files into a fresh folder; returns their paths by name. */
export function writeFiles(files: Record<string, string>): { dir: string; path: (name: string) => string } {
  const dir = mkdtempSync(join(tmpdir(), 'llm-bench-compare-'));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return { dir, path: (name) => join(dir, name) };
}
