// What one SSE token event costs a real k6 (with xk6-sse) running this suite, how much memory a
// streaming VU holds, and how far the client's TTFT/ITL land from the simulator's ground truth.
// Needs a k6 built with xk6-sse (--k6 PATH, else K6_BIN or PATH). Prints figures; asserts nothing.
//   npx tsx bench/sse-cost.ts [--vus 64,256] [--k6 PATH] [--dialects openai,sglang] [--time-scale 10]
//                             [--duration 20s] [--isl 128] [--osl 256] [--mem-vus 1000 | --mem-vus 0]
//                             [--bundles dist/sse/context-matrix.js,/tmp/old/dist/sse/context-matrix.js,floor,floor+itl,floor+stamp]
//                             [--repeat 3]
// A bundle may carry its own variables: dist/sse/context-matrix.js?ITL_SAMPLES=histogram.
//
// Every run: the simulator (in this process, no speculation, so one token per event and events =
// tokens) serves one context-matrix cell of N closed-loop VUs; k6's CPU is read from
// /proc/<pid>/stat (utime + stime) every 100 ms, and the figure is taken over the steady part of
// the load (from 2 s after the first token event to 1 s before the last), so init, setup and the
// summary, paid once per run, are left out. Several bundles (--bundles) run alternately, so their
// ratio is measured under the same machine load.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir, loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { startSim } from '../sim/index';
import type { RequestRecord } from '../sim/index';
import { findK6 } from '../scripts/k6-runtime';
import { simulatedEngine } from '../scripts/simulated-dialects';
import { quantileSorted } from '../lib/stats/bootstrap';
import { QUIET_K6_ENV } from './proc';
import { floorScript } from './floor-script';

const ROOT = join(__dirname, '..');
const arg = (name: string, def: string): string => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? (process.argv[i + 1] ?? def) : def;
};
// --vus 0: the memory run alone.
const VUS = arg('vus', '64,256')
  .split(',')
  .map(Number)
  .filter((n) => n > 0);
const DIALECTS = arg('dialects', 'openai,sglang').split(',') as Array<'openai' | 'sglang' | 'openai-chat'>;
const TIME_SCALE = Number(arg('time-scale', '10'));
const DURATION = arg('duration', '20s');
const ISL = Number(arg('isl', '128'));
const OSL = Number(arg('osl', '256'));
const MEM_VUS = Number(arg('mem-vus', '1000'));
// `floor` (in --bundles) runs a bare k6 script instead: the same streams, an event handler that
// only looks at e.data: what xk6-sse itself costs per event, the ceiling for any script.
// `floor+itl` also records one Trend sample per event, as a per-token ITL does; `floor+stamp` also
// reads each event's name and takes the clock per event, the least a client measuring ITL does.
const FLOORS = ['floor', 'floor+itl', 'floor+stamp'];
const isFloor = (b: string) => FLOORS.includes(b);
const BUNDLES = arg('bundles', 'dist/sse/context-matrix.js')
  .split(',')
  .map((b) => (isFloor(b) ? b : resolve(ROOT, b)));
const K6 = arg('k6', '') || findK6();
// Runs of each configuration, alternating between the bundles; the figures printed are the median run's.
const REPEAT = Number(arg('repeat', '1'));
const TICK_MS = 10; // USER_HZ = 100 on Linux

const nowMs = (): number => performance.timeOrigin + performance.now();

interface Poll {
  t: number;
  cpuMs: number;
  rssMb: number;
}

interface RunFigures {
  vus: number;
  dialect: string;
  bundle: string;
  exitCode: number;
  events: number;
  cpuSec: number;
  windowSec: number;
  peakRssMb: number;
  wholeCpuSec: number;
  wholeEvents: number;
  client: { ttft: Quant | null; itl: Quant | null; e2e: Quant | null; requestsOk: number; itlCount: number };
  truth: { ttft: Quant; itl: Quant; e2e: Quant; requests: number; itlCount: number; lateness: Quant };
  simCpuSec: number;
  machineBusy: number;
  load: number;
}

interface Quant {
  p50: number;
  p99: number;
}

function readStat(pid: number): number | null {
  try {
    // Fields after the command name (which may hold spaces): state is field 3, utime 14, stime 15.
    const s = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = s.slice(s.lastIndexOf(')') + 2).split(' ');
    return (Number(f[11]) + Number(f[12])) * TICK_MS;
  } catch {
    return null;
  }
}

