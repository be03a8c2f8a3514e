// Can one k6 process drive many concurrent requests with this suite, and what does the suite's
// per-request work (building, parsing, metrics) cost next to a bare k6 script sending the same
// requests? Needs a real k6 (K6_BIN or PATH). Prints figures; asserts nothing.
//   npx tsx bench/k6-load.ts [--vus 1000] [--duration 30s]
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSim } from '../sim/index';
import { findK6, INSTALL_K6 } from '../scripts/k6-runtime';
import { tokenPromptPool } from '../lib/workload/seeded-prompts';
import { QUIET_K6_ENV, ROOT, runMeasured } from './proc';

const arg = (name: string, def: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : def;
};
const VUS = Number(arg('vus', '1000'));
const DURATION = arg('duration', '30s');
const ISL = 128;
const OSL = 32;

interface Measure {
  requests: number;
  cpuSec: number;
  peakRssMb: number;
  wallSec: number;
}

/** k6's CPU, peak memory and the requests it counted. */
async function runK6(k6: string, args: string[], env: NodeJS.ProcessEnv, countFrom: (out: string) => number): Promise<Measure> {
  const run = await runMeasured([k6, ...args], env, ROOT);
  return { requests: countFrom(run.output), cpuSec: run.cpuSec, peakRssMb: run.peakRssMb, wallSec: run.wallSec };
}

/** A bare k6 script sending the same requests (the same prompt pool, in the same dialect), nothing else. */
function bareScript(dir: string, url: string, vus: number, duration: string): string {
  const pool = tokenPromptPool({ isl: ISL, poolSize: 64, seed: 1, vocabSize: 32000, idFloor: 1000, sharedPrefix: 0, spread: 0 });
  const file = join(dir, `bare-${vus}-${duration}.js`);
  writeFileSync(
    file,
    `const http = require('k6/http');
const prompts = ${JSON.stringify(pool)};
const bodies = prompts.map((p) => '{"input_ids":' + p + ',"sampling_params":{"max_new_tokens":${OSL},"temperature":0,"ignore_eos":true},` +
      `"stream":false}');
exports.options = { scenarios: { s: { executor: 'constant-vus', vus: ${vus}, duration: '${duration}', gracefulStop: '30s' } }, ` +
      `summaryTrendStats: ['avg'] };
exports.default = function () { http.post('${url}/generate', bodies[(__VU * 7 + __ITER) % 64], { headers: { 'Content-Type': ` +
      `'application/json' }, timeout: 30000 }); };
exports.handleSummary = function (d) { return { stdout: 'REQUESTS ' + d.metrics.http_reqs.values.count + '\\n' }; };
`,
  );
  return file;
}

async function main() {
  const k6 = findK6();
  if (!k6) {
    console.error(INSTALL_K6);
    process.exit(1);
  }
  const env = { ...process.env, ...QUIET_K6_ENV };
  const dir = mkdtempSync(join(tmpdir(), 'k6-load-'));
  const bareCount = (o: string) => Number(/REQUESTS (\d+)/.exec(o)?.[1] ?? 0);
  const suiteCount = (runId: string) => () => {
    const s = JSON.parse(readFileSync(join(dir, `${runId}.summary.json`), 'utf8')) as { records: Array<{ requests: number }> };
    return s.records[0].requests;
  };
  const suite = (url: string, vus: number, duration: string, runId: string) =>
    runK6(
      k6,
      ['run', '-q', join(ROOT, 'dist', 'context-matrix.js')],
      {
        ...env,
        TARGET_URL: url,
        DIALECT: 'sglang',
        ISL: String(ISL),
        OSL: String(OSL),
        CONCURRENCY: String(vus),
        DURATION: duration,
        REQUEST_TIMEOUT: '30s',
        GRACEFUL_STOP: '30s',
        WARMUP_REQUESTS: '0',
        SERVER_METRICS: 'off',
        RESULTS_DIR: dir,
        RUN_ID: runId,
      },
      suiteCount(runId),
    );
  const header = 'script          requests   req/s   CPU µs/request   peak RSS MB   KB per VU';
  const row = (name: string, m: Measure, vus: number) =>
    `${name.padEnd(14)} ${String(m.requests).padStart(9)} ${(m.requests / m.wallSec).toFixed(0).padStart(8)} ` +
    `${((m.cpuSec / m.requests) * 1e6).toFixed(0).padStart(13)} ${m.peakRssMb.toFixed(0).padStart(12)} ${((m.peakRssMb / vus) * 1024).toFixed(0).padStart(13)}`;

  // 1. Many VUs: does one k6 process hold them, and what does a VU cost in memory?
  {
    const sim = await startSim({ engine: 'sglang', spec: 'dflash', port: 0, maxRunning: 4096, kvCapacity: 100_000_000, timeScale: 1, recordLimit: 1000 });
    console.log(
      `\n1. ${VUS} concurrent VUs for ${DURATION} against one simulated SGLang (real time), ISL ${ISL}, OSL ${OSL}; 2 cores shared by k6 and the simulator.`,
    );
    const bare = await runK6(k6, ['run', '-q', bareScript(dir, sim.url, VUS, DURATION)], env, bareCount);
    const ours = await suite(sim.url, VUS, DURATION, 'many');
    await sim.stop();
    console.log(header);
    console.log(row('bare k6', bare, VUS));
    console.log(row('k6-llm-bench', ours, VUS));
    console.log(
      `memory per VU: ${((ours.peakRssMb / VUS) * 1024).toFixed(0)} KB (suite) vs ${((bare.peakRssMb / VUS) * 1024).toFixed(0)} ` +
        `KB (bare), ratio ${(ours.peakRssMb / bare.peakRssMb).toFixed(2)}×`,
    );
  }

  // 2. Per-request CPU at the margin: two durations each, so init, setup and the summary (paid once)
  // cancel out: (CPU(long) − CPU(short)) / (requests(long) − requests(short)).
  {
    const vus = 32;
    const sim = await startSim({ engine: 'sglang', spec: 'dflash', port: 0, timeScale: 20, recordLimit: 1000 });
    console.log(`\n2. Marginal CPU per request: ${vus} VUs, 10 s and 30 s runs, simulator 20× faster than real time.`);
    const b1 = await runK6(k6, ['run', '-q', bareScript(dir, sim.url, vus, '10s')], env, bareCount);
    const b2 = await runK6(k6, ['run', '-q', bareScript(dir, sim.url, vus, '30s')], env, bareCount);
    const s1 = await suite(sim.url, vus, '10s', 'short');
    const s2 = await suite(sim.url, vus, '30s', 'long');
    await sim.stop();
    const marginal = (a: Measure, b: Measure) => ((b.cpuSec - a.cpuSec) / (b.requests - a.requests)) * 1e6;
    const mb = marginal(b1, b2);
    const ms = marginal(s1, s2);
    console.log(header);
    for (const [n, m] of [
      ['bare 10s', b1],
      ['bare 30s', b2],
      ['suite 10s', s1],
      ['suite 30s', s2],
    ] as Array<[string, Measure]>)
      console.log(row(n, m, vus));
    console.log(
      `marginal CPU per request: bare ${mb.toFixed(0)} µs, suite ${ms.toFixed(0)} µs: suite ÷ bare = ${(ms / mb).toFixed(2)}× ` +
        `(${((ms / mb - 1) * 100).toFixed(0)}% more)`,
    );
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
