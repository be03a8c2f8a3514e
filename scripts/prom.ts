// A local Prometheus that k6 can push to (`k6 run -o experimental-prometheus-rw`), started from the
// shipped config in deploy/prometheus/ and stopped cleanly with Ctrl-C.
//
//   npx tsx scripts/prom.ts                              127.0.0.1:9090, data in .tmp/prometheus
//   npx tsx scripts/prom.ts --port 9091 --data /tmp/p    another port and data folder
//   npx tsx scripts/prom.ts --scrape http://127.0.0.1:30000 --scrape mtp=http://127.0.0.1:8000
//                                                        also scrape the servers' /metrics
//
// Uses Debian's /usr/bin/prometheus (apt-get install prometheus) or PROMETHEUS_BIN.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { accessSync, constants, copyFileSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { delimiter, join, resolve } from 'node:path';

const ROOT = join(__dirname, '..');
export const SHIPPED_CONFIG = join(ROOT, 'deploy', 'prometheus', 'prometheus.yml');
/** The file the shipped config's llm-server job reads (file_sd, relative to the config's folder). */
export const TARGETS_FILE = 'llm-server.json';
/** The trend stats the Grafana dashboard reads (docs/prometheus.md explains each). */
export const TREND_STATS = 'p(50),p(90),p(99),avg,max,count';

export const INSTALL_PROMETHEUS = [
  'prometheus is not installed (looked at PROMETHEUS_BIN and PATH). Install it, then run this again:',
  '  Debian/Ubuntu: apt-get install prometheus   (the package also brings promtool)',
  '  Any OS:        download the official binary from prometheus.io/download and set PROMETHEUS_BIN=/path/to/prometheus',
].join('\n');

export class ArgError extends Error {
  override name = 'ArgError';
}

export interface ScrapeTarget {
  /** The k6 `variant` label the server's series get, so the dashboard's filter applies to them. */
  variant: string | null;
  url: URL;
}

export interface PromArgs {
  port: number;
  dataDir: string;
  scrape: ScrapeTarget[];
}

const USAGE = 'usage: npx tsx scripts/prom.ts [--port 9090] [--data DIR] [--scrape [VARIANT=]URL ...]';

function parseScrape(text: string): ScrapeTarget {
  const eq = text.indexOf('=');
  // A URL never has '=' before its scheme, so `dflash=http://…` splits unambiguously.
  const hasLabel = eq > 0 && !text.slice(0, eq).includes('://');
  const variant = hasLabel ? text.slice(0, eq) : null;
  const rest = hasLabel ? text.slice(eq + 1) : text;
  if (variant !== null && !/^[A-Za-z0-9_.-]+$/.test(variant)) {
    throw new ArgError(`--scrape: invalid variant '${variant}'; use letters, digits, '.', '_' or '-'`);
  }
  let url: URL;
  try {
    url = new URL(rest);
  } catch {
    throw new ArgError(`--scrape: '${rest}' is not a URL; expected e.g. http://127.0.0.1:30000`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ArgError(`--scrape: '${rest}' must be http:// or https://`);
  if (url.search || url.hash) throw new ArgError(`--scrape: '${rest}' must not have a query or fragment`);
  return { variant, url };
}

/** Parses the command line; every mistake is an ArgError whose message names the flag. */
export function parsePromArgs(argv: readonly string[], cwd = process.cwd()): PromArgs | 'help' {
  const out: PromArgs = { port: 9090, dataDir: join(ROOT, '.tmp', 'prometheus'), scrape: [] };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === '--help' || arg === '-h') return 'help';
    const m = /^--(port|data|scrape)(?:=(.*))?$/.exec(arg);
    if (!m) throw new ArgError(`${arg}: unknown option; expected --port, --data or --scrape`);
    const flag = m[1] as 'port' | 'data' | 'scrape';
    let value = m[2];
    if (value === undefined) {
      const next = argv[i + 1];
      if (next === undefined || next.startsWith('--')) throw new ArgError(`--${flag}: missing value`);
      value = next;
      i++;
    }
    if (flag === 'port') {
      if (!/^\d+$/.test(value) || Number(value) < 1 || Number(value) > 65535)
        throw new ArgError(`--port: invalid value '${value}'; expected an integer from 1 to 65535`);
      out.port = Number(value);
    } else if (flag === 'data') {
      if (value === '') throw new ArgError('--data: empty path');
      out.dataDir = resolve(cwd, value);
    } else {
      out.scrape.push(parseScrape(value));
    }
  }
  return out;
}

