// The main command: argument handling, the missing-k6 path, and what it hands k6 (through a
// stand-in k6 that records its arguments and environment and checks the simulators are up).
// The first run builds the bundles, as `npm start` does; the later ones pass --no-build and use
// them (a webpack build is most of each run's 15-20 s).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { instanceSegments, parseStartArgs, remoteWriteWatch } from '../../scripts/start';
import { standIn } from '../../sim/stand-ins';

const ROOT = join(__dirname, '..', '..');
const SCENARIOS = ['dflash-vs-mtp', 'smoke'];

function start(args: string[], env: NodeJS.ProcessEnv) {
  return spawnSync(process.execPath, ['--import', 'tsx', join(ROOT, 'scripts', 'start.ts'), ...args], { cwd: ROOT, env, encoding: 'utf8', timeout: 120_000 });
}

test('arguments', () => {
  assert.deepEqual(parseStartArgs([], SCENARIOS), {
    benchmark: 'dflash-vs-mtp',
    sim: true,
    prometheus: false,
    instances: 1,
    raw: true,
    build: true,
    k6Args: [],
  });
  assert.deepEqual(
    parseStartArgs(['--benchmark', 'smoke', '--no-sim', '--prometheus', '--instances', '3', '--no-raw', '--no-build', '--', '--vus', '2'], SCENARIOS),
    {
      benchmark: 'smoke',
      sim: false,
      prometheus: true,
      instances: 3,
      raw: false,
      build: false,
      k6Args: ['--vus', '2'],
    },
  );
  assert.throws(() => parseStartArgs(['--instances', '0'], SCENARIOS), /--instances 0: expected a whole number from 1 to 64/);
  assert.throws(() => parseStartArgs(['--benchmark', 'nope'], SCENARIOS), /--benchmark nope: expected one of dflash-vs-mtp, smoke/);
  // The old name still works, and says which flag it read.
  assert.equal(parseStartArgs(['--scenario=smoke'], SCENARIOS).benchmark, 'smoke');
  assert.throws(() => parseStartArgs(['--scenario', 'nope'], SCENARIOS), /--scenario nope: expected one of/);
  assert.throws(() => parseStartArgs(['--sim'], SCENARIOS), /unknown option --sim/);
});

test("the simulated server of each variant: the A/B's mtp on vLLM, compare's on SGLang, the single server's with DFlash", () => {
  assert.deepEqual(standIn('dflash-vs-mtp', 'mtp'), { engine: 'vllm', spec: 'mtp' });
  assert.deepEqual(standIn('dflash-vs-mtp', 'dflash'), { engine: 'sglang', spec: 'dflash' });
  assert.deepEqual(standIn('compare', 'mtp'), { engine: 'sglang', spec: 'mtp' });
  assert.deepEqual(standIn('compare', 'fp8'), { engine: 'sglang', spec: 'none' });
  assert.deepEqual(standIn('smoke', 'target'), { engine: 'sglang', spec: 'dflash' });
});

test('instances: k6 execution segments that tile the run, with their sequence', () => {
  assert.deepEqual(instanceSegments(1), [null]);
  assert.deepEqual(instanceSegments(3), [
    { segment: '0:1/3', sequence: '0,1/3,2/3,1' },
    { segment: '1/3:2/3', sequence: '0,1/3,2/3,1' },
    { segment: '2/3:1', sequence: '0,1/3,2/3,1' },
  ]);
});

test('without k6 it says how to install it and exits 1, before starting anything', () => {
  const r = start([], { PATH: '/usr/bin:/bin', HOME: process.env.HOME });
  assert.equal(r.status, 1, r.stderr);
  assert.match(r.stderr, /k6 is not installed \(looked at K6_BIN and PATH\)/);
  assert.doesNotMatch(r.stdout, /simulators:/);
});

