// A throwaway Prometheus for tests: Debian's binary (or PROMETHEUS_BIN) on a free loopback port,
// optionally on TSDB blocks backfilled with promtool, queried through its HTTP API.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { findPrometheus } from '../../scripts/prom';

export interface Binaries {
  prometheus: string;
  promtool: string;
}

/** The two binaries, or the one-line reason the tests that need them are skipped. */
export function findBinaries(): Binaries | string {
  const prometheus = findPrometheus();
  if (prometheus === null) return 'prometheus is not installed (apt-get install prometheus)';
  // promtool ships beside prometheus in Debian's package and in the official tarball.
  const promtool = join(dirname(prometheus), 'promtool');
  const v = spawnSync(promtool, ['--version'], { encoding: 'utf8' });
  if (v.status !== 0) return `promtool not found beside ${prometheus}`;
  return { prometheus, promtool };
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

/** Writes blocks for the OpenMetrics text into dataDir (promtool tsdb create-blocks-from openmetrics). */
export function backfill(bin: Binaries, openMetrics: string, dataDir: string): void {
  mkdirSync(dataDir, { recursive: true });
  const file = join(dataDir, '..', 'input.om');
  writeFileSync(file, openMetrics);
  const r = spawnSync(bin.promtool, ['tsdb', 'create-blocks-from', 'openmetrics', '--quiet', file, dataDir], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`promtool backfill failed (${r.status}): ${r.stderr || r.stdout}`);
}

export interface RunningProm {
  base: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

export async function startPrometheus(bin: Binaries, dir: string, extraArgs: string[] = []): Promise<RunningProm> {
  const port = await freePort();
  const config = join(dir, 'prometheus.yml');
  writeFileSync(config, 'global:\n  scrape_interval: 15s\n');
  const logPath = join(dir, 'prometheus.log');
  const log = openSync(logPath, 'w');
  const child = spawn(
    bin.prometheus,
    [`--config.file=${config}`, `--storage.tsdb.path=${join(dir, 'data')}`, `--web.listen-address=127.0.0.1:${port}`, ...extraArgs],
    { stdio: ['ignore', log, log] },
  );
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  const base = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 20_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`prometheus exited ${child.exitCode}:\n${readFileSync(logPath, 'utf8').slice(-2000)}`);
    try {
      if ((await fetch(`${base}/-/ready`)).status === 200) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`prometheus not ready after 20 s:\n${readFileSync(logPath, 'utf8').slice(-2000)}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    base,
    child,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

export interface Series {
  metric: Record<string, string>;
  /** [unix seconds, value] */
  values: [number, number][];
}

interface ApiReply {
  status: string;
  error?: string;
  warnings?: string[];
  data: { resultType: string; result: unknown } | string[] | Record<string, string>[];
}

async function api(base: string, path: string, params: Record<string, string | string[]>): Promise<ApiReply> {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) for (const one of Array.isArray(v) ? v : [v]) q.append(k, one);
  const res = await fetch(`${base}${path}?${q}`);
  const body = (await res.json()) as ApiReply;
  if (res.status !== 200 || body.status !== 'success') throw new Error(`${path} ${JSON.stringify(params)}: ${res.status} ${body.error ?? ''}`);
  return body;
}

function toNumber(v: string): number {
  // The API renders NaN and infinities as strings.
  return v === 'NaN' ? NaN : v === '+Inf' ? Infinity : v === '-Inf' ? -Infinity : Number(v);
}

export async function queryRange(base: string, query: string, start: number, end: number, step: number): Promise<Series[]> {
  const body = await api(base, '/api/v1/query_range', { query, start: String(start), end: String(end), step: String(step) });
  const data = body.data as { resultType: string; result: { metric: Record<string, string>; values: [number, string][] }[] };
  if (data.resultType !== 'matrix') throw new Error(`${query}: expected a matrix, got ${data.resultType}`);
  return data.result.map((r) => ({ metric: r.metric, values: r.values.map(([t, v]) => [t, toNumber(v)] as [number, number]) }));
}

export async function queryInstant(base: string, query: string, time: number): Promise<Series[]> {
  const body = await api(base, '/api/v1/query', { query, time: String(time) });
  const data = body.data as { resultType: string; result: { metric: Record<string, string>; value: [number, string] }[] };
  if (data.resultType !== 'vector') throw new Error(`${query}: expected a vector, got ${data.resultType}`);
  return data.result.map((r) => ({ metric: r.metric, values: [[r.value[0], toNumber(r.value[1])]] }));
}

/** What Grafana's label_values(selector, label) offers, over [start, end]. */
export async function labelValues(base: string, selector: string, label: string, start: number, end: number): Promise<string[]> {
  const body = await api(base, `/api/v1/label/${encodeURIComponent(label)}/values`, { 'match[]': selector, start: String(start), end: String(end) });
  return (body.data as string[]).slice().sort();
}
