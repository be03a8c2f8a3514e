// The test hosts themselves (scripts/test-hosts.sh and, where the kernel has no netem, the
// user-space link scripts/net-link.py): the link does to the traffic what it was asked (round trip,
// rate, loss, reordering), and the hosts are gone after `down`, after COMMAND, and on Ctrl-C.
// Needs root and iproute2; about 10 s. The scenario test (test/scenarios/test-hosts.test.ts) runs
// k6 against the simulator across them.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { hostsDown, hostsUnavailable, hostsUp, linkCounts, TEST_HOSTS_SCRIPT as SCRIPT, type HostsEnv } from './test-hosts';

// Of this process: another checkout running the tests at once makes hosts of its own.
const NAME = `h${process.pid % 100000}`;

const namespaces = () => execFileSync('ip', ['netns', 'list'], { encoding: 'utf8' });
const mine = () => namespaces().includes(`${NAME}-client`) || namespaces().includes(`${NAME}-server`);

const up = (args: string[]) => hostsUp(NAME, args).env;
const down = () => hostsDown(NAME);

/**
 * On the server host a sender of `bytes`; on the client host 10 timed connects, then the download
 * timed. Python's blocking sockets: no event loop between the packets and the clock.
 */
function transfer(env: HostsEnv, bytes: number): { connectMs: number; mbitPerSec: number } {
  const server = spawn(
    'ip',
    [
      'netns',
      'exec',
      env.TEST_HOSTS_SERVER,
      'python3',
      '-c',
      'import socket\ns = socket.create_server(("0.0.0.0", 7011))\nprint("ready", flush=True)\nwhile True:\n' +
        `    c, _ = s.accept()\n    if c.recv(1) == b"d":\n        c.sendall(b"x" * ${bytes})\n    c.close()`,
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  try {
    const client =
      'import json, socket, time\nts = []\nfor _ in range(10):\n    t = time.perf_counter()\n' +
      (`    c = socket.create_connection(("${env.TEST_HOSTS_SERVER_ADDR}", 7011))\n    ts.append((time.perf_counter() ` +
        `- t) * 1000)\n    c.sendall(b"n"); c.close()\n`) +
      `c = socket.create_connection(("${env.TEST_HOSTS_SERVER_ADDR}", 7011))\nc.sendall(b"d")\nt = time.perf_counter()\nn = 0\n` +
      'while True:\n    b = c.recv(65536)\n    if not b: break\n    n += len(b)\n' +
      'ts.sort()\nprint(json.dumps({"connectMs": ts[len(ts) // 2], "mbitPerSec": n * 8 / (time.perf_counter() - t) / 1e6}))';
    // The sender is given half a second to listen.
    const r = execFileSync('ip', ['netns', 'exec', env.TEST_HOSTS_CLIENT, 'python3', '-c', `import time\ntime.sleep(0.5)\n${client}`], {
      encoding: 'utf8',
      timeout: 60_000,
    });
    return JSON.parse(r) as { connectMs: number; mbitPerSec: number };
  } finally {
    server.kill('SIGKILL');
  }
}

const why = hostsUnavailable();
describe('test hosts: the link and its clean-up', { skip: why ?? undefined }, () => {
  test('the round trip and the rate asked for; the hosts are gone after down', () => {
    const env = up(['--rtt', '30', '--rate', '4']);
    let got;
    try {
      got = transfer(env, 400_000);
    } finally {
      down();
    }
    console.log(
      `rtt 30 ms, rate 4 Mbit/s over ${env.TEST_HOSTS_LINK}: connect p50 ${got.connectMs.toFixed(1)} ms, download ${got.mbitPerSec.toFixed(2)} Mbit/s`,
    );
    assert.ok(got.connectMs >= 30 && got.connectMs <= 35, `connect ${got.connectMs.toFixed(1)} ms for a 30 ms round trip`);
    // TCP and IP headers take about 4 % of a full segment; slow start costs a few round trips.
    assert.ok(got.mbitPerSec >= 3.2 && got.mbitPerSec <= 4, `${got.mbitPerSec.toFixed(2)} Mbit/s through a 4 Mbit/s link`);
    assert.ok(!mine(), `namespaces left after down:\n${namespaces()}`);
  });

  test('loss and reordering: the share of packets asked for (user-space link)', (t) => {
    const env = up(['--rtt', '4', '--loss', '5', '--reorder', '20', '--seed', '7']);
    try {
      transfer(env, 600_000);
    } finally {
      down();
    }
    const s = linkCounts(env);
    if (s === null) return t.skip("over netem the kernel drops and reorders: the link's own counts are the user-space link's");
    console.log(`loss 5 %, reorder 20 %: ${s.lost} lost and ${s.reordered} reordered of ${s.packets} packets`);
    assert.ok(s.packets > 500, `${s.packets} packets`);
    assert.ok(Math.abs(s.lost / s.packets - 0.05) < 0.02, `${s.lost} of ${s.packets} lost for 5 %`);
    // Reordering is drawn among the packets not lost.
    assert.ok(Math.abs(s.reordered / (s.packets - s.lost) - 0.2) < 0.04, `${s.reordered} of ${s.packets - s.lost} reordered for 20 %`);
  });

  test('--clients 2: a link each to the one server address, no way between the clients; all gone after SIGTERM', async () => {
    const env = up(['--clients', '2', '--rtt', '12', '--rate', '8']);
    let got;
    try {
      assert.equal(env.TEST_HOSTS_CLIENTS, '2');
      assert.equal(env.TEST_HOSTS_CLIENT1, env.TEST_HOSTS_CLIENT);
      assert.notEqual(env.TEST_HOSTS_CLIENT2, env.TEST_HOSTS_CLIENT);
      got = [env.TEST_HOSTS_CLIENT1, env.TEST_HOSTS_CLIENT2].map((c) => transfer({ ...env, TEST_HOSTS_CLIENT: c }, 200_000));
      // The second client host has no route to the first: nothing but its own link to the server.
      const across = spawnSync(
        'ip',
        ['netns', 'exec', env.TEST_HOSTS_CLIENT2, 'python3', '-c', `import socket\nsocket.create_connection(("${env.TEST_HOSTS_CLIENT_ADDR1}", 9), timeout=1)`],
        {
          encoding: 'utf8',
        },
      );
      assert.match(across.stderr, /Network is unreachable/, `client 2 → client 1: ${across.stderr}`);
    } finally {
      down();
    }
    console.log(
      `--clients 2, rtt 12 ms, 8 Mbit/s: ` +
        `${got.map((g, i) => `client ${i + 1} connect p50 ${g.connectMs.toFixed(1)} ms, ${g.mbitPerSec.toFixed(2)} Mbit/s`).join('; ')}`,
    );
    for (const g of got) assert.ok(g.connectMs >= 12 && g.connectMs <= 17, `connect ${g.connectMs.toFixed(1)} ms for a 12 ms round trip`);
    assert.ok(!mine(), `namespaces left after down:\n${namespaces()}`);

    const child = spawn('bash', [SCRIPT, 'run', '--name', NAME, '--clients', '2', '--', 'sleep', '30'], { detached: true, stdio: 'ignore' });
    for (let i = 0; i < 100 && !namespaces().includes(`${NAME}-client2`); i++) await new Promise((r) => setTimeout(r, 50));
    assert.ok(namespaces().includes(`${NAME}-client2`), 'no second client host while COMMAND runs');
    const gone = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
    process.kill(-(child.pid as number), 'SIGTERM');
    assert.equal(await gone, 143);
    assert.ok(!mine(), `namespaces left after SIGTERM:\n${namespaces()}`);
    const links = spawnSync('pgrep', ['-f', `net-link.py --dev-a ${NAME}c`], { encoding: 'utf8' });
    assert.equal(links.stdout.trim(), '', 'user-space links left running after SIGTERM');
  });

  test('run: the hosts exist for COMMAND, and are gone after it and after Ctrl-C', async () => {
    const seen = spawnSync('bash', [SCRIPT, 'run', '--name', NAME, '--', 'ip', 'netns', 'list'], { encoding: 'utf8' });
    assert.equal(seen.status, 0, seen.stderr);
    assert.ok(seen.stdout.includes(`${NAME}-client`) && seen.stdout.includes(`${NAME}-server`), `COMMAND saw:\n${seen.stdout}`);
    assert.ok(!mine(), 'namespaces left after run');
    const failing = spawnSync('bash', [SCRIPT, 'run', '--name', NAME, '--', 'false']);
    assert.equal(failing.status, 1, "COMMAND's exit code is run's");
    assert.ok(!mine(), 'namespaces left after a failing COMMAND');

    const child = spawn('bash', [SCRIPT, 'run', '--name', NAME, '--', 'sleep', '30'], { detached: true, stdio: 'ignore' });
    for (let i = 0; i < 100 && !mine(); i++) await new Promise((r) => setTimeout(r, 50));
    assert.ok(mine(), 'no hosts while COMMAND runs');
    const t0 = Date.now();
    const gone = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
    process.kill(-(child.pid as number), 'SIGINT');
    const code = await gone;
    assert.equal(code, 130);
    assert.ok(Date.now() - t0 < 3000, `Ctrl-C took ${Date.now() - t0} ms`);
    assert.ok(!mine(), `namespaces left after Ctrl-C:\n${namespaces()}`);
  });
});