test('hands k6 the simulators, the small matrix and the bundle; stops the simulators after; passes k6 exit code on', () => {
  const dir = mkdtempSync(join(tmpdir(), 'start-'));
  const out = join(dir, 'k6.out');
  const stub = join(dir, 'k6');
  writeFileSync(
    stub,
    `#!/bin/sh
if [ "$1" = version ]; then echo "k6 v9.9.9 (stand-in)"; exit 0; fi
echo "ARGS $*" > "${out}"
env | grep -E '^(DFLASH_URL|MTP_URL|TARGET_URL|ISL|OSL|CONCURRENCY|DURATION|RESULTS_DIR|K6_NO_USAGE_REPORT|RUN_ID)=' | sort >> "${out}"
"${process.execPath}" -e 'Promise.all([process.env.DFLASH_URL, process.env.MTP_URL].map((u) => fetch(u + "/health").then((r) => ` +
      `r.status))).then((s) => console.log("HEALTH " + s.join(",")))' >> "${out}"
exit 99
`,
  );
  chmodSync(stub, 0o755);
  // An absolute RESULTS_DIR is used as given, the raw record included (not put under the checkout).
  const results = join(dir, 'results');
  const r = start([], { PATH: process.env.PATH, HOME: process.env.HOME, K6_BIN: stub, OSL: '32', RESULTS_DIR: results });
  assert.equal(r.status, 99, r.stderr);
  assert.match(r.stderr, /k6 exited 99: an SLO threshold was crossed/);
  const seen = readFileSync(out, 'utf8');
  // The raw record by default (docs/durability.md), named after the run id k6 is given, and its sidecar with the settings.
  const raw = /^ARGS run --out json=(\S+\/results\/(dflash-vs-mtp-\d+)\.raw\.json\.gz) dist\/dflash-vs-mtp\.js$/m.exec(seen);
  assert.ok(raw, seen);
  assert.ok(raw[1].startsWith(`${results}/`), raw[1]);
  assert.match(seen, new RegExp(`^RUN_ID=${raw[2]}$`, 'm'));
  const sidecar = raw[1].replace(/\.raw\.json\.gz$/, '.run.json');
  const meta = JSON.parse(readFileSync(sidecar, 'utf8')) as { benchmark: string; variables: Record<string, string> };
  rmSync(sidecar);
  assert.equal(meta.benchmark, 'dflash-vs-mtp');
  assert.equal(meta.variables.OSL, '32');
  assert.equal(meta.variables.DFLASH_URL, /^DFLASH_URL=(.*)$/m.exec(seen)?.[1]);
  assert.match(seen, /^HEALTH 200,200$/m, 'both simulators answered while k6 ran');
  assert.match(seen, /^OSL=32$/m, "the user's variable wins over the small matrix");
  assert.match(seen, /^ISL=512$/m);
  assert.match(seen, /^K6_NO_USAGE_REPORT=true$/m);
  const url = /^DFLASH_URL=(.*)$/m.exec(seen)?.[1];
  assert.ok(url && /^http:\/\/127\.0\.0\.1:\d+$/.test(url));
  const after = spawnSync(process.execPath, ['-e', `fetch(${JSON.stringify(url + '/health')}).then(() => process.exit(0), () => process.exit(3))`]);
  assert.equal(after.status, 3, 'the simulator was stopped');
});

test('a failed run: the raw record is named for a rebuild only when it holds a request that ended', () => {
  const dir = mkdtempSync(join(tmpdir(), 'start-'));
  const point = (metric: string) => JSON.stringify({ type: 'Point', metric, data: { time: '2026-12-05T00:00:00Z', value: 1, tags: {} } });
  for (const [lines, named] of [
    [[point('llm_run_record')], false],
    [[point('llm_run_record'), point('llm_success')], true],
  ] as const) {
    const stub = join(dir, 'k6');
    const record = join(dir, 'record.jsonl');
    writeFileSync(record, lines.join('\n') + '\n');
    // Writes the raw record k6 was asked for (gzip, as k6 does by the name), then fails as k6 does after an abort.
    writeFileSync(
      stub,
      `#!/bin/sh
if [ "$1" = version ]; then echo "k6 v9.9.9 (stand-in)"; exit 0; fi
gzip -c "${record}" > "$(echo "$*" | sed -n 's/.*--out json=\\([^ ]*\\).*/\\1/p')"
exit 108
`,
    );
    chmodSync(stub, 0o755);
    const r = start(['--no-build'], { PATH: process.env.PATH, HOME: process.env.HOME, K6_BIN: stub, OSL: '32' });
    assert.equal(r.status, 108, r.stderr);
    assert.match(r.stderr, /k6 exited 108\./);
    if (named) assert.match(r.stderr, /What was measured is in the raw record: npm run report -- \S+\.raw\.json\.gz/);
    else assert.doesNotMatch(r.stderr, /raw record/, 'nothing was measured: no rebuild to offer');
  }
});

