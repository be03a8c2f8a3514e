// Where each microsecond of a streamed token event goes inside a real k6 (with xk6-sse): Linux
// perf samples the k6 process's Go stacks while the suite (or the bare floor script) streams from
// the simulator, and each sample is put in one part: the garbage collector, the JavaScript engine
// (sobek) running the script, its string, JSON and regexp built-ins, k6's metric pipeline,
// xk6-sse's reading and dispatch, and the network and kernel. Prints figures; asserts nothing.
// Needs perf (Debian: apt-get install linux-perf) and a k6 built with xk6-sse (--k6 PATH, else K6_BIN or PATH).
//   npx tsx bench/k6-profile.ts [--bundles dist/sse/context-matrix.js,floor] [--vus 64] [--dialect openai]
//                               [--seconds 10] [--osl 256] [--time-scale 10] [--k6 PATH] [--keep DIR]
//
// k6's own pprof endpoint (k6 run --profiling-enabled, /debug/pprof/profile) samples the same
// stacks; perf is used here because reading a pprof file needs Go's toolchain and perf does not.
// The figure per part is CPU µs per token event: perf's samples (one per 1/FREQ s of CPU) over the
// token events the simulator wrote in the same window.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startSim } from '../sim/index';
import type { RequestRecord } from '../sim/index';
import { findK6 } from '../scripts/k6-runtime';
import { simulatedEngine } from '../scripts/simulated-dialects';
import { QUIET_K6_ENV } from './proc';
import { floorScript } from './floor-script';

const ROOT = join(__dirname, '..');
const arg = (name: string, def: string): string => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? (process.argv[i + 1] ?? def) : def;
};
const BUNDLES = arg('bundles', 'dist/sse/context-matrix.js,floor').split(',');
const VUS = Number(arg('vus', '64'));
const DIALECT = arg('dialect', 'openai');
const SECONDS = Number(arg('seconds', '10'));
const ISL = Number(arg('isl', '128'));
const OSL = Number(arg('osl', '256'));
const TIME_SCALE = Number(arg('time-scale', '10'));
const KEEP = arg('keep', '');
const K6 = arg('k6', '') || findK6();
const FREQ = 499;
/** Seconds of load before perf starts: init, setup and the first requests are left out. */
const WARM_S = 5;

/**
 * The parts, first match wins. A stack in the collector's own work (marking, sweeping, a
 * goroutine's assist, the write barrier) is GC whatever called it; otherwise the frame nearest the
 * leaf that names a part decides, so JSON.parse called from the script counts as JSON.
 */
const GC =
  /runtime\.(gcBgMarkWorker|gcDrain|gcAssistAlloc|bgsweep|bgscavenge|wbBufFlush|gcWriteBarrier|markroot|sweepone|gcStart|gcMarkDone|gcMarkTermination)/;
