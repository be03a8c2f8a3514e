// DATASET at scale on a real k6: a 100 MB JSONL file (prompts of 200–2,000 characters in four
// domains) read once at init into SharedArrays, then 1,000 VUs sending its prompts. Prints how long
// loading takes (from k6's start to setup's dataset line, against the same run without DATASET) and
// memory: peak RSS with 1 VU and with 1,000 VUs, with and without the dataset, and so the memory
// per VU and what the dataset adds per VU. Needs the bundles (npm run build) and a k6 (K6_BIN,
// PATH or /work/k6build/bin/k6). Prints figures; asserts nothing.
//   npx tsx bench/dataset-k6.ts [--mb 100] [--vus 1000] [--duration 20s]
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSim } from '../sim/index';
import { findK6 } from '../scripts/k6-runtime';
import { randInt, rngFor } from '../lib/stats/rng';
import { QUIET_K6_ENV } from './proc';

const ROOT = join(__dirname, '..');
const arg = (name: string, def: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? (process.argv[i + 1] as string) : def;
};
const MB = Number(arg('mb', '100'));
const VUS = Number(arg('vus', '1000'));
const DURATION = arg('duration', '20s');

function dataset(path: string): { items: number; bytes: number } {
  const rng = rngFor(7, 'dataset-k6');
  const WORDS = (
    'the of model token server request latency batch prompt cache decode draft verify accept length ' +
    'window slice write function prove integral summarise article'
  ).split(' ');
  const DOMAINS = ['code', 'math', 'chat', 'summarization'];
  const sentence = (chars: number) => {
    const w: string[] = [];
    let n = 0;
    while (n < chars) {
      const x = WORDS[randInt(rng, 0, WORDS.length)] as string;
      w.push(x);
      n += x.length + 1;
    }
    return w.join(' ');
  };
  const target = MB * 1024 * 1024;
  const lines: string[] = [];
  let size = 0;
  while (size < target) {
    const s = JSON.stringify({ prompt: sentence(randInt(rng, 200, 2000)), domain: DOMAINS[lines.length % 4], output_tokens: 16 });
    lines.push(s);
    size += s.length + 1;
  }
  writeFileSync(path, lines.join('\n') + '\n');
  return { items: lines.length, bytes: statSync(path).size };
}

interface Measure {
  exitCode: number | null;
  /** From spawning k6 to setup's dataset line (or its first line, without DATASET), and to the first run's start. */
  toSetupMs: number | null;
  toRunMs: number | null;
  /** Peak RSS over the whole run (VmHWM: the dataset's parse at init included), and the largest RSS while the load ran. */
  peakRssMb: number;
  loadRssMb: number;
  wallMs: number;
  datasetLine: string;
}