/** The file_sd target groups for --scrape: one group per URL, since each may carry its own path and variant. */
export function scrapeTargetGroups(targets: readonly ScrapeTarget[]): { targets: string[]; labels: Record<string, string> }[] {
  return targets.map((t) => {
    const labels: Record<string, string> = {
      __scheme__: t.url.protocol.slice(0, -1),
      // A bare base URL means the servers' usual /metrics route.
      __metrics_path__: t.url.pathname === '/' ? '/metrics' : t.url.pathname,
    };
    if (t.variant !== null) labels.variant = t.variant;
    return { targets: [t.url.host], labels };
  });
}

/** Prometheus' own command line. */
export function prometheusArgs(port: number, dataDir: string): string[] {
  return [
    `--config.file=${join(dataDir, 'prometheus.yml')}`,
    `--storage.tsdb.path=${join(dataDir, 'data')}`,
    `--web.listen-address=127.0.0.1:${port}`,
    // The receiver is off by default; k6's experimental-prometheus-rw output writes to it.
    '--web.enable-remote-write-receiver',
    // Only needed for K6_PROMETHEUS_RW_TREND_AS_NATIVE_HISTOGRAM=true; harmless otherwise.
    '--enable-feature=native-histograms',
  ];
}

/** Lays out DIR: a copy of the shipped config (its file_sd path is relative to it) and the target files. */
export function prepareDataDir(dataDir: string, scrape: readonly ScrapeTarget[]): void {
  const targetsDir = join(dataDir, 'targets');
  mkdirSync(join(dataDir, 'data'), { recursive: true });
  mkdirSync(targetsDir, { recursive: true });
  copyFileSync(SHIPPED_CONFIG, join(dataDir, 'prometheus.yml'));
  // Targets of an earlier run must not linger: the job scrapes exactly what this run was given.
  for (const f of readdirSync(targetsDir)) if (f.endsWith('.json')) rmSync(join(targetsDir, f));
  if (scrape.length > 0) writeFileSync(join(targetsDir, TARGETS_FILE), JSON.stringify(scrapeTargetGroups(scrape), null, 2) + '\n');
}

export function findPrometheus(env: NodeJS.ProcessEnv = process.env): string | null {
  const candidates = env.PROMETHEUS_BIN
    ? [env.PROMETHEUS_BIN]
    : (env.PATH ?? '')
        .split(delimiter)
        .filter(Boolean)
        .map((d) => join(d, 'prometheus'));
  for (const p of candidates) {
    try {
      accessSync(p, constants.X_OK);
      return p;
    } catch {
      // keep looking
    }
  }
  return null;
}

/** Resolves to an error message when the port cannot be bound, null when it is free. */
function portProblem(port: number): Promise<string | null> {
  return new Promise((done) => {
    const srv = createServer();
    srv.once('error', (e: NodeJS.ErrnoException) =>
      done(e.code === 'EADDRINUSE' ? `port ${port} on 127.0.0.1 is in use` : `cannot listen on 127.0.0.1:${port}: ${e.message}`),
    );
    srv.listen(port, '127.0.0.1', () => srv.close(() => done(null)));
  });
}