const PARTS: Array<[string, RegExp]> = [
  ['k6 metric samples (add, tags, ingest, sinks)', /go\.k6\.io\/k6\/(internal\/)?(metrics|output|js\/modules\/k6\/metrics)|PushIfNotDone/],
  ['sobek JSON', /sobek\.\(\*Runtime\)\.builtinJSON|sobek.*[Jj]son/],
  ['sobek regexp', /[Rr]egexp/],
  ['sobek strings', /sobek\.\(\*Runtime\)\.(string|builtin_String)|sobek\.(asciiString|unicodeString|importedString)|unistring|sobek\.\(\*StringBuilder/],
  ['xk6-sse (reading, events to JS)', /xk6-sse|bufio/],
  ['sobek (the script: interpreter, objects, calls)', /sobek/],
  ['network, syscalls, kernel', /net\/http|net\.|internal\/poll|syscall|crypto|\[k\]|^0x|kernel/],
];
const OTHER = 'Go runtime (scheduler, timers, other)';

function classify(frames: string[]): string {
  for (const f of frames) if (GC.test(f)) return 'garbage collector';
  for (const f of frames) for (const [name, rx] of PARTS) if (rx.test(f)) return name;
  return OTHER;
}

function tally(perfData: string): { parts: Map<string, number>; total: number } {
  const out = spawnSync('perf', ['script', '-i', perfData, '-F', 'ip,sym'], { encoding: 'utf8', maxBuffer: 1 << 30 });
  if (out.status !== 0) throw new Error(`perf script failed: ${out.stderr.slice(-500)}`);
  const parts = new Map<string, number>();
  let total = 0;
  let stack: string[] = [];
  const flush = () => {
    if (stack.length === 0) return;
    total++;
    const p = classify(stack);
    parts.set(p, (parts.get(p) ?? 0) + 1);
    stack = [];
  };
  for (const line of out.stdout.split('\n')) {
    const l = line.trim();
    if (l === '') {
      flush();
      continue;
    }
    const sp = l.indexOf(' ');
    stack.push(sp > 0 ? l.slice(sp + 1) : l);
  }
  flush();
  return { parts, total };
}

interface Profile {
  bundle: string;
  events: number;
  parts: Map<string, number>;
  total: number;
}

async function profile(bundle: string): Promise<Profile> {
  const engine = simulatedEngine(DIALECT);
  const sim = await startSim({
    engine,
    port: 0,
    timeScale: TIME_SCALE,
    seed: 11,
    maxRunning: Math.max(256, VUS),
    kvCapacity: 100_000_000,
    recordLimit: 1_000_000,
  });
  const dir = mkdtempSync(join(tmpdir(), 'k6-profile-'));
  const duration = `${WARM_S + SECONDS + 5}s`;
  const script = bundle === 'floor' ? floorScript(dir, { dialect: DIALECT, vus: VUS, duration, isl: ISL, osl: OSL, itl: false }) : resolve(ROOT, bundle);
  const env = {
    ...process.env,
    ...QUIET_K6_ENV,
    TARGET_URL: sim.url,
    TRANSPORT: 'sse',
    DIALECT,
    ISL: String(ISL),
    OSL: String(OSL),
    CONCURRENCY: String(VUS),
    DURATION: duration,
    REQUEST_TIMEOUT: '60s',
    WARMUP_REQUESTS: '0',
    SERVER_METRICS: 'off',
    RESULTS_DIR: dir,
    RUN_ID: 'profile',
  };
  const child = spawn(K6 as string, ['run', '-q', '--address', '', script], { env, cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  child.stderr.on('data', (d: Buffer) => (err = (err + d.toString()).slice(-4000)));
  const exited = new Promise<number>((r) => child.on('exit', (code) => r(code ?? 1)));
  await new Promise((r) => setTimeout(r, WARM_S * 1000));
  const data = join(dir, 'perf.data');
  const t0 = Date.now();
  // Not spawnSync: the simulator serves from this process's event loop.
  const perf = spawn('perf', ['record', '-F', String(FREQ), '-g', '-p', String(child.pid), '-o', data, '--', 'sleep', String(SECONDS)], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let perfErr = '';
  perf.stderr.on('data', (d: Buffer) => (perfErr = (perfErr + d.toString()).slice(-2000)));
  const rec = { status: await new Promise<number>((r) => perf.on('exit', (c) => r(c ?? 1))), stderr: perfErr };
  const t1 = Date.now();
  const code = await exited;
  const truth = sim.groundTruth().requests as RequestRecord[];
  await sim.stop();
  if (rec.status !== 0) throw new Error(`perf record failed (${rec.status}): ${rec.stderr.slice(-500)}`);
  if (code !== 0 && code !== 99) throw new Error(`k6 exited ${code}:\n${err}`);
  let events = 0;
  for (const r of truth) for (const e of r.events) if (e.tokens > 0 && e.timeMs >= t0 && e.timeMs < t1) events++;
  const { parts, total } = tally(data);
  if (KEEP) spawnSync('cp', [data, join(KEEP, `${bundle === 'floor' ? 'floor' : 'suite'}.perf.data`)]);
  rmSync(dir, { recursive: true, force: true });
  return { bundle, events, parts, total };
}

async function main(): Promise<void> {
  if (!K6) throw new Error('no k6 binary: pass --k6 PATH (a build with xk6-sse) or set K6_BIN');
  if (spawnSync('perf', ['--version']).status !== 0) throw new Error('perf is not installed (Debian: apt-get install linux-perf)');
  console.log(
    `k6: ${K6}; ${VUS} VUs, ${DIALECT}, ISL ${ISL}, OSL ${OSL}, simulator time-scale ${TIME_SCALE}; perf ` +
      `at ${FREQ} Hz for ${SECONDS} s after ${WARM_S} s of load`,
  );
  const profiles: Profile[] = [];
  for (const b of BUNDLES) profiles.push(await profile(b));
  const names = [...new Set([...profiles.flatMap((p) => [...p.parts.keys()])])];
  const us = (p: Profile, n: number) => ((n / FREQ) * 1e6) / p.events;
  names.sort((a, b) => (profiles[0].parts.get(b) ?? 0) - (profiles[0].parts.get(a) ?? 0));
  console.log(`\nCPU µs per token event of k6, by part (share of the process's samples)`);
  console.log(`${'part'.padEnd(50)}${profiles.map((p) => (p.bundle === 'floor' ? 'floor' : (p.bundle.split('/').pop() as string)).padStart(24)).join('')}`);
  for (const n of names) {
    console.log(
      `${n.padEnd(50)}${profiles
        .map((p) => {
          const c = p.parts.get(n) ?? 0;
          return `${us(p, c).toFixed(1).padStart(10)} µs (${((100 * c) / p.total).toFixed(0).padStart(2)}%)`.padStart(24);
        })
        .join('')}`,
    );
  }
  console.log(`${'all'.padEnd(50)}${profiles.map((p) => `${us(p, p.total).toFixed(1).padStart(10)} µs      `.padStart(24)).join('')}`);
  console.log(`${'token events in the window'.padEnd(50)}${profiles.map((p) => String(p.events).padStart(24)).join('')}`);
}

main().catch((e) => {
  console.error(String(e instanceof Error ? e.message : e));
  process.exit(1);
});
