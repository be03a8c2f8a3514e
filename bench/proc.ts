// What the long-running benchmarks (soak.ts, raw-cost.ts) share: the simulator in a process of its
// own (so its memory and CPU are its own, apart from the benchmark's), and a process's CPU and
// memory read from /proc.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';

export const ROOT = join(__dirname, '..');
const TICK_MS = 10; // USER_HZ = 100 on Linux

export interface SimProcess {
  url: string;
  pid: number;
  child: ChildProcess;
  stop(): Promise<void>;
}

/** Starts sim/cli.ts with the given options (camelCase keys become --kebab-case flags); resolves once it listens. */
export async function spawnSimProcess(options: Record<string, string | number | boolean>, nice = 0): Promise<SimProcess> {
  const args = ['--import', 'tsx', join(ROOT, 'sim', 'cli.ts'), '--port', '0'];
  for (const [k, v] of Object.entries(options)) args.push(`--${k.replace(/[A-Z]/g, (c) => '-' + c.toLowerCase())}=${v}`);
  const [cmd, argv] = nice > 0 ? ['nice', ['-n', String(nice), process.execPath, ...args]] : [process.execPath, args];
  const child = spawn(cmd, argv, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    let err = '';
    const timer = setTimeout(() => reject(new Error(`simulator did not start in 30 s: ${err}`)), 30_000);
    child.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
    child.stderr?.on('data', (d: Buffer) => (err += d.toString()));
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`simulator exited ${code}: ${err}`));
    });
  });
  return {
    url,
    // With `nice` the child is nice itself, which execs node: the same pid.
    pid: child.pid as number,
    child,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const gone = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await gone;
    },
  };
}

/** utime + stime of a live process, in seconds; null once it is gone. */
export function cpuSeconds(pid: number): number | null {
  try {
    // Fields after the command name (which may hold spaces): state is field 3, utime 14, stime 15.
    const s = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = s.slice(s.lastIndexOf(')') + 2).split(' ');
    return ((Number(f[11]) + Number(f[12])) * TICK_MS) / 1000;
  } catch {
    return null;
  }
}

/** Resident memory (VmRSS) and its peak (VmHWM) in MB; null once the process is gone. */
export function memoryMb(pid: number): { rss: number; hwm: number } | null {
  try {
    const s = readFileSync(`/proc/${pid}/status`, 'utf8');
    return { rss: Number(/VmRSS:\s+(\d+) kB/.exec(s)?.[1] ?? 0) / 1024, hwm: Number(/VmHWM:\s+(\d+) kB/.exec(s)?.[1] ?? 0) / 1024 };
  } catch {
    return null;
  }
}

/** Least-squares slope of y over x, and its standard error. */
export function slope(xs: number[], ys: number[]): { slope: number; se: number } {
  const n = xs.length;
  if (n < 3) return { slope: NaN, se: NaN };
  const mx = xs.reduce((a, b) => a + b, 0) / n;
  const my = ys.reduce((a, b) => a + b, 0) / n;
  let sxx = 0;
  let sxy = 0;
  for (let i = 0; i < n; i++) {
    sxx += (xs[i] - mx) ** 2;
    sxy += (xs[i] - mx) * (ys[i] - my);
  }
  const b = sxy / sxx;
  let sse = 0;
  for (let i = 0; i < n; i++) sse += (ys[i] - (my + b * (xs[i] - mx))) ** 2;
  return { slope: b, se: Math.sqrt(sse / (n - 2) / sxx) };
}

/** k6's environment in every benchmark: no usage report, no automatic extension resolution. */
export const QUIET_K6_ENV = { K6_NO_USAGE_REPORT: 'true', K6_AUTO_EXTENSION_RESOLUTION: 'false' } as const;

export interface Measured {
  exit: number;
  /** The command's whole CPU (user + sys), from bash's `times` once it has exited. */
  cpuSec: number;
  /** Peak resident memory (VmRSS/VmHWM polled every 250 ms), MB. */
  peakRssMb: number;
  wallSec: number;
  /** Its stdout and stderr. */
  output: string;
}

/**
 * Runs a command under bash so that `times` gives its exact CPU after it exits (a /proc poll would
 * miss the last interval), polling its memory meanwhile.
 */
export async function runMeasured(argv: string[], env: NodeJS.ProcessEnv, cwd: string): Promise<Measured> {
  const outFile = join(cwd, `.measured-${process.pid}-${Date.now()}.out`);
  // Line 1: the command's pid; after it exits, `times` prints the shell's CPU, then its children's.
  const child = spawn('bash', ['-c', '"$@" > "$MEASURED_OUT" 2>&1 & pid=$!; echo $pid; wait $pid; rc=$?; times; exit $rc', 'bash', ...argv], {
    env: { ...env, MEASURED_OUT: outFile },
    cwd,
  });
  let out = '';
  let pid = 0;
  let peak = 0;
  child.stdout.on('data', (d: Buffer) => {
    out += d.toString();
    if (!pid) pid = Number(out.split('\n')[0]) || 0;
  });
  const timer = setInterval(() => {
    const m = pid ? memoryMb(pid) : null;
    if (m) peak = Math.max(peak, m.rss, m.hwm);
  }, 250);
  const t0 = Date.now();
  const exit = await new Promise<number>((r) => child.on('exit', (c) => r(c ?? 1)));
  clearInterval(timer);
  const lines = out.trim().split('\n');
  const [user, sys] = (lines[lines.length - 1] ?? '').split(/\s+/).map((t) => {
    const m = /(\d+)m([\d.]+)s/.exec(t);
    return m ? Number(m[1]) * 60 + Number(m[2]) : 0;
  });
  let output = '';
  try {
    output = readFileSync(outFile, 'utf8');
    rmSync(outFile);
  } catch {
    // The shell could not create it: the exit code says why.
  }
  return { exit, cpuSec: user + sys, peakRssMb: peak, wallSec: (Date.now() - t0) / 1000, output };
}
