// The simulator on a test host's server namespace and k6 on a client namespace (scripts/test-hosts.sh):
// shared by test/scenarios/test-hosts.test.ts and test/scenarios/two-hosts.test.ts.
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT, type Runner } from './harness';
import type { RequestRecord } from '../../sim/index';

export interface HostSim {
  /** The simulator as the client host reaches it. */
  url: string;
  port: string;
  requests(): RequestRecord[];
  stop(): Promise<void>;
}

/** The simulator on the server host; its admin routes are read from inside that host. */
export async function simOnServer(ns: string, addr: string): Promise<HostSim> {
  const opts = ['--engine=vllm', '--time-scale=1', '--seed=31', '--max-running=64', '--prefix-caching=false', '--host=0.0.0.0', '--port=0'];
  const child: ChildProcess = spawn('ip', ['netns', 'exec', ns, process.execPath, '--import', 'tsx', join(ROOT, 'sim', 'cli.ts'), ...opts], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const port = await new Promise<string>((resolve, reject) => {
    let out = '';
    let err = '';
    const timer = setTimeout(() => reject(new Error(`simulator did not start in 20 s: ${err}`)), 20_000);
    child.stdout?.on('data', (d: Buffer) => {
      const m = /listening on http:\/\/[^:]+:(\d+)/.exec((out += d.toString()));
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
    child.stderr?.on('data', (d: Buffer) => (err += d.toString()));
    child.on('exit', (code) => reject(new Error(`simulator exited ${code}: ${err}`)));
  });
  const fetchIn = (path: string) =>
    execFileSync(
      'ip',
      ['netns', 'exec', ns, process.execPath, '-e', `fetch('http://127.0.0.1:${port}${path}').then((r) => r.text()).then((t) => process.stdout.write(t))`],
      { encoding: 'utf8', maxBuffer: 256 << 20 },
    );
  return {
    url: `http://${addr}:${port}`,
    port,
    requests: () => JSON.parse(fetchIn('/sim/requests')) as RequestRecord[],
    async stop() {
      if (child.exitCode !== null) return;
      const gone = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await gone;
    },
  };
}

/** k6 on the client host: the binary under test, started inside the client's namespace. */
export function k6OnClient(runner: Runner, ns: string): string {
  const file = join(mkdtempSync(join(tmpdir(), 'test-hosts-')), 'k6');
  writeFileSync(file, `#!/bin/sh\nexec ip netns exec ${ns} ${JSON.stringify(runner.k6?.bin ?? 'k6')} "$@"\n`);
  chmodSync(file, 0o755);
  return file;
}
