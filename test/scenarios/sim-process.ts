// A simulated server in its own process, driven over its HTTP admin routes. Scenario tests use
// it so the simulator's timing does not share an event loop (or a core) with the test process.
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import type { Faults, RequestRecord, Summary } from '../../sim/index';

const ROOT = join(__dirname, '..', '..');

export interface RemoteSim {
  url: string;
  requests(): Promise<RequestRecord[]>;
  summary(fromMs: number, toMs: number): Promise<Summary>;
  setFaults(f: Partial<Faults>): Promise<void>;
  crash(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Starts `sim/cli.ts` with the given options (camelCase keys become --kebab-case flags). Resolves
 * once it listens; with `loading`, a vLLM with a startup delay resolves at once, while it still
 * refuses connections.
 */
export async function spawnSim(options: Record<string, string | number | boolean>, loading = false): Promise<RemoteSim> {
  const args = ['--import', 'tsx', join(ROOT, 'sim', 'cli.ts'), '--port', '0'];
  for (const [k, v] of Object.entries(options)) args.push(`--${k.replace(/[A-Z]/g, (c) => '-' + c.toLowerCase())}=${v}`);
  const child: ChildProcess = spawn(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    let err = '';
    const timer = setTimeout(() => reject(new Error(`simulator did not start in 20 s: ${err}`)), 20_000);
    child.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
      const m = (loading ? /(?:listening on|connections to) (http:\/\/\S+)/ : /listening on (http:\/\/\S+)/).exec(out);
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
  const post = async (path: string, body: unknown) => {
    const res = await fetch(url + path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    await res.text();
  };
  return {
    url,
    requests: async () => (await (await fetch(`${url}/sim/requests`)).json()) as RequestRecord[],
    summary: async (fromMs, toMs) => (await (await fetch(`${url}/sim/summary?from=${fromMs}&to=${toMs}`)).json()) as Summary,
    setFaults: (f) => post('/sim/faults', f),
    crash: () => post('/sim/faults', { crash: true }),
    async stop() {
      if (child.exitCode !== null) return;
      const gone = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await gone;
    },
  };
}