function readRss(pid: number): { rss: number; hwm: number } | null {
  try {
    const s = readFileSync(`/proc/${pid}/status`, 'utf8');
    const rss = Number(/VmRSS:\s+(\d+) kB/.exec(s)?.[1] ?? 0) / 1024;
    const hwm = Number(/VmHWM:\s+(\d+) kB/.exec(s)?.[1] ?? 0) / 1024;
    return { rss, hwm };
  } catch {
    return null;
  }
}

/** Busy and total jiffies of the whole machine (/proc/stat), to show how contended the run was. */
function machineJiffies(): { busy: number; total: number } {
  const cpu = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
  const total = cpu.reduce((a, b) => a + b, 0);
  const idle = cpu[3] + (cpu[4] ?? 0);
  return { busy: total - idle, total };
}

/** CPU ms at time t, linearly between the polls around it. */
function cpuAt(polls: Poll[], t: number): number {
  if (t <= polls[0].t) return polls[0].cpuMs;
  for (let i = 1; i < polls.length; i++) {
    if (polls[i].t >= t) {
      const a = polls[i - 1];
      const b = polls[i];
      return a.cpuMs + ((b.cpuMs - a.cpuMs) * (t - a.t)) / (b.t - a.t);
    }
  }
  return polls[polls.length - 1].cpuMs;
}

function quant(values: number[]): Quant {
  const s = Array.from(Float64Array.from(values).sort());
  return { p50: quantileSorted(s, 0.5), p99: quantileSorted(s, 0.99) };
}

