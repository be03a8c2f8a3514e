// scripts/prom.ts: argument parsing, the file_sd targets it writes, and (where Prometheus is
// installed) a real start: ready, remote-write receiver on, a --scrape target scraped with its
// variant label, and Ctrl-C stopping the server with nothing left running.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, describe, test } from 'node:test';
import { ArgError, parsePromArgs, prepareDataDir, prometheusArgs, scrapeTargetGroups, TARGETS_FILE, type PromArgs } from '../../scripts/prom';
import { startSim } from '../../sim/index';
import { findBinaries, freePort, queryInstant } from './prometheus';

const ROOT = join(__dirname, '..', '..');
const SCRIPT = join(ROOT, 'scripts', 'prom.ts');
const tmp = mkdtempSync(join(tmpdir(), 'k6-llm-bench-prom-'));
after(() => rmSync(tmp, { recursive: true, force: true }));

const parse = (argv: string[]) => parsePromArgs(argv, '/work/here') as PromArgs;
const parseError = (argv: string[]): string => {
  try {
    parsePromArgs(argv);
  } catch (e) {
    assert.ok(e instanceof ArgError, String(e));
    return e.message;
  }
  assert.fail(`${argv.join(' ')} was accepted`);
};

describe('prom.ts arguments', () => {
  test('defaults: port 9090, data under .tmp/prometheus, no scrape', () => {
    const a = parse([]);
    assert.equal(a.port, 9090);
    assert.equal(a.dataDir, join(ROOT, '.tmp', 'prometheus'));
    assert.deepEqual(a.scrape, []);
  });

  test('--port N and --port=N; --data resolved against the working directory; --scrape repeats', () => {
    assert.equal(parse(['--port', '9091']).port, 9091);
    assert.equal(parse(['--port=19090']).port, 19090);
    assert.equal(parse(['--data', 'p']).dataDir, resolve('/work/here', 'p'));
    const a = parse(['--scrape', 'http://127.0.0.1:30000', '--scrape=mtp=http://127.0.0.1:8000/custom/metrics']);
    assert.deepEqual(
      a.scrape.map((s) => [s.variant, s.url.href]),
      [
        [null, 'http://127.0.0.1:30000/'],
        ['mtp', 'http://127.0.0.1:8000/custom/metrics'],
      ],
    );
  });

  test('each mistake is one message naming its flag', () => {
    assert.match(parseError(['--port', '0']), /^--port: invalid value '0'/);
    assert.match(parseError(['--port', '9e3']), /^--port: invalid value '9e3'/);
    assert.match(parseError(['--port']), /^--port: missing value/);
    assert.match(parseError(['--data', '--port', '1']), /^--data: missing value/);
    assert.match(parseError(['--scrape', 'localhost:30000']), /^--scrape: .*http/);
    assert.match(parseError(['--scrape', 'a b=http://x:1']), /^--scrape: invalid variant 'a b'/);
    assert.match(parseError(['--scrape', 'http://x:1/metrics?x=1']), /^--scrape: .*query/);
    assert.match(parseError(['--verbose']), /^--verbose: unknown option/);
    assert.equal(parsePromArgs(['--help']), 'help');
  });

  test('scrape targets: host, scheme, metrics path (default /metrics) and the variant label', () => {
    const a = parse(['--scrape', 'dflash=http://127.0.0.1:30000', '--scrape', 'https://gpu-box:8443/v1/metrics']);
    assert.deepEqual(scrapeTargetGroups(a.scrape), [
      { targets: ['127.0.0.1:30000'], labels: { __scheme__: 'http', __metrics_path__: '/metrics', variant: 'dflash' } },
      { targets: ['gpu-box:8443'], labels: { __scheme__: 'https', __metrics_path__: '/v1/metrics' } },
    ]);
  });

  test('prometheus flags: loopback only, remote-write receiver, native histograms, config and data in DIR', () => {
    const args = prometheusArgs(9099, '/d');
    assert.ok(args.includes('--web.listen-address=127.0.0.1:9099'));
    assert.ok(args.includes('--web.enable-remote-write-receiver'));
    assert.ok(args.includes('--enable-feature=native-histograms'));
    assert.ok(args.includes('--config.file=/d/prometheus.yml'));
    assert.ok(args.includes('--storage.tsdb.path=/d/data'));
  });

  test('the data folder: a copy of the shipped config; targets of an earlier run are removed', () => {
    const dir = join(tmp, 'prep');
    prepareDataDir(dir, parse(['--scrape', 'mtp=http://127.0.0.1:8000']).scrape);
    assert.equal(readFileSync(join(dir, 'prometheus.yml'), 'utf8'), readFileSync(join(ROOT, 'deploy', 'prometheus', 'prometheus.yml'), 'utf8'));
    const groups = JSON.parse(readFileSync(join(dir, 'targets', TARGETS_FILE), 'utf8')) as unknown;
    assert.deepEqual(groups, [{ targets: ['127.0.0.1:8000'], labels: { __scheme__: 'http', __metrics_path__: '/metrics', variant: 'mtp' } }]);
    writeFileSync(join(dir, 'targets', 'old.json'), '[]');
    prepareDataDir(dir, []);
    assert.deepEqual(readdirSync(join(dir, 'targets')), []);
  });

  test('the shipped config reads its targets from targets/*.json in the llm-server job', () => {
    const text = readFileSync(join(ROOT, 'deploy', 'prometheus', 'prometheus.yml'), 'utf8');
    assert.match(text, /job_name: llm-server\n\s+file_sd_configs:\n\s+- files: \['targets\/\*\.json'\]/);
  });
});