function logTail(path: string, lines = 15): string {
  try {
    return readFileSync(path, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}

async function waitReady(base: string, child: ChildProcess, timeoutMs: number): Promise<'ready' | 'exited' | 'timeout'> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) return 'exited';
    try {
      const res = await fetch(`${base}/-/ready`, { signal: AbortSignal.timeout(2000) });
      if (res.status === 200) return 'ready';
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  return 'timeout';
}

async function main(): Promise<number> {
  let args: PromArgs | 'help';
  try {
    args = parsePromArgs(process.argv.slice(2));
  } catch (e) {
    if (!(e instanceof ArgError)) throw e;
    console.error(`prom: ${e.message}\n${USAGE}`);
    return 2;
  }
  if (args === 'help') {
    console.log(USAGE);
    return 0;
  }
  const bin = findPrometheus();
  if (bin === null) {
    console.error(INSTALL_PROMETHEUS);
    return 1;
  }
  const busy = await portProblem(args.port);
  if (busy !== null) {
    // Debian's package starts a system service on 9090 where systemd runs.
    console.error(`prom: ${busy} (another Prometheus? stop it, e.g. systemctl stop prometheus, or pass --port)`);
    return 1;
  }
  prepareDataDir(args.dataDir, args.scrape);
  const version = (spawnSync(bin, ['--version'], { encoding: 'utf8' }).stdout || '').split('\n')[0]?.trim() || bin;
  const logPath = join(args.dataDir, 'prometheus.log');
  const log = openSync(logPath, 'w');
  // Prometheus logs every compaction; the log goes to a file and only its tail is shown on failure.
  // The child stays in our process group, so a terminal's Ctrl-C reaches it too: the forwarded
  // signal below then arrives second, which Prometheus ignores once it is shutting down.
  const child = spawn(bin, prometheusArgs(args.port, args.dataDir), { stdio: ['ignore', log, log] });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) => child.once('exit', (code, signal) => r({ code, signal })));
  child.once('error', (e) => console.error(`prom: could not run ${bin}: ${e.message}`));
  // Last resort if this process dies without the signal path below: never leave the server behind.
  process.once('exit', () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });

  let stopping = false;
  const stop = (sig: NodeJS.Signals): void => {
    if (stopping) return;
    stopping = true;
    child.kill(sig);
    // Prometheus flushes its head block on shutdown; give it time, then insist.
    setTimeout(() => child.kill('SIGKILL'), 30_000).unref();
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));

  const base = `http://127.0.0.1:${args.port}`;
  const state = await waitReady(base, child, 120_000);
  if (state !== 'ready') {
    if (state === 'timeout') stop('SIGTERM');
    const { code, signal } = await exited;
    if (stopping && state !== 'timeout') return 0; // Ctrl-C during startup
    console.error(
      `prom: prometheus ${state === 'timeout' ? 'was not ready after 120 s' : `exited (${signal ?? `code ${code}`}) before it was ready`}; ` +
        `last lines of ${logPath}:\n${logTail(logPath)}`,
    );
    return 1;
  }
  const rw = `${base}/api/v1/write`;
  console.log(`prom: ${version} ready at ${base} (pid ${child.pid}; data ${join(args.dataDir, 'data')}; log ${logPath})`);
  console.log(`prom: remote write URL ${rw}`);
  console.log('prom: for k6 -o experimental-prometheus-rw (npm start -- --prometheus sets the trend stats itself):');
  console.log(`  export K6_PROMETHEUS_RW_SERVER_URL=${rw}`);
  console.log(`  export K6_PROMETHEUS_RW_TREND_STATS='${TREND_STATS}'`);
  for (const t of args.scrape) {
    const g = scrapeTargetGroups([t])[0];
    console.log(
      `prom: scraping ${g?.labels.__scheme__}://${t.url.host}${g?.labels.__metrics_path__}${t.variant ? ` as variant="${t.variant}"` : ''} (job llm-server)`,
    );
  }
  console.log('prom: Ctrl-C stops it.');

  const { code, signal } = await exited;
  if (stopping) {
    if (code === 0) {
      console.log('prom: stopped.');
      return 0;
    }
    console.error(`prom: prometheus did not stop cleanly (${signal ?? `code ${code}`}); last lines of ${logPath}:\n${logTail(logPath)}`);
    return 1;
  }
  console.error(`prom: prometheus exited unexpectedly (${signal ?? `code ${code}`}); last lines of ${logPath}:\n${logTail(logPath)}`);
  return 1;
}

if (require.main === module) {
  main().then(
    (code) => process.exit(code),
    (e: unknown) => {
      console.error(`prom: ${(e as Error).stack ?? String(e)}`);
      process.exit(1);
    },
  );
}
