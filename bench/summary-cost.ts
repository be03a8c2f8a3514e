// Prints how long handleSummary takes on real k6 (its JavaScript engine is far slower than V8) for
// the compare benchmark at 6 variants × 48 cells: k6 runs dist/compare.js's own handleSummary on
// synthetic summary data with every key the thresholds declare, per-slice keys included, and the
// same call is timed in Node for the ratio.
//   npx tsx bench/summary-cost.ts [--variants 6] [--cells 48] [--k6 PATH]
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BENCHMARKS } from '../lib/benchmarks';
import { loadConfig } from '../lib/config/load';
import { planOf } from '../lib/plan/matrix';
import { summaryThresholds, TREND_STATS } from '../lib/plan/summary-keys';
import { METRICS } from '../lib/metrics/catalog';
import { buildReport } from '../lib/report/build-report';
import { summaryJson } from '../lib/report/render/summary-json';
import { renderHtml } from '../lib/report/render/html-report';
import { renderMarkdown } from '../lib/report/render/markdown-report';
import { renderText } from '../lib/report/render/text-report';
import type { SummaryMetrics } from '../lib/report/figures/run-figures';
import { findK6, INSTALL_K6 } from '../scripts/k6-runtime';

const arg = (name: string, def: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : def;
};
const V = Number(arg('variants', '6'));
const CELLS = Number(arg('cells', '48'));
const k6 = arg('k6', '') || findK6();
if (!k6) {
  console.error(INSTALL_K6);
  process.exit(1);
}
const ROOT = join(__dirname, '..');
const names = Array.from({ length: V }, (_, i) => `v${i}`);
// 4 ISL × 2 OSL × (cells ÷ 8) concurrencies: 48 cells by default.
const LEVELS = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512].slice(0, Math.max(1, Math.round(CELLS / 8)));
const env: Record<string, string> = {
  VARIANTS: names.join(','),
  ISL: '128,512,2048,8192',
  OSL: '128,512',
  CONCURRENCY: LEVELS.join(','),
  DURATION: '60s',
  SLICES: '6',
  RESULTS_DIR: '.',
};
names.forEach((n, i) => (env[`${n.toUpperCase()}_URL`] = `http://10.0.0.${i + 1}:8000`));
const spec = BENCHMARKS.compare;
const cfg = loadConfig(spec, env, new Date(0));
const plan = planOf(spec.load, cfg);
const keys = Object.keys(summaryThresholds(plan, cfg, true));
const byName = new Map<string, { type: string }>(Object.values(METRICS).map((d) => [d.name as string, d]));

// Each variant i a little faster than the one before, with slice-to-slice noise.
let seed = 1;
const noise = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648 - 0.5) * 0.1;
const metrics: SummaryMetrics = {};
for (const key of keys) {
  const name = key.split('{')[0];
  const type = byName.get(name)?.type ?? 'counter';
  const variant = /variant:(v\d+)/.exec(key)?.[1] ?? 'v0';
  const speed = 1 + 0.2 * Number(variant.slice(1));
  if (type === 'trend') {
    const v: Record<string, number> = { count: 600, avg: 500 / speed, min: 100, max: 2000, med: 480 / speed, 'p(90)': 700 / speed, 'p(99)': 900 / speed };
    for (const s of TREND_STATS) v[s] ??= 500 / speed;
    metrics[key] = { type, contains: 'time', values: v };
  } else if (type === 'rate') metrics[key] = { type, contains: 'default', values: { rate: 1, passes: 600, fails: 0 } };
  else metrics[key] = { type, contains: 'default', values: { count: Math.round(10_000 * speed * (1 + noise())), rate: 10 } };
}
const setupData = {
  runId: 'bench',
  variants: cfg.variants.map((t) => ({
    variant: t.variant,
    url: t.url,
    dialect: 'openai',
    model: 'm',
    engineLabel: 'vLLM',
    engine: 'vllm',
    metrics: null,
    notes: [],
  })),
  warnings: [],
  segment: null,
  sequence: null,
  failures: [],
};
const data = { metrics, setup_data: setupData, state: { testRunDurationMs: plan.totalMs } };

const dir = mkdtempSync(join(tmpdir(), 'summary-cost-'));
const dataFile = join(dir, 'data.json');
writeFileSync(dataFile, JSON.stringify(data));
const script = join(ROOT, 'dist', `.summary-cost-${process.pid}.js`);
writeFileSync(
  script,
  `const b = require(${JSON.stringify(join(ROOT, 'dist', 'compare.js'))});
const data = JSON.parse(open(${JSON.stringify(dataFile)}));
export const options = { scenarios: { once: { executor: 'shared-iterations', iterations: 1, vus: 1 } } };
export default function () {
  const t0 = Date.now();
  const out = b.handleSummary(data);
  const ms = Date.now() - t0;
  let bytes = 0;
  for (const k in out) bytes += out[k].length;
  console.log('HANDLE_SUMMARY ' + ms + ' ' + bytes);
}
export function handleSummary() { return {}; }
`,
);

const t0 = performance.now();
const report = buildReport(spec, cfg, plan, data as never, { now: new Date(0) });
const nodeBytes = [summaryJson(report), renderMarkdown(report), renderHtml(report), renderText(report, [])].reduce((a, s) => a + s.length, 0);
const nodeMs = performance.now() - t0;

// k6 prints console.log to stderr.
const k6Run = spawnSync(k6, ['run', '-q', '--no-usage-report', ...Object.entries(env).flatMap(([k, v]) => ['-e', `${k}=${v}`]), script], {
  cwd: dir,
  encoding: 'utf8',
  env: { ...process.env, K6_AUTO_EXTENSION_RESOLUTION: 'false' },
  timeout: 30 * 60_000,
});
rmSync(script, { force: true });
const out = `${k6Run.stdout}${k6Run.stderr}`;
const m = /HANDLE_SUMMARY (\d+) (\d+)/.exec(out);
if (!m) {
  console.error(`k6 did not report a time:\n${out.slice(-2000)}`);
  process.exit(1);
}
const k6Ms = Number(m[1]);
console.log(`compare, ${V} variants × ${plan.cells.length} cells = ${plan.runs.length} runs, ${keys.length} summary keys`);
console.log(`handleSummary on ${k6}: ${(k6Ms / 1000).toFixed(2)} s, ${(Number(m[2]) / 1e6).toFixed(1)} MB of reports`);
console.log(`the same in Node (V8): ${(nodeMs / 1000).toFixed(2)} s, ${(nodeBytes / 1e6).toFixed(1)} MB; k6 ÷ Node ${(k6Ms / nodeMs).toFixed(1)}×`);
console.log(`verdicts: ${report.versus?.entries.length ?? 0} (${report.versus?.entries.filter((e) => e.standing === 'faster').length ?? 0} faster)`);