test('TRANSPORT=sse runs the sse bundle (dist/sse/), which names xk6-sse for k6 to provision', () => {
  const dir = mkdtempSync(join(tmpdir(), 'start-'));
  const out = join(dir, 'k6.out');
  const stub = join(dir, 'k6');
  writeFileSync(stub, `#!/bin/sh\nif [ "$1" = version ]; then echo "k6 v9.9.9 (stand-in)"; exit 0; fi\necho "ARGS $*" > "${out}"\n`);
  chmodSync(stub, 0o755);
  const r = start(['--benchmark', 'smoke', '--no-sim', '--no-raw', '--no-build'], {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    K6_BIN: stub,
    TARGET_URL: 'http://127.0.0.1:9',
    TRANSPORT: 'sse',
  });
  assert.equal(r.status, 0, r.stderr);
  assert.match(readFileSync(out, 'utf8'), /^ARGS run dist\/sse\/smoke\.js$/m);
});

test('TRANSPORT=sse on a k6 without xk6-sse and with extension resolution off: says how to get it and never starts k6', () => {
  const dir = mkdtempSync(join(tmpdir(), 'start-'));
  const out = join(dir, 'k6.out');
  const stub = join(dir, 'k6');
  writeFileSync(stub, `#!/bin/sh\nif [ "$1" = version ]; then echo "k6 v2.2.0 (stand-in)"; exit 0; fi\necho "ARGS $*" > "${out}"\n`);
  chmodSync(stub, 0o755);
  const env = { PATH: process.env.PATH, HOME: process.env.HOME, K6_BIN: stub, TARGET_URL: 'http://127.0.0.1:9', TRANSPORT: 'sse' };
  const r = start(['--benchmark', 'smoke', '--no-sim', '--no-build'], { ...env, K6_AUTO_EXTENSION_RESOLUTION: 'false' });
  assert.equal(r.status, 1, r.stderr);
  assert.match(r.stderr, /lacks the xk6-sse extension\.\nTRANSPORT=sse needs a k6 binary with the xk6-sse extension \(module k6\/x\/sse\)/);
  assert.match(r.stderr, /xk6 build --with github\.com\/phymbert\/xk6-sse/);
  assert.equal(existsSync(out), false, 'k6 was not started');
  // With resolution on, k6 may provision the extension itself: the run goes ahead, and says so.
  const on = start(['--benchmark', 'smoke', '--no-sim', '--no-build'], env);
  assert.equal(on.status, 0, on.stderr);
  assert.match(on.stdout, /has no xk6-sse: k6 will try to provision a build with it/);
});

test('--prometheus: the remote-write failures k6 logs are counted, lines split across chunks included', async () => {
  const watch = remoteWriteWatch();
  const stream = new PassThrough();
  watch.follow(stream);
  const fail = (t: string) =>
    `time="${t}" level=error msg="Failed to send the time series data to the endpoint" error="HTTP POST request ` +
    `failed: connection refused" output="Prometheus remote write"\n`;
  const text = 'time="2026-01-01T00:00:00Z" level=info msg="▶ run 1/2" source=console\n' + fail('2026-01-01T00:00:05Z') + fail('2026-01-01T00:00:10Z');
  // Cut mid-line, as a pipe may deliver it; stderr still reaches the terminal (silenced here).
  const write = process.stderr.write;
  process.stderr.write = (() => true) as typeof process.stderr.write;
  try {
    stream.write(text.slice(0, 150));
    stream.write(text.slice(150));
    stream.end();
    await new Promise((r) => setImmediate(r));
  } finally {
    process.stderr.write = write;
  }
  const loss = watch.loss();
  assert.equal(loss.failed, 2);
  assert.equal(loss.firstAt, '2026-01-01T00:00:05Z');
  assert.equal(loss.lastError, 'HTTP POST request failed: connection refused');
  assert.equal(remoteWriteWatch().loss().failed, 0, 'no log, no loss');
});
