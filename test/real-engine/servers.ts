// Real llama.cpp servers for tests: runs setup.sh (a llama-server binary or a Debian sid chroot,
// plus two generated GGUF models), then starts llama-server processes on free loopback ports.
//
//   const reason = await llamaUnavailableReason();        // null, or why there is none here
//   test('...', { skip: reason ?? false }, async () => {
//     const servers = await startLlamaServers();           // { spec, plain, stop() }
//     try { ... fetch(`${servers.spec.url}/v1/completions`, ...) ... } finally { await servers.stop(); }
//   });
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';

const HERE = __dirname;
const SETUP = join(HERE, 'setup.sh');

/** What setup.sh reported on its READY line. */
export interface LlamaSetup {
  /** 'chroot': llama-server runs as `chroot root ...`; 'host': `server` is a host path. */
  mode: 'chroot' | 'host';
  root: string | null;
  /** The llama-server binary, as seen by the server (inside the chroot in chroot mode). */
  server: string;
  /** The models folder as seen by the server (`/models` in chroot mode). */
  models: string;
  /** The same folder on the host. */
  hostModels: string;
}

export type SetupOutcome = { ok: true; setup: LlamaSetup } | { ok: false; reason: string };

export interface LlamaServer {
  url: string;
  port: number;
  pid: number;
  /** The command line it was started with (for messages). */
  args: string[];
  /** The last lines the server wrote to stdout and stderr. */
  logTail(lines?: number): string;
  stop(): Promise<void>;
}

export interface LlamaServers {
  /** Target model with a draft model: `-md draft.gguf --spec-type draft-simple --spec-draft-n-max N`. */
  spec: LlamaServer;
  /** The same target model without speculation. */
  plain: LlamaServer;
  stop(): Promise<void>;
}

export interface LlamaServerOptions {
  /** Slots (-np). Default 4. */
  parallel?: number;
  /** Total context (-c), split evenly between the slots. Default 16384 (4096 per slot at -np 4). */
  ctx?: number;
  /** Threads (-t). Default 1, so two servers fit on a 2-core machine. */
  threads?: number;
  /** --spec-draft-n-max for the speculative server. Default 6. */
  draftMax?: number;
  /** Extra arguments for every server. */
  extraArgs?: string[];
  /** Bound on model loading, until GET /health is 200. Default 120 s. */
  startTimeoutMs?: number;
  /** Where setup.sh progress lines go. Default: process.stderr. */
  log?: (line: string) => void;
}

let setupPromise: Promise<SetupOutcome> | undefined;

/**
 * Runs setup.sh once per process (it is idempotent and takes well under a second when everything
 * is in place; a fresh machine needs about 2 minutes). Resolves with the setup, or with the reason
 * llama-server is unavailable here (setup.sh exit code 3); rejects on any other failure.
 */
export function prepareLlama(log: (line: string) => void = defaultLog): Promise<SetupOutcome> {
  setupPromise ??= new Promise<SetupOutcome>((resolve, reject) => {
    const child = spawn('bash', [SETUP], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    let pending = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      pending += d.toString();
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      for (const l of lines) if (!l.startsWith('READY ')) log(l);
    });
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const timer = setTimeout(() => child.kill('SIGTERM'), 15 * 60_000);
    child.on('error', (e) => {
      clearTimeout(timer);
      resolve({ ok: false, reason: `cannot run bash ${SETUP}: ${e.message}` });
    });
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) {
        const m = /^READY (\{.*\})$/m.exec(out);
        if (m) return resolve({ ok: true, setup: JSON.parse(m[1]) as LlamaSetup });
        return reject(new Error(`setup.sh printed no READY line:\n${out}${err}`));
      }
      if (code === 3) {
        const lines = err.trim().split('\n');
        return resolve({ ok: false, reason: lines[lines.length - 1] || 'llama-server unavailable' });
      }
      reject(new Error(`setup.sh failed (${signal ?? `exit ${code}`}):\n${tail(out + err, 20)}`));
    });
  });
  return setupPromise;
}

/** Null when real llama-servers can run here, else a one-line reason (for `test(..., { skip })`). */
export async function llamaUnavailableReason(): Promise<string | null> {
  const s = await prepareLlama();
  return s.ok ? null : s.reason;
}

/** Starts the speculative and the plain server side by side. */
export async function startLlamaServers(opts: LlamaServerOptions = {}): Promise<LlamaServers> {
  const [spec, plain] = await Promise.allSettled([startLlamaServer({ ...opts, draft: true }), startLlamaServer(opts)]);
  if (spec.status === 'rejected' || plain.status === 'rejected') {
    if (spec.status === 'fulfilled') await spec.value.stop();
    if (plain.status === 'fulfilled') await plain.value.stop();
    throw spec.status === 'rejected' ? spec.reason : (plain as PromiseRejectedResult).reason;
  }
  return {
    spec: spec.value,
    plain: plain.value,
    stop: async () => {
      await Promise.all([spec.value.stop(), plain.value.stop()]);
    },
  };
}

