// What the raw record costs: k6's CPU and the disk it writes, with and without `--out json`, at
// N streaming VUs (xk6-sse) against the simulator (its own process, time-scaled). Modes run
// alternately, each on a fresh simulator; k6's CPU is the whole process's (user + sys, from
// bash's `times` after it exits), per token event (ITL samples + first tokens), so that a k6 that
// reads fewer events under the extra cost is not flattered. Prints figures; asserts nothing.
//   npx tsx bench/raw-cost.ts [--vus 256] [--duration 30s] [--time-scale 4] [--repeat 2]
//                             [--modes none,json.gz,json] [--k6 PATH]
import { createReadStream, existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createGunzip } from 'node:zlib';
import { findK6 } from '../scripts/k6-runtime';
import { QUIET_K6_ENV, ROOT, runMeasured, spawnSimProcess } from './proc';

const arg = (name: string, def: string): string => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? (process.argv[i + 1] ?? def) : def;
};
const VUS = Number(arg('vus', '256'));
const DURATION = arg('duration', '30s');
const TIME_SCALE = Number(arg('time-scale', '4'));
const REPEAT = Number(arg('repeat', '2'));
const MODES = arg('modes', 'none,json.gz,json').split(',');
const K6 = arg('k6', '') || findK6();
const BUNDLE = resolve(ROOT, arg('bundle', 'dist/sse/context-matrix.js'));

interface Figures {
  mode: string;
  exit: number;
  cpuSec: number;
  wallSec: number;
  events: number;
  requests: number;
  bytes: number | null;
  rawBytes: number | null;
  lines: number | null;
  peakRssMb: number;
}

/** Bytes and lines of a record once decompressed. */
async function inflate(path: string): Promise<{ bytes: number; lines: number }> {
  let bytes = 0;
  let lines = 0;
  const src = createReadStream(path);
  const stream = path.endsWith('.gz') ? src.pipe(createGunzip()) : src;
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    bytes += chunk.length;
    for (let i = chunk.indexOf(10); i >= 0; i = chunk.indexOf(10, i + 1)) lines++;
  }
  return { bytes, lines };
}

async function runOnce(mode: string): Promise<Figures> {
  const sim = await spawnSimProcess({
    engine: 'sglang',
    timeScale: TIME_SCALE,
    seed: 11,
    maxRunning: Math.max(256, VUS),
    kvCapacity: 100_000_000,
    recordLimit: 1000,
  });
  const dir = mkdtempSync(join(tmpdir(), 'raw-cost-'));
  const raw = mode === 'none' ? null : join(dir, `cost.raw.${mode}`);
  const env = {
    ...process.env,
    ...QUIET_K6_ENV,
    TARGET_URL: sim.url,
    TRANSPORT: 'sse',
    ISL: '128',
    OSL: '256',
    CONCURRENCY: String(VUS),
    DURATION,
    REQUEST_TIMEOUT: '60s',
    GRACEFUL_STOP: '30s',
    WARMUP_REQUESTS: '1',
    RESULTS_DIR: dir,
    RUN_ID: 'cost',
  };
  const run = await runMeasured([K6 as string, 'run', '-q', '--address', '', ...(raw ? ['--out', `json=${raw}`] : []), BUNDLE], env, dir);
  await sim.stop();
  let events = 0;
  let requests = 0;
  try {
    const s = JSON.parse(readFileSync(join(dir, 'cost.summary.json'), 'utf8')) as {
      records: Array<{ requests_ok: number; itl_ms: { count: number } | null; ttft_ms: { count: number } | null }>;
    };
    const r = s.records[0];
    requests = r.requests_ok;
    events = (r.itl_ms?.count ?? 0) + (r.ttft_ms?.count ?? 0);
  } catch {
    console.error(`${mode}: no summary.json (exit ${run.exit}): ${run.output.slice(-1500)}`);
  }
  const size = raw && existsSync(raw) ? statSync(raw).size : null;
  const inflated = raw && existsSync(raw) ? await inflate(raw) : null;
  rmSync(dir, { recursive: true, force: true });
  return {
    mode,
    exit: run.exit,
    cpuSec: run.cpuSec,
    wallSec: run.wallSec,
    events,
    requests,
    bytes: size,
    rawBytes: inflated?.bytes ?? null,
    lines: inflated?.lines ?? null,
    peakRssMb: run.peakRssMb,
  };
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

async function main(): Promise<void> {
  if (!K6) throw new Error('no k6: give --k6 PATH or set K6_BIN (a build with xk6-sse)');
  console.log(`raw record cost: ${VUS} sse streams, ${DURATION}, simulator time-scale ${TIME_SCALE}, ${REPEAT} run(s) per mode, alternating; k6 ${K6}`);
  const all: Figures[] = [];
  for (let i = 0; i < REPEAT; i++) {
    for (const mode of MODES) {
      const f = await runOnce(mode);
      all.push(f);
      const mb = f.bytes === null ? '-' : (f.bytes / 2 ** 20).toFixed(1);
      console.log(
        `  ${mode.padEnd(8)} exit ${f.exit}  k6 CPU ${f.cpuSec.toFixed(1)} s over ${f.wallSec.toFixed(0)} s, ` +
          `${f.events} token events (${((f.cpuSec / f.events) * 1e6).toFixed(1)} µs each), ${f.requests} requests, ` +
          `peak RSS ${f.peakRssMb.toFixed(0)} MB, record ${mb} MB` +
          (f.lines === null ? '' : ` (${f.lines} lines, ${((f.rawBytes as number) / 2 ** 20).toFixed(0)} MB as text)`),
      );
    }
  }
  console.log('\nmedians:');
  const base = median(all.filter((f) => f.mode === 'none').map((f) => f.cpuSec / f.events));
  for (const mode of MODES) {
    const fs = all.filter((f) => f.mode === mode);
    const perEvent = median(fs.map((f) => f.cpuSec / f.events));
    const line = [`  ${mode.padEnd(8)} ${(perEvent * 1e6).toFixed(1)} µs of k6 CPU per token event`];
    if (mode !== 'none' && Number.isFinite(base)) line.push(`(${perEvent > base ? '+' : ''}${(((perEvent - base) / base) * 100).toFixed(0)} % vs none)`);
    line.push(`${median(fs.map((f) => f.events / f.wallSec)).toFixed(0)} events/s`);
    const withBytes = fs.filter((f) => f.bytes !== null && f.lines);
    if (withBytes.length) {
      const perSample = median(withBytes.map((f) => (f.bytes as number) / (f.lines as number)));
      const perEventBytes = median(withBytes.map((f) => (f.bytes as number) / f.events));
      const perHour = median(withBytes.map((f) => ((f.bytes as number) / f.wallSec) * 3600)) / 2 ** 30;
      const ratio = median(withBytes.map((f) => (f.rawBytes as number) / (f.bytes as number)));
      line.push(
        `record ${perSample.toFixed(1)} bytes per sample, ${perEventBytes.toFixed(0)} bytes per token event, ` +
          `${perHour.toFixed(2)} GiB per hour at this rate (compression ${ratio.toFixed(1)}:1)`,
      );
    }
    console.log(line.join(', '));
  }
}

main().catch((e: unknown) => {
  console.error((e as Error).stack ?? e);
  process.exit(1);
});