/** Runs the script under Node with tsx, as `npx tsx scripts/prom.ts` does (minus npx). */
function runScript(args: string[], env: NodeJS.ProcessEnv = process.env) {
  return spawnSync(process.execPath, ['--import', 'tsx', SCRIPT, ...args], { cwd: ROOT, env, encoding: 'utf8', timeout: 20_000 });
}

describe('prom.ts command line', () => {
  test('a bad flag: exit 2 and one message naming it', () => {
    const r = runScript(['--port', 'x']);
    assert.equal(r.status, 2);
    assert.match(r.stderr, /^prom: --port: invalid value 'x'/);
    assert.equal(r.stdout, '');
  });

  test('prometheus missing: exit 1 and how to install it', () => {
    const empty = join(tmp, 'empty-path');
    mkdirSync(empty, { recursive: true });
    const env: NodeJS.ProcessEnv = { ...process.env, PATH: empty };
    delete env.PROMETHEUS_BIN;
    const r = runScript([], env);
    assert.equal(r.status, 1, r.stderr);
    assert.match(r.stderr, /prometheus is not installed/);
    assert.match(r.stderr, /apt-get install prometheus/);
  });
});

const bins = findBinaries();
const skip = typeof bins === 'string' ? bins : false;
if (skip) console.log(`# skip prom.ts start/stop tests: ${skip}`);

describe('prom.ts with a real Prometheus', { skip }, () => {
  test('a port in use: exit 1 naming the port', async () => {
    const srv = createServer();
    await new Promise<void>((r) => srv.listen(0, '127.0.0.1', () => r()));
    const port = (srv.address() as { port: number }).port;
    try {
      const r = await new Promise<{ code: number | null; stderr: string }>((done) => {
        const c = spawn(process.execPath, ['--import', 'tsx', SCRIPT, '--port', String(port), '--data', join(tmp, 'busy')], { cwd: ROOT });
        let stderr = '';
        c.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
        c.on('exit', (code) => done({ code, stderr }));
      });
      assert.equal(r.code, 1);
      assert.match(r.stderr, new RegExp(`port ${port} on 127\\.0\\.0\\.1 is in use`));
    } finally {
      srv.close();
    }
  });

  test('starts, receives remote write, scrapes a --scrape target with its variant, stops on SIGINT', async () => {
    const sim = await startSim({ engine: 'vllm', spec: 'mtp', port: 0, timeScale: 100 });
    const port = await freePort();
    const data = join(tmp, 'live');
    const child = spawn(process.execPath, ['--import', 'tsx', SCRIPT, '--port', String(port), '--data', data, '--scrape', `mtp=${sim.url}`], { cwd: ROOT });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    try {
      const deadline = Date.now() + 20_000;
      while (!stdout.includes('Ctrl-C stops it.')) {
        assert.ok(child.exitCode === null, `exited early: ${stderr}`);
        assert.ok(Date.now() < deadline, `not ready in 20 s: ${stdout}${stderr}`);
        await new Promise((r) => setTimeout(r, 100));
      }
      const base = `http://127.0.0.1:${port}`;
      assert.ok(stdout.includes(`export K6_PROMETHEUS_RW_SERVER_URL=${base}/api/v1/write`), stdout);
      assert.ok(stdout.includes(`scraping ${sim.url}/metrics as variant="mtp"`), stdout);
      const pid = Number(/\(pid (\d+);/.exec(stdout)?.[1]);
      assert.ok(pid > 0, stdout);

      // The receiver answers a malformed write with 400; without the flag the route is 404.
      const w = await fetch(`${base}/api/v1/write`, {
        method: 'POST',
        body: 'not snappy',
        headers: { 'content-type': 'application/x-protobuf', 'content-encoding': 'snappy' },
      });
      assert.equal(w.status, 400);
      const flags = (await (await fetch(`${base}/api/v1/status/flags`)).json()) as { data: Record<string, string> };
      assert.match(flags.data['enable-feature'] ?? '', /native-histograms/);

      // The sim's counters, scraped through the file_sd target with the variant label.
      let found = 0;
      while (found === 0) {
        assert.ok(Date.now() < deadline + 10_000, 'vllm:generation_tokens_total{variant="mtp"} never scraped');
        found = (await queryInstant(base, 'vllm:generation_tokens_total{job="llm-server", variant="mtp"}', Date.now() / 1000)).length;
        if (found === 0) await new Promise((r) => setTimeout(r, 250));
      }

      child.kill('SIGINT');
      let timer: NodeJS.Timeout | undefined;
      const code = await Promise.race([exited, new Promise<'timeout'>((r) => (timer = setTimeout(() => r('timeout'), 15_000)))]);
      clearTimeout(timer);
      assert.equal(code, 0, `${stdout}\n${stderr}`);
      assert.match(stdout, /prom: stopped\./);
      assert.throws(() => process.kill(pid, 0), /ESRCH/, 'prometheus is gone');
      assert.ok(existsSync(join(data, 'prometheus.log')));
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
      await sim.stop();
    }
  });
});