/** Starts one llama-server with the target model (and the draft model when `draft` is true). */
export async function startLlamaServer(opts: LlamaServerOptions & { draft?: boolean } = {}): Promise<LlamaServer> {
  const outcome = await prepareLlama(opts.log);
  if (!outcome.ok) throw new Error(outcome.reason);
  // A free port can be taken between probing and binding: try again on a bind failure.
  for (let attempt = 1; ; attempt++) {
    try {
      return await launch(outcome.setup, await freePort(), opts);
    } catch (e) {
      if (attempt < 3 && e instanceof BindError) continue;
      throw e;
    }
  }
}

class BindError extends Error {}

const running = new Set<ChildProcess>();
let exitHookInstalled = false;

async function launch(setup: LlamaSetup, port: number, opts: LlamaServerOptions & { draft?: boolean }): Promise<LlamaServer> {
  const m = (name: string) => `${setup.models}/${name}`;
  const args = ['-m', m('target.gguf')];
  if (opts.draft) args.push('-md', m('draft.gguf'), '--spec-type', 'draft-simple', '--spec-draft-n-max', String(opts.draftMax ?? 6));
  args.push('--host', '127.0.0.1', '--port', String(port), '-np', String(opts.parallel ?? 4), '-c', String(opts.ctx ?? 16384));
  args.push('--metrics', '-t', String(opts.threads ?? 1), ...(opts.extraArgs ?? []));

  const [cmd, cmdArgs] =
    setup.mode === 'chroot'
      ? ['chroot', [setup.root as string, 'env', '-i', 'PATH=/usr/sbin:/usr/bin:/sbin:/bin', 'HOME=/root', 'LANG=C.UTF-8', setup.server, ...args]]
      : [setup.server, args];
  // Its own process group, so stop() ends whatever chroot/env started.
  const child = spawn(cmd, cmdArgs, { stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  running.add(child);
  child.once('exit', () => running.delete(child));
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.once('exit', () => {
      for (const c of running) killGroup(c, 'SIGKILL');
    });
  }
  const log: string[] = [];
  let partial = '';
  const collect = (d: Buffer) => {
    const lines = (partial + d.toString()).split('\n');
    partial = lines.pop() ?? '';
    log.push(...lines);
    if (log.length > 400) log.splice(0, log.length - 200);
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  const logTail = (n = 20) =>
    [...log, partial]
      .filter((l) => l !== '')
      .slice(-n)
      .join('\n');

  const url = `http://127.0.0.1:${port}`;
  const server: LlamaServer = {
    url,
    port,
    pid: child.pid ?? -1,
    args,
    logTail,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const gone = new Promise<void>((r) => child.once('exit', () => r()));
      killGroup(child, 'SIGTERM');
      const timer = setTimeout(() => killGroup(child, 'SIGKILL'), 10_000);
      await gone;
      clearTimeout(timer);
    },
  };

  const timeoutMs = opts.startTimeoutMs ?? 120_000;
  const deadline = Date.now() + timeoutMs;
  let exited: string | null = null;
  child.once('exit', (code, signal) => (exited = signal ?? `exit code ${code}`));
  child.once('error', (e) => (exited = e.message));
  for (;;) {
    if (exited !== null) {
      const text = logTail(15);
      if (/couldn't bind|address already in use/i.test(text)) throw new BindError(`port ${port} taken`);
      throw new Error(`llama-server (${opts.draft ? 'speculative' : 'plain'}) exited (${exited}) before it was healthy:\n${text}`);
    }
    if (Date.now() > deadline) {
      await server.stop();
      throw new Error(`llama-server (${opts.draft ? 'speculative' : 'plain'}) was not healthy within ${timeoutMs / 1000} s:\n${logTail(15)}`);
    }
    try {
      const res = await fetch(`${url}/health`, { signal: AbortSignal.timeout(2_000) });
      await res.text();
      if (res.status === 200) return server;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
}

function killGroup(child: ChildProcess, signal: NodeJS.Signals) {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    try {
      child.kill(signal);
    } catch {
      // already gone
    }
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.unref();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const addr = s.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      s.close(() => resolve(port));
    });
  });
}

function tail(text: string, n: number): string {
  return text.trim().split('\n').slice(-n).join('\n');
}

function defaultLog(line: string) {
  process.stderr.write(line + '\n');
}
