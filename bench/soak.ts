// Does a long run stay flat? One context-matrix cell of N streaming VUs (xk6-sse) against the
// simulator (in its own process, time-scaled) for a long time, with the raw record on as
// `npm start` writes it; every minute k6's and the simulator's resident memory (and CPU, and the
// raw record's size), at the end the slope of each memory line (MB per hour, least squares over
// the minutes after the warm-up, ± its standard error). Needs a k6 built with xk6-sse.
// Prints figures; asserts nothing.
//   npx tsx bench/soak.ts [--minutes 30] [--vus 256] [--time-scale 4] [--k6 PATH]
//                         [--bundle dist/sse/context-matrix.js] [--no-raw] [--warmup 5]
//                         [--record-limit 10000] [--nice 0] [--keep] [--k6-args '--summary-mode=disabled --no-thresholds']
//                         [--chart]
// --chart adds a Mermaid line chart of k6's and the simulator's memory by minute (GitHub renders it
// in a job summary: the weekly soak's curve).
//
// The simulator keeps the newest --record-limit request records as its ground truth (100,000 by
// default in `npm run sim`, each with its token events): a bounded store that fills in the first
// minutes; the soak's default keeps it small so that what grows is not that.
import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { findK6 } from '../scripts/k6-runtime';
import { writeSidecar } from '../scripts/raw-record';
import { cpuSeconds, memoryMb, QUIET_K6_ENV, ROOT, slope, spawnSimProcess } from './proc';

const arg = (name: string, def: string): string => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? (process.argv[i + 1] ?? def) : def;
};
const flag = (name: string) => process.argv.includes(`--${name}`);
const MINUTES = Number(arg('minutes', '30'));
const VUS = Number(arg('vus', '256'));
const TIME_SCALE = Number(arg('time-scale', '4'));
const WARMUP_MIN = Number(arg('warmup', '5'));
const RECORD_LIMIT = Number(arg('record-limit', '10000'));
const NICE = Number(arg('nice', '0'));
const INTERVAL_MS = Number(arg('interval-ms', '60000'));
const RAW = !flag('no-raw');
const K6 = arg('k6', '') || findK6();
const BUNDLE = resolve(ROOT, arg('bundle', 'dist/sse/context-matrix.js'));
// E.g. '--summary-mode=disabled --no-thresholds' (k6 v2.2 has no --no-summary): k6 then keeps no metric sinks (every trend value) in memory.
const K6_ARGS = arg('k6-args', '').split(' ').filter(Boolean);

interface Row {
  min: number;
  k6Rss: number;
  simRss: number;
  k6Cpu: number;
  simCpu: number;
  rawMb: number | null;
}

