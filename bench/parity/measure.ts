// A client run under measurement: its whole process tree's CPU (bash's `times` once it exits: the
// descendants it waited for, which is every worker process of the peers) and the tree's resident
// memory, summed over every live descendant every 500 ms (the peers run several processes at once,
// so one process's peak would miss most of it). A run past its deadline is killed with its group.
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

export interface TreeRun {
  exit: number;
  timedOut: boolean;
  cpuSec: number;
  peakRssMb: number;
  wallSec: number;
  /** stdout and stderr together, the last 64 kB. */
  output: string;
}

/** Parent pid and resident memory (MB) of every process, from /proc. */
function processTable(): Map<number, { ppid: number; rssMb: number }> {
  const table = new Map<number, { ppid: number; rssMb: number }>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      // Field 24 (rss, in pages) is the 22nd after the command name.
      table.set(Number(name), { ppid: Number(f[1]), rssMb: (Number(f[21]) * 4096) / 1048576 });
    } catch {
      // Gone between the listing and the read.
    }
  }
  return table;
}

/** Resident memory of `root` and all its descendants, MB. */
export function treeRssMb(root: number): number {
  const table = processTable();
  const children = new Map<number, number[]>();
  for (const [pid, p] of table) children.set(p.ppid, [...(children.get(p.ppid) ?? []), pid]);
  let sum = 0;
  const stack = [root];
  while (stack.length) {
    const pid = stack.pop() as number;
    sum += table.get(pid)?.rssMb ?? 0;
    stack.push(...(children.get(pid) ?? []));
  }
  return sum;
}

/** Parses bash's `times` output (two lines: the shell's, then its children's user and system time). */
export function childrenCpuSec(timesOutput: string): number | null {
  const lines = timesOutput.trim().split('\n');
  const last = lines[lines.length - 1] ?? '';
  const parts = [...last.matchAll(/(\d+)m([\d.]+)s/g)].map((m) => Number(m[1]) * 60 + Number(m[2]));
  return parts.length === 2 ? (parts[0] as number) + (parts[1] as number) : null;
}

export async function runTree(argv: string[], opts: { env: NodeJS.ProcessEnv; cwd: string; timeoutSec: number }): Promise<TreeRun> {
  // Line 1 of stdout: the command's pid; after it exits, `times`. The command's own output goes to fd 3.
  const script = '"$@" >&3 2>&3 & pid=$!; echo $pid; wait $pid; rc=$?; times; exit $rc';
  const child = spawn('bash', ['-c', script, 'bash', ...argv], { env: opts.env, cwd: opts.cwd, detached: true, stdio: ['ignore', 'pipe', 'pipe', 'pipe'] });
  let control = '';
  let output = '';
  let pid = 0;
  let peak = 0;
  child.stdout?.on('data', (d: Buffer) => {
    control += d.toString();
    if (!pid) pid = Number(control.split('\n')[0]) || 0;
  });
  const keep = (d: Buffer): void => {
    output = (output + d.toString()).slice(-65536);
  };
  child.stderr?.on('data', keep);
  (child.stdio[3] as NodeJS.ReadableStream | null)?.on('data', keep);
  const poll = setInterval(() => {
    if (pid) peak = Math.max(peak, treeRssMb(pid));
  }, 500);
  let timedOut = false;
  const killer = setTimeout(() => {
    timedOut = true;
    try {
      process.kill(-(child.pid as number), 'SIGKILL');
    } catch {
      // Already gone.
    }
  }, opts.timeoutSec * 1000);
  const t0 = Date.now();
  const exit = await new Promise<number>((resolve) => child.on('close', (code) => resolve(code ?? 137)));
  clearInterval(poll);
  clearTimeout(killer);
  const cpu = childrenCpuSec(control);
  return { exit, timedOut, cpuSec: cpu ?? NaN, peakRssMb: peak, wallSec: (Date.now() - t0) / 1000, output };
}