async function runOnce(vus: number, dialect: string, bundle: string, timeScale: number, duration: string): Promise<RunFigures> {
  const engine = simulatedEngine(dialect);
  const sim = await startSim({
    engine,
    port: 0,
    timeScale,
    seed: 11,
    maxRunning: Math.max(256, vus),
    kvCapacity: 100_000_000,
    recordLimit: 1_000_000,
  });
  const dir = mkdtempSync(join(tmpdir(), 'sse-cost-'));
  // `bundle?VAR=value&…`: the same bundle with its own variables (e.g. ?ITL_SAMPLES=histogram).
  const [path, query] = bundle.split('?');
  const script = isFloor(bundle)
    ? floorScript(dir, { dialect, vus, duration, isl: ISL, osl: OSL, itl: bundle === 'floor+itl', stamp: bundle === 'floor+stamp' })
    : path;
  const env = {
    ...process.env,
    ...Object.fromEntries(new URLSearchParams(query ?? '')),
    ...QUIET_K6_ENV,
    TARGET_URL: sim.url,
    TRANSPORT: 'sse',
    DIALECT: dialect,
    ISL: String(ISL),
    OSL: String(OSL),
    CONCURRENCY: String(vus),
    DURATION: duration,
    REQUEST_TIMEOUT: '60s',
    GRACEFUL_STOP: '60s',
    WARMUP_REQUESTS: '0',
    SERVER_METRICS: 'off',
    RESULTS_DIR: dir,
    RUN_ID: 'cost',
  };
  const k6Start = nowMs();
  const child = spawn(K6 as string, ['run', '-q', '--address', '', script], { env, cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  const pid = child.pid as number;
  const polls: Poll[] = [];
  const machine: Array<{ t: number; busy: number; total: number }> = [];
  const simCpu: Array<{ t: number; ms: number }> = [];
  let peak = 0;
  const poll = () => {
    const t = nowMs();
    const cpuMs = readStat(pid);
    const mem = readRss(pid);
    if (cpuMs !== null && mem !== null) {
      polls.push({ t, cpuMs, rssMb: mem.rss });
      peak = Math.max(peak, mem.hwm, mem.rss);
    }
    machine.push({ t, ...machineJiffies() });
    const u = process.cpuUsage();
    simCpu.push({ t, ms: (u.user + u.system) / 1000 });
  };
  const timer = setInterval(poll, 100);
  poll();
  const exitCode = await new Promise<number>((r) => child.on('exit', (code) => r(code ?? 1)));
  clearInterval(timer);
  const load = loadavg()[0];

  const truthAll = sim.groundTruth().requests as RequestRecord[];
  await sim.stop();
  const runReqs = truthAll.filter((r) => r.stream && r.maxNewTokens === OSL && r.arrivalMs >= k6Start);
  let first = Infinity;
  let last = -Infinity;
  for (const r of runReqs) {
    for (const e of r.events) {
      if (e.tokens <= 0) continue;
      first = Math.min(first, e.timeMs);
      last = Math.max(last, e.timeMs);
    }
  }
  const tA = first + 2000;
  const tB = last - 1000;
  let events = 0;
  let wholeEvents = 0;
  const itl: number[] = [];
  const ttft: number[] = [];
  const e2e: number[] = [];
  const lateness: number[] = [];
  for (const r of runReqs) {
    for (let i = 0; i < r.events.length; i++) {
      const e = r.events[i];
      if (e.tokens <= 0) continue;
      wholeEvents++;
      if (e.timeMs >= tA && e.timeMs < tB) events++;
      lateness.push(e.timeMs - e.scheduledMs);
      if (i > 0) for (let k = 0; k < e.tokens; k++) itl.push((e.timeMs - r.events[i - 1].timeMs) / e.tokens);
    }
    if (r.errorClass === null && r.finishMs !== null && r.firstTokenMs !== null) {
      ttft.push(r.firstTokenMs - r.arrivalMs);
      e2e.push(r.finishMs - r.arrivalMs);
    }
  }
  const cpuSec = polls.length > 1 && tB > tA ? (cpuAt(polls, tB) - cpuAt(polls, tA)) / 1000 : NaN;
  const wholeCpuSec = polls.length ? polls[polls.length - 1].cpuMs / 1000 : NaN;
  const interp = <T extends { t: number }>(xs: T[], t: number, f: (x: T) => number) => {
    for (let i = 1; i < xs.length; i++) if (xs[i].t >= t) return f(xs[i - 1]) + ((f(xs[i]) - f(xs[i - 1])) * (t - xs[i - 1].t)) / (xs[i].t - xs[i - 1].t);
    return f(xs[xs.length - 1]);
  };
  const busy = interp(machine, tB, (m) => m.busy) - interp(machine, tA, (m) => m.busy);
  const total = interp(machine, tB, (m) => m.total) - interp(machine, tA, (m) => m.total);
  const simCpuSec = (interp(simCpu, tB, (s) => s.ms) - interp(simCpu, tA, (s) => s.ms)) / 1000;

  let client: RunFigures['client'] = { ttft: null, itl: null, e2e: null, requestsOk: 0, itlCount: 0 };
  try {
    const s = JSON.parse(readFileSync(join(dir, 'cost.summary.json'), 'utf8')) as {
      records: Array<{ requests_ok: number; ttft_ms: (Quant & { count: number }) | null; itl_ms: (Quant & { count: number }) | null; e2e_ms: Quant | null }>;
    };
    const rec = s.records[0];
    client = { ttft: rec.ttft_ms, itl: rec.itl_ms, e2e: rec.e2e_ms, requestsOk: rec.requests_ok, itlCount: rec.itl_ms?.count ?? 0 };
  } catch {
    if (!isFloor(bundle)) console.error(`no summary.json (exit ${exitCode}):\n${out.slice(-2000)}`);
  }
  return {
    vus,
    dialect,
    bundle,
    exitCode,
    events,
    cpuSec,
    windowSec: (tB - tA) / 1000,
    peakRssMb: peak,
    wholeCpuSec,
    wholeEvents,
    client,
    truth: { ttft: quant(ttft), itl: quant(itl), e2e: quant(e2e), requests: ttft.length, itlCount: itl.length, lateness: quant(lateness) },
    simCpuSec,
    machineBusy: total > 0 ? busy / total : NaN,
    load,
  };
}

const f0 = (x: number) => (Number.isFinite(x) ? x.toFixed(0) : '-');
const f1 = (x: number) => (Number.isFinite(x) ? x.toFixed(1) : '-');
const f2 = (x: number) => (Number.isFinite(x) ? x.toFixed(2) : '-');
const label = (b: string) =>
  b === 'floor' ? 'fl' : b === 'floor+itl' ? 'fl+' : b === 'floor+stamp' ? 'fls' : BUNDLES.length > 1 ? `${BUNDLES.indexOf(b)}` : '';

function printCost(r: RunFigures): void {
  const perSec = r.events / r.cpuSec;
  console.log(
    [
      String(r.vus).padStart(5),
      r.dialect.padEnd(8),
      label(r.bundle).padStart(3),
      f0(perSec).padStart(8),
      f1((r.cpuSec / r.events) * 1e6).padStart(7),
      f2(r.cpuSec / r.windowSec).padStart(6),
      f0(r.events / r.windowSec).padStart(8),
      f0(r.peakRssMb).padStart(6),
      f2(r.peakRssMb / r.vus).padStart(7),
      f2(r.simCpuSec / r.windowSec).padStart(6),
      `${f0(r.machineBusy * 100)}%`.padStart(6),
      f1(r.load).padStart(5),
      String(r.exitCode).padStart(4),
    ].join(' '),
  );
}

function printTiming(r: RunFigures): void {
  const c = r.client;
  const t = r.truth;
  const d = (a: Quant | null, b: Quant) => (a === null ? '      -       -' : `${f2(a.p50 - b.p50).padStart(7)} ${f2(a.p99 - b.p99).padStart(7)}`);
  console.log(
    [
      String(r.vus).padStart(5),
      r.dialect.padEnd(8),
      label(r.bundle).padStart(3),
      `${c.requestsOk}/${t.requests}`.padStart(11),
      `${f1(t.ttft.p50)}/${f1(t.ttft.p99)}`.padStart(13),
      d(c.ttft, t.ttft),
      `${f2(t.itl.p50)}/${f2(t.itl.p99)}`.padStart(13),
      d(c.itl, t.itl),
      `${c.itlCount}/${t.itlCount}`.padStart(15),
      d(c.e2e, t.e2e),
      `${f1(t.lateness.p50)}/${f1(t.lateness.p99)}`.padStart(11),
    ].join(' '),
  );
}

async function main(): Promise<void> {
  if (!K6) {
    console.error('no k6 binary: pass --k6 PATH (a build with xk6-sse) or set K6_BIN');
    process.exit(1);
  }
  console.log(`k6: ${K6}; bundles: ${BUNDLES.map((b, i) => (BUNDLES.length > 1 ? `${i}=${b}` : b)).join(', ')}`);
  console.log(
    `simulator in this process, no speculation (one token per event), time-scale ${TIME_SCALE}, ISL ${ISL}, ` +
      `OSL ${OSL}, ${DURATION} per run; 2-core machine shared with other work; load average at start ${f1(loadavg()[0])}`,
  );
  const runs: RunFigures[] = [];
  for (const vus of VUS) {
    for (const dialect of DIALECTS) {
      const all = new Map<string, RunFigures[]>(BUNDLES.map((b) => [b, []]));
      for (let k = 0; k < REPEAT; k++) for (const bundle of BUNDLES) all.get(bundle)?.push(await runOnce(vus, dialect, bundle, TIME_SCALE, DURATION));
      for (const bundle of BUNDLES) {
        const rs = (all.get(bundle) as RunFigures[]).sort((a, b) => a.events / a.cpuSec - b.events / b.cpuSec);
        if (REPEAT > 1)
          console.log(`  ${vus} VUs ${dialect} ${label(bundle) || 'bundle'}: ${rs.map((r) => f0(r.events / r.cpuSec)).join(', ')} token events per CPU-second`);
        runs.push(rs[Math.floor(rs.length / 2)]);
      }
    }
  }
  console.log('\nCPU per token event of the k6 process, over the steady part of each run');
  console.log('  VUs dialect    b  ev/CPUs  µs/ev  cores  events/s  RSS MB  MB/VU  simCPU  mach%  load exit');
  for (const r of runs) printCost(r);
  if (BUNDLES.length > 1) {
    console.log('\nratio of token events per CPU-second, each bundle over bundle 0 (same VUs and dialect, run back to back)');
    for (const r of runs) {
      if (r.bundle === BUNDLES[0]) continue;
      const base = runs.find((b) => b.bundle === BUNDLES[0] && b.vus === r.vus && b.dialect === r.dialect) as RunFigures;
      console.log(`  ${String(r.vus).padStart(5)} ${r.dialect.padEnd(8)} bundle ${label(r.bundle)}: ${f2(r.events / r.cpuSec / (base.events / base.cpuSec))}×`);
    }
  }
  console.log("\nClient vs ground truth (the simulator's event write times), same requests: truth p50/p99 and client − truth at p50 and p99, ms");
  console.log('  VUs dialect    b  ok/truth     TTFT truth      Δp50    Δp99     ITL truth      Δp50    Δp99   ITL n cli/tru     e2e Δp50   Δp99  sim late');
  for (const r of runs) if (!isFloor(r.bundle)) printTiming(r);

  if (MEM_VUS > 0) {
    // Real time (time-scale 1): at 1,000 streams k6 keeps up, so memory is not inflated by backlog.
    console.log(`\nMemory: ${MEM_VUS} SSE VUs, time-scale 1, ${DURATION}`);
    console.log('  VUs dialect    b  ev/CPUs  µs/ev  cores  events/s  RSS MB  MB/VU  simCPU  mach%  load exit');
    for (const bundle of BUNDLES) printCost(await runOnce(MEM_VUS, DIALECTS[0], bundle, 1, DURATION));
  }
  console.log(
    '\nev/CPUs: token events per CPU-second of k6 (utime+stime); cores: k6 CPU ÷ wall time; RSS MB: peak ' +
      "resident (VmHWM); simCPU: the simulator's cores; mach%: whole-machine busy time; exit: k6 exit code.",
  );
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