async function main(): Promise<void> {
  if (!K6) throw new Error('no k6: give --k6 PATH or set K6_BIN (a build with xk6-sse)');
  const dir = mkdtempSync(join(tmpdir(), 'soak-'));
  // A copy of the bundle, with the once.js it loads beside it: a rebuild of dist/ during the run does not touch them.
  const bundle = join(dir, 'bundle.js');
  copyFileSync(BUNDLE, bundle);
  copyFileSync(join(dirname(BUNDLE), 'once.js'), join(dir, 'once.js'));
  const sim = await spawnSimProcess(
    { engine: 'sglang', timeScale: TIME_SCALE, seed: 11, maxRunning: Math.max(256, VUS), kvCapacity: 100_000_000, recordLimit: RECORD_LIMIT },
    NICE,
  );
  const raw = join(dir, 'soak.raw.json.gz');
  const env = {
    ...process.env,
    ...QUIET_K6_ENV,
    TARGET_URL: sim.url,
    TRANSPORT: 'sse',
    ISL: '128',
    OSL: '256',
    CONCURRENCY: String(VUS),
    DURATION: `${MINUTES}m`,
    SLICES: String(Math.max(2, Math.min(60, MINUTES))),
    REQUEST_TIMEOUT: '60s',
    GRACEFUL_STOP: '30s',
    WARMUP_REQUESTS: '1',
    RESULTS_DIR: dir,
    RUN_ID: 'soak',
  };
  // As npm start does: the settings beside the record, so that `npm run report` reads it alone.
  if (RAW) writeSidecar(raw, 'context-matrix', env, bundle, true);
  const k6Args = ['run', '-q', '--address', '', ...(RAW ? ['--out', `json=${raw}`] : []), ...K6_ARGS, bundle];
  const [cmd, argv] = NICE > 0 ? ['nice', ['-n', String(NICE), K6, ...k6Args]] : [K6, k6Args];
  console.log(
    `soak: ${VUS} sse streams for ${MINUTES} min against the simulator (time-scale ${TIME_SCALE}, record limit ${RECORD_LIMIT}), raw record ` +
      `${RAW ? 'on' : 'off'}${K6_ARGS.length ? `, k6 ${K6_ARGS.join(' ')}` : ''}; k6 ${K6}`,
  );
  console.log(`files in ${dir}`);
  const child = spawn(cmd, argv, { env, cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out = (out + d.toString()).slice(-20_000)));
  child.stderr.on('data', (d: Buffer) => (out = (out + d.toString()).slice(-20_000)));
  const pid = child.pid as number;
  const t0 = Date.now();
  const rows: Row[] = [];
  console.log('   min  k6 RSS MB  sim RSS MB  k6 CPU s  sim CPU s  raw MB');
  const sample = () => {
    const k = memoryMb(pid);
    const s = memoryMb(sim.pid);
    if (k === null || s === null) return;
    const row: Row = {
      min: (Date.now() - t0) / 60_000,
      k6Rss: k.rss,
      simRss: s.rss,
      k6Cpu: cpuSeconds(pid) ?? NaN,
      simCpu: cpuSeconds(sim.pid) ?? NaN,
      rawMb: RAW && existsSync(raw) ? statSync(raw).size / 2 ** 20 : null,
    };
    rows.push(row);
    console.log(
      `${row.min.toFixed(1).padStart(6)} ${row.k6Rss.toFixed(0).padStart(10)} ${row.simRss.toFixed(0).padStart(11)} ` +
        `${row.k6Cpu.toFixed(0).padStart(9)} ${row.simCpu.toFixed(0).padStart(10)} ${row.rawMb === null ? '     -' : row.rawMb.toFixed(0).padStart(7)}`,
    );
  };
  const timer = setInterval(sample, INTERVAL_MS);
  const code = await new Promise<number>((r) => child.on('exit', (c) => r(c ?? 1)));
  clearInterval(timer);
  const simPeak = memoryMb(sim.pid)?.hwm ?? NaN;
  await sim.stop();

  // The load phase only: the rows taken while the cell ran (not setup, not the graceful stop).
  const load = rows.filter((r) => r.min >= WARMUP_MIN && r.min <= MINUTES);
  const fit = (f: (r: Row) => number) => {
    const s = slope(
      load.map((r) => r.min / 60),
      load.map(f),
    );
    return `${s.slope >= 0 ? '+' : ''}${s.slope.toFixed(1)} ± ${s.se.toFixed(1)} MB/hour`;
  };
  console.log(`\nk6 exit ${code} after ${((Date.now() - t0) / 60_000).toFixed(1)} min`);
  if (code !== 0) console.log(out.slice(-3000));
  let summary = '';
  try {
    type Figures = { p50: number; p99: number; count?: number; relative_error?: number } | null;
    const s = JSON.parse(readFileSync(join(dir, 'soak.summary.json'), 'utf8')) as {
      records: Array<{
        requests_ok: number;
        requests_failed: number;
        output_throughput_tokens_per_s: number | null;
        e2e_ms: Figures;
        ttft_ms: Figures;
        itl_ms: Figures;
        tpot_ms: Figures;
        request_output_rate_tokens_per_s: Figures;
      }>;
    };
    const r = s.records[0];
    const counted = r.itl_ms?.relative_error === undefined ? 'ITL samples (ITL_SAMPLES=every)' : 'tokens counted in ITL buckets (ITL_SAMPLES=histogram)';
    summary =
      `${r.requests_ok} requests ok, ${r.requests_failed} failed, ${r.itl_ms?.count ?? 0} ${counted}, ${r.output_throughput_tokens_per_s?.toFixed(0) ?? '-'} ` +
      `output tokens/s`;
    // Every percentile the summary kept, and which were read from buckets (the soak's claim is that none is lost).
    const p = (name: string, f: Figures) =>
      f === null ? `${name} not measured` : `${name} p50 ${f.p50.toFixed(1)} p99 ${f.p99.toFixed(1)}${f.relative_error === undefined ? '' : ' (buckets)'}`;
    const figures = [p('e2e ms', r.e2e_ms), p('TTFT ms', r.ttft_ms), p('ITL ms', r.itl_ms), p('TPOT ms', r.tpot_ms)];
    figures.push(p('tokens/s per request', r.request_output_rate_tokens_per_s));
    summary += `\n${figures.join('; ')}`;
  } catch {
    summary = 'no summary.json';
  }
  console.log(summary);
  if (load.length >= 3) {
    console.log(`memory slope over minutes ${WARMUP_MIN}–${MINUTES} (${load.length} readings): k6 ${fit((r) => r.k6Rss)}, simulator ${fit((r) => r.simRss)}`);
    const first = load[0];
    const last = load[load.length - 1];
    console.log(
      `k6 RSS ${first.k6Rss.toFixed(0)} → ${last.k6Rss.toFixed(0)} MB, simulator ${first.simRss.toFixed(0)} ` +
        `→ ${last.simRss.toFixed(0)} MB (peak ${simPeak.toFixed(0)} MB)`,
    );
    console.log(
      `CPU over the load: k6 ${((last.k6Cpu - first.k6Cpu) / ((last.min - first.min) * 60)).toFixed(2)} cores, ` +
        `simulator ${((last.simCpu - first.simCpu) / ((last.min - first.min) * 60)).toFixed(2)} cores`,
    );
  }
  if (flag('chart') && rows.length >= 2) console.log(memoryChart(rows));
  if (RAW && existsSync(raw)) {
    const mb = statSync(raw).size / 2 ** 20;
    console.log(`raw record: ${mb.toFixed(0)} MB gzip (${((mb / MINUTES) * 60).toFixed(0)} MB per hour of load)`);
  }
  if (!flag('keep')) rmSync(dir, { recursive: true, force: true });
}

/** A Mermaid xychart of resident memory by minute, at most 60 points (every k-th reading). */
function memoryChart(rows: Row[]): string {
  const step = Math.ceil(rows.length / 60);
  const kept = rows.filter((_, i) => i % step === 0 || i === rows.length - 1);
  const list = (f: (r: Row) => number) => kept.map((r) => f(r).toFixed(0)).join(', ');
  const top = Math.ceil(Math.max(...kept.map((r) => Math.max(r.k6Rss, r.simRss))) * 1.1);
  return [
    '',
    '```mermaid',
    'xychart-beta',
    `  title "Resident memory, MB (k6 first line, simulator second)"`,
    `  x-axis "minute" [${kept.map((r) => r.min.toFixed(0)).join(', ')}]`,
    `  y-axis "MB" 0 --> ${top}`,
    `  line [${list((r) => r.k6Rss)}]`,
    `  line [${list((r) => r.simRss)}]`,
    '```',
  ].join('\n');
}

main().catch((e: unknown) => {
  console.error(`soak: ${(e as Error).stack ?? e}`);
  process.exit(1);
});