function runK6(k6: string, env: NodeJS.ProcessEnv): Promise<Measure> {
  return new Promise((resolve) => {
    const t0 = Date.now();
    const child = spawn(k6, ['run', '-q', join(ROOT, 'dist', 'context-matrix.js')], { env, cwd: ROOT });
    let out = '';
    let toSetupMs: number | null = null;
    let toRunMs: number | null = null;
    let datasetLine = '';
    const onData = (d: Buffer) => {
      out += d.toString();
      if (toSetupMs === null && (env.DATASET ? /DATASET=.*prompts \(/.test(out) : /k6-llm-bench context-matrix: \d+ cell/.test(out))) {
        toSetupMs = Date.now() - t0;
        datasetLine = /msg="(DATASET=[^"]*)"/.exec(out)?.[1] ?? '';
      }
      if (toRunMs === null && /▶ run 1\//.test(out)) toRunMs = Date.now() - t0;
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    let peak = 0;
    let load = 0;
    const poll = setInterval(() => {
      try {
        const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
        const hwm = /VmHWM:\s+(\d+) kB/.exec(status);
        if (hwm) peak = Math.max(peak, Number(hwm[1]) / 1024);
        const rss = /VmRSS:\s+(\d+) kB/.exec(status);
        if (rss && toRunMs !== null) load = Math.max(load, Number(rss[1]) / 1024);
      } catch {
        // exited
      }
    }, 200);
    child.on('exit', (code) => {
      clearInterval(poll);
      if (code !== 0) console.error(out.slice(-2000));
      resolve({ exitCode: code, toSetupMs, toRunMs, peakRssMb: peak, loadRssMb: load, wallMs: Date.now() - t0, datasetLine });
    });
  });
}

async function main() {
  const k6 = process.env.K6_BIN ?? findK6();
  if (!k6) throw new Error('no k6: set K6_BIN');
  const dir = mkdtempSync(join(tmpdir(), 'dataset-k6-'));
  const file = join(dir, 'prompts.jsonl');
  const t = Date.now();
  const ds = dataset(file);
  console.log(
    `${file}: ${(ds.bytes / 1024 / 1024).toFixed(0)} MB, ${ds.items} prompts of 200–2,000 characters, 4 domains ` +
      `(written in ${((Date.now() - t) / 1000).toFixed(1)} s); k6: ${k6}`,
  );
  const sim = await startSim({
    engine: 'sglang',
    spec: 'none',
    port: 0,
    maxRunning: 4096,
    kvCapacity: 100_000_000,
    timeScale: 4,
    recordLimit: 1000,
    prefixCaching: false,
  });
  const env = (vus: number, withDataset: boolean): NodeJS.ProcessEnv => ({
    ...process.env,
    ...QUIET_K6_ENV,
    TARGET_URL: sim.url,
    DIALECT: 'sglang',
    ISL: '256',
    OSL: '16',
    CONCURRENCY: String(vus),
    DURATION,
    PROMPT_POOL: '2000',
    WARMUP_REQUESTS: '0',
    SERVER_METRICS: 'off',
    RESULTS_DIR: dir,
    RUN_ID: `r${vus}${withDataset ? 'd' : ''}`,
    ...(withDataset ? { DATASET: file } : {}),
  });
  const rows: Array<[string, Measure]> = [];
  for (const [vus, withDataset] of [
    [1, false],
    [1, true],
    [VUS, false],
    [VUS, true],
  ] as Array<[number, boolean]>) {
    const m = await runK6(k6, env(vus, withDataset));
    rows.push([`${vus} VU${vus > 1 ? 's' : ''}${withDataset ? `, ${MB} MB dataset` : ', token ids'}`, m]);
    if (m.datasetLine) console.log(`  ${m.datasetLine}`);
  }
  await sim.stop();
  rmSync(dir, { recursive: true, force: true });
  const s = (ms: number | null) => (ms === null ? '–' : `${(ms / 1000).toFixed(1)} s`);
  const mb = (x: number) => `${x.toFixed(0)} MB`;
  console.log('\nrun                          exit   to setup line   to first run   peak RSS   RSS under load');
  for (const [name, m] of rows)
    console.log(
      `${name.padEnd(28)} ${String(m.exitCode).padStart(4)} ${s(m.toSetupMs).padStart(15)} ${s(m.toRunMs).padStart(14)} ` +
        `${mb(m.peakRssMb).padStart(10)} ${mb(m.loadRssMb).padStart(16)}`,
    );
  const [one, oneD, many, manyD] = rows.map((r) => r[1]) as [Measure, Measure, Measure, Measure];
  const kb = (x: number) => `${(x * 1024).toFixed(0)} KB`;
  console.log(
    `\nloading the dataset (setup's line, with − without, 1 VU): ${s((oneD.toSetupMs ?? 0) - (one.toSetupMs ?? 0))}; ` +
      `to the first run with ${VUS} VUs: ${s(manyD.toRunMs)} (without: ${s(many.toRunMs)})` +
      `\nmemory per VU under load, ${VUS} VUs with the dataset: ${kb(manyD.loadRssMb / VUS)} (all of k6's RSS ÷ VUs), peak ${kb(manyD.peakRssMb / VUS)}; ` +
      `marginal ${kb((manyD.loadRssMb - oneD.loadRssMb) / (VUS - 1))} ((${VUS} VUs − 1 VU) ÷ ${VUS - 1})` +
      `\nwithout the dataset: ${kb(many.loadRssMb / VUS)} per VU; the dataset adds ${kb((manyD.loadRssMb - many.loadRssMb) / VUS)} per VU under load` +
      (`\nthe dataset's transient peak at init: ${mb(oneD.peakRssMb - one.peakRssMb)} (1 VU, with − without); ` +
        `under load with 1 VU it holds ${mb(oneD.loadRssMb - one.loadRssMb)}`),
  );
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
