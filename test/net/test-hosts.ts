// Driving scripts/test-hosts.sh from a test: whether hosts can be made here, making them, removing
// them, and what the user-space link counted (test/net/test-hosts.test.ts,
// test/scenarios/test-hosts.test.ts).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export const TEST_HOSTS_SCRIPT = join(__dirname, '..', '..', 'scripts', 'test-hosts.sh');

/** Why test hosts cannot be made here (the kernel's or the tools' own answer), or null. */
export function hostsUnavailable(): string | null {
  if (process.platform !== 'linux') return 'test hosts need Linux network namespaces';
  if (process.getuid?.() !== 0) return 'test hosts need root (network namespaces)';
  if (spawnSync('ip', ['-V']).error) return 'no ip command (apt-get install -y iproute2)';
  const probe = `thprobe${process.pid % 100000}`;
  const made = spawnSync('ip', ['netns', 'add', probe], { encoding: 'utf8' });
  spawnSync('ip', ['netns', 'del', probe]);
  return made.status === 0 ? null : `cannot make a network namespace here: ${made.stderr.trim()}`;
}

/** The environment `up` prints: TEST_HOSTS_CLIENT, TEST_HOSTS_SERVER, their addresses, the link, its stats file. */
export type HostsEnv = Record<string, string>;

/** Makes the hosts `name` with the script's options; they stay until hostsDown. */
export function hostsUp(name: string, args: string[]): { env: HostsEnv; said: string } {
  const r = spawnSync('bash', [TEST_HOSTS_SCRIPT, 'up', '--name', name, ...args], { encoding: 'utf8' });
  assert.equal(r.status, 0, `test-hosts.sh up: ${r.stderr}`);
  const env: HostsEnv = {};
  for (const m of r.stdout.matchAll(/^export (TEST_HOSTS_\w+)=(.*)$/gm)) env[m[1]] = m[2];
  return { env, said: r.stderr.trim() };
}

export function hostsDown(name: string): void {
  spawnSync('bash', [TEST_HOSTS_SCRIPT, 'down', '--name', name]);
}

export interface LinkCounts {
  packets: number;
  lost: number;
  reordered: number;
}

/** Both ways of the user-space link added up, once it has stopped; null over netem (the kernel counts). */
export function linkCounts(env: HostsEnv): LinkCounts | null {
  if (env.TEST_HOSTS_LINK !== 'user' || !existsSync(env.TEST_HOSTS_STATS)) return null;
  const ways = Object.values(JSON.parse(readFileSync(env.TEST_HOSTS_STATS, 'utf8')) as Record<string, LinkCounts>);
  return ways.reduce((a, w) => ({ packets: a.packets + w.packets, lost: a.lost + w.lost, reordered: a.reordered + w.reordered }), {
    packets: 0,
    lost: 0,
    reordered: 0,
  });
}
