// A k6 run the durability tests can kill: a bundle on the runners' k6 with the raw record on (as
// `npm start` writes it: --out json=<run>.raw.json.gz and the <run>.run.json sidecar), spawned
// here so that the test holds its pid, with a signal sent once k6 logs the start of a given run.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { rawRecordArgs, rawRecordPath, writeSidecar } from '../../scripts/raw-record';
import { ROOT } from './harness';

export interface KillAt {
  signal: NodeJS.Signals;
  /** k6 logs "▶ run N/M" when a run starts: the signal goes this long after run N's line. */
  run: number;
  afterMs: number;
}

export interface RecordedRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  raw: string;
  /** handleSummary's summary.json, when it wrote one. */
  summary: Record<string, unknown> | null;
  /** When the signal was sent, ms after the spawn. */
  killedAtMs: number | null;
}

export async function recordedRun(
  bin: string,
  bundle: string,
  benchmark: string,
  env: Record<string, string>,
  opts: { dir: string; kill?: KillAt; extraArgs?: string[]; timeoutMs: number },
): Promise<RecordedRun> {
  const { dir } = opts;
  const runId = env.RUN_ID;
  const raw = rawRecordPath(dir, runId);
  const full = { RESULTS_DIR: '.', ...env };
  writeSidecar(raw, benchmark, full, join(ROOT, bundle), bundle.startsWith('dist/sse/'));
  const args = ['run', '--no-usage-report', '--include-system-env-vars=false', '--address', '', ...rawRecordArgs(raw), ...(opts.extraArgs ?? [])];
  for (const [k, v] of Object.entries(full)) args.push('-e', `${k}=${v}`);
  args.push(join(ROOT, bundle));
  // k6's outputs (remote write) read K6_* from the system environment, not from -e.
  const sysEnv = { ...process.env, ...Object.fromEntries(Object.entries(env).filter(([k]) => k.startsWith('K6_'))) };
  const child = spawn(bin, args, { cwd: dir, env: sysEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  const t0 = Date.now();
  let stdout = '';
  let stderr = '';
  let killedAtMs: number | null = null;
  let armed = false;
  const onLog = () => {
    const k = opts.kill;
    if (!k || armed || !new RegExp(`▶ run ${k.run}/`).test(stderr)) return;
    armed = true;
    setTimeout(() => {
      killedAtMs = Date.now() - t0;
      child.kill(k.signal);
    }, k.afterMs);
  };
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => {
    stderr += d.toString();
    onLog();
  });
  const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs);
  const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((r) => child.on('close', (c, s) => r([c, s])));
  clearTimeout(timer);
  const file = join(dir, `${runId}.summary.json`);
  const summary = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>) : null;
  return { code, signal, stdout, stderr, raw, summary, killedAtMs };
}

/** The five-cell plan the kill tests run: concurrency 1 to 5, 4 s each (4 slices), on a simulator 4× faster than model time. */
export const FIVE_CELLS: Record<string, string> = {
  CONCURRENCY: '1,2,3,4,5',
  ISL: '128',
  OSL: '32',
  DURATION: '4s',
  SLICES: '4',
  GRACEFUL_STOP: '1s',
  REQUEST_TIMEOUT: '5s',
  WARMUP_REQUESTS: '1',
  SEED: '7',
};
export const SIM = { engine: 'sglang', spec: 'dflash', timeScale: 4, seed: 7 } as const;

type Rec = Record<string, unknown>;
const at = (r: Rec, path: string): number | null => {
  let v: unknown = r;
  for (const k of path.split('.')) v = v === null || v === undefined ? undefined : (v as Rec)[k];
  return typeof v === 'number' ? v : null;
};

/** The figures of a summary.json record compared between runs of the same seed. */
export const COMPARED = [
  'requests_ok',
  'output_tokens',
  'output_throughput_tokens_per_s',
  'request_rate_per_s',
  'e2e_ms.avg',
  'e2e_ms.p50',
  'e2e_ms.p90',
  'ttft_ms.p50',
  'itl_ms.p50',
  'acceptance_length_tokens_per_step',
] as const;

/** |a − b| ÷ mean(a, b) for each compared figure both records have. */
export function relativeDiffs(a: Rec, b: Rec): Record<string, number> {
  const out: Record<string, number> = {};
  for (const f of COMPARED) {
    const x = at(a, f);
    const y = at(b, f);
    if (x === null || y === null) continue;
    out[f] = x === y ? 0 : Math.abs(x - y) / ((Math.abs(x) + Math.abs(y)) / 2);
  }
  return out;
}

/**
 * What the kill test allows between a killed run's finished cells and an uninterrupted run's:
 * 3–4× the largest difference bench/rerun-noise.ts measured between five uninterrupted runs of the
 * same seed on a quiet machine (docs/durability.md has the figures), so that a machine shared
 * with other work passes too (one such run put cell 1's throughput 8.8 % apart).
 */
export const NOISE: Record<(typeof COMPARED)[number], number> = {
  requests_ok: 0.12,
  output_tokens: 0.12,
  output_throughput_tokens_per_s: 0.12,
  request_rate_per_s: 0.12,
  'e2e_ms.avg': 0.12,
  'e2e_ms.p50': 0.12,
  'e2e_ms.p90': 0.2,
  'ttft_ms.p50': 0.25,
  // Per-token gaps of 1–3 ms on k6's 1 ms clock: one tick is a third of the value.
  'itl_ms.p50': 0.4,
  acceptance_length_tokens_per_step: 0.05,
};
