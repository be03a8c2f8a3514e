// Container-based integration: the simulator image built from deploy/sim.Dockerfile, Prometheus
// (prom/prometheus) with the remote-write receiver, and grafana/k6 running dist/smoke.js with
// -o experimental-prometheus-rw, on one Docker network (testcontainers). Asserts that k6's series
// arrive with the scenario's labels and that k6's exit code reflects the SLO thresholds.
//
// Needs the testcontainers package (11.x on Node 20) and a container runtime; without either it
// skips with the reason. The image's recipe is also checked without Docker: its COPY sources, its
// compile step run here, and its entrypoint started as the image would start it.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Readable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import { parseArgs } from '../../sim/index';
import { TREND_STATS } from '../../scripts/prom';
import { freePort, queryInstant } from './prometheus';

const ROOT = join(__dirname, '..', '..');
const DOCKERFILE = 'deploy/sim.Dockerfile';
const K6_IMAGE = 'grafana/k6:1.3.0';
const PROMETHEUS_IMAGE = 'prom/prometheus:v2.53.0';
const SIM_PORT = 30000;

// ---- The Dockerfile, read as Docker reads it -------------------------------------------------

interface Instruction {
  op: string;
  args: string;
}

function instructions(text: string): Instruction[] {
  const out: Instruction[] = [];
  let pending = '';
  for (const raw of text.split('\n')) {
    if (/^\s*#/.test(raw) && pending === '') continue;
    const line = raw.replace(/\s+$/, '');
    if (line.endsWith('\\')) {
      pending += line.slice(0, -1) + ' ';
      continue;
    }
    const full = (pending + line).trim();
    pending = '';
    if (!full) continue;
    const m = /^(\w+)\s+(.*)$/.exec(full);
    assert.ok(m, `not an instruction: ${full}`);
    out.push({ op: (m[1] as string).toUpperCase(), args: m[2] as string });
  }
  return out;
}

const dockerfile = instructions(readFileSync(join(ROOT, DOCKERFILE), 'utf8'));
const execForm = (op: string): string[] => {
  const i = dockerfile.filter((x) => x.op === op);
  assert.equal(i.length, 1, `one ${op}`);
  const v = JSON.parse((i[0] as Instruction).args) as unknown;
  assert.ok(Array.isArray(v) && v.every((x) => typeof x === 'string'), `${op} in exec form`);
  return v as string[];
};

/** The paths deploy/sim.Dockerfile.dockerignore lets into the build context (its ! lines). */
function contextPaths(): string[] {
  const lines = readFileSync(join(ROOT, `${DOCKERFILE}.dockerignore`), 'utf8')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'));
  assert.equal(lines[0], '*', 'the ignore file starts by excluding everything');
  return lines.slice(1).map((l) => {
    assert.ok(l.startsWith('!'), `only exceptions after '*': ${l}`);
    return l.slice(1).replace(/\/$/, '');
  });
}

describe('the simulator image recipe (no Docker needed)', () => {
  const tmp = mkdtempSync(join(tmpdir(), 'k6-llm-bench-img-'));
  after(() => rmSync(tmp, { recursive: true, force: true }));

  test('both stages are node:20-slim; the final one runs as node, exposes the CLI default ports', () => {
    const froms = dockerfile.filter((x) => x.op === 'FROM').map((x) => x.args.split(/\s+/)[0]);
    assert.deepEqual(froms, ['node:20-slim', 'node:20-slim']);
    const finalStage = dockerfile.slice(dockerfile.map((x) => x.op).lastIndexOf('FROM'));
    assert.ok(
      finalStage.some((x) => x.op === 'USER' && x.args === 'node'),
      'not root',
    );
    const exposed = finalStage.filter((x) => x.op === 'EXPOSE').flatMap((x) => x.args.split(/\s+/).map(Number));
    assert.ok(exposed.includes(30000) && exposed.includes(8000), String(exposed));
  });

  test('every COPY source exists and is let into the build context by the ignore file', () => {
    const allowed = contextPaths();
    for (const c of dockerfile.filter((x) => x.op === 'COPY' && !x.args.startsWith('--from'))) {
      const parts = c.args.split(/\s+/);
      for (const src of parts.slice(0, -1)) {
        const p = src.replace(/\/$/, '');
        assert.ok(existsSync(join(ROOT, p)), `${src} exists`);
        assert.ok(
          allowed.some((a) => p === a || p.startsWith(`${a}/`)),
          `${src} is in the context (${allowed.join(', ')})`,
        );
      }
    }
  });

  test('ENTRYPOINT + CMD are valid simulator flags, listening on all interfaces on an exposed port', () => {
    const entry = execForm('ENTRYPOINT');
    const cmd = execForm('CMD');
    assert.deepEqual(entry.slice(0, 2), ['node', 'sim/cli.js']);
    const opts = parseArgs([...entry.slice(2), ...cmd]);
    assert.ok(opts !== 'help');
    assert.equal(opts.host, '0.0.0.0');
    assert.equal(opts.port, SIM_PORT);
    // A user's own --host after the image name overrides the entrypoint's.
    const own = parseArgs([...entry.slice(2), ...cmd, '--host', '127.0.0.1']);
    assert.ok(own !== 'help' && own.host === '127.0.0.1');
  });

  test("the build stage's compile step yields sim/ alone, and the entrypoint serves /health and stops on SIGTERM", { timeout: 120_000 }, async () => {
    const run = dockerfile.find((x) => x.op === 'RUN' && /\btsc\b/.test(x.args));
    assert.ok(run, 'a RUN that compiles with tsc');
    const m = /npx tsc -p (\S+) --outDir (\S+)$/.exec(run.args);
    assert.ok(m, run.args);
    const out = join(tmp, 'out');
    const tsc = spawnSync(process.execPath, [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', m[1] as string, '--outDir', out], {
      cwd: ROOT,
      encoding: 'utf8',
    });
    assert.equal(tsc.status, 0, tsc.stdout + tsc.stderr);
    // Anything outside sim/ in the output would be an import the image's context does not hold.
    assert.deepEqual(readdirSync(out), ['sim']);
    const final = dockerfile.find((x) => x.op === 'COPY' && x.args.startsWith('--from=build'));
    assert.match(final?.args ?? '', new RegExp(`^--from=build ${m[2]}/sim/ sim/$`));

    const entry = execForm('ENTRYPOINT');
    const port = await freePort();
    // As the image starts it, but on loopback and a free port (later flags win).
    const child = spawn('node', [join(out, 'sim', 'cli.js'), ...entry.slice(2), ...execForm('CMD'), '--host', '127.0.0.1', '--port', String(port)], {
      cwd: tmp,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    try {
      let status = 0;
      for (let i = 0; i < 100 && status !== 200; i++) {
        status = await fetch(`http://127.0.0.1:${port}/health`)
          .then((r) => r.status)
          .catch(() => 0);
        if (status !== 200) await new Promise((r) => setTimeout(r, 100));
      }
      assert.equal(status, 200, output);
      assert.match(output, /sglang \(spec dflash/);
      child.kill('SIGTERM');
      assert.equal(await exited, 0, output);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  });
});

// ---- The containers ------------------------------------------------------------------------------

// The slice of testcontainers' API used here. The package is loaded by a variable specifier so the
// typecheck does not depend on it; these signatures follow testcontainers 11.x.
interface TcStarted {
  getHost(): string;
  getMappedPort(port: number): number;
  getId(): string;
  stop(): Promise<unknown>;
}
interface TcContainer {
  withNetwork(network: TcNetwork): this;
  withNetworkAliases(...aliases: string[]): this;
  withCommand(command: string[]): this;
  withEnvironment(environment: Record<string, string>): this;
  withExposedPorts(...ports: number[]): this;
  withCopyFilesToContainer(files: { source: string; target: string; mode?: number }[]): this;
  withWaitStrategy(strategy: TcWaitStrategy): this;
  withStartupTimeout(ms: number): this;
  withLogConsumer(consumer: (stream: Readable) => unknown): this;
  start(): Promise<TcStarted>;
}
interface TcNetwork {
  stop(): Promise<unknown>;
}
type TcWaitStrategy = object;
export interface Testcontainers {
  GenericContainer: {
    new (image: string): TcContainer;
    fromDockerfile(context: string, dockerfileName?: string): { build(image?: string, options?: { deleteOnExit: boolean }): Promise<TcContainer> };
  };
  Network: new () => { start(): Promise<TcNetwork> };
  Wait: { forHttp(path: string, port: number): TcWaitStrategy; forListeningPorts(): TcWaitStrategy };
  getContainerRuntimeClient(): Promise<{
    container: { getById(id: string): unknown; inspect(container: unknown): Promise<{ State: { Running: boolean; ExitCode: number } }> };
  }>;
}

/** testcontainers and a working runtime, or why the container tests are skipped. */
async function probe(): Promise<Testcontainers | string> {
  const name = 'testcontainers';
  let tc: Testcontainers;
  try {
    // A CommonJS package: require gives its exports as they are.
    tc = createRequire(__filename)(name) as Testcontainers;
  } catch (e) {
    return `testcontainers is not installed (${(e as Error).message.split('\n')[0]})`;
  }
  try {
    await tc.getContainerRuntimeClient();
  } catch (e) {
    return `no container runtime: ${(e as Error).message}`;
  }
  return tc;
}

/** A build context holding exactly what the ignore file lets in, plus the Dockerfile. */
function buildContext(dir: string): string {
  for (const p of [...contextPaths(), DOCKERFILE]) {
    const dest = join(dir, p);
    mkdirSync(dirname(dest), { recursive: true });
    cpSync(join(ROOT, p), dest, { recursive: statSync(join(ROOT, p)).isDirectory() });
  }
  return dir;
}

describe('simulator, Prometheus and k6 in containers', () => {
  let tc: Testcontainers | string = 'not probed';
  let network: TcNetwork | undefined;
  let sim: TcStarted | undefined;
  let prom: TcStarted | undefined;
  const tmp = mkdtempSync(join(tmpdir(), 'k6-llm-bench-ctr-'));

  before(async () => {
    tc = await probe();
    if (typeof tc === 'string') {
      console.log(`# skip container tests: ${tc}`);
      return;
    }
    assert.ok(existsSync(join(ROOT, 'dist', 'smoke.js')), 'dist/smoke.js is missing: run npm run build first');
    network = await new tc.Network().start();
    const image = await tc.GenericContainer.fromDockerfile(buildContext(join(tmp, 'context')), DOCKERFILE).build(undefined, { deleteOnExit: true });
    sim = await image
      .withNetwork(network)
      .withNetworkAliases('sim')
      // The image's own CMD, ten times faster so the smoke test's requests take milliseconds.
      .withCommand(['--engine', 'sglang', '--spec', 'dflash', '--port', String(SIM_PORT), '--time-scale', '10'])
      .withExposedPorts(SIM_PORT)
      .withWaitStrategy(tc.Wait.forHttp('/health', SIM_PORT))
      .start();
    prom = await new tc.GenericContainer(PROMETHEUS_IMAGE)
      .withNetwork(network)
      .withNetworkAliases('prometheus')
      .withCopyFilesToContainer([{ source: join(ROOT, 'deploy', 'prometheus', 'prometheus.yml'), target: '/etc/prometheus/prometheus.yml' }])
      .withCommand([
        '--config.file=/etc/prometheus/prometheus.yml',
        '--storage.tsdb.path=/prometheus',
        '--web.enable-remote-write-receiver',
        '--enable-feature=native-histograms',
      ])
      .withExposedPorts(9090)
      .withWaitStrategy(tc.Wait.forHttp('/-/ready', 9090))
      .start();
  });

  after(async () => {
    await prom?.stop();
    await sim?.stop();
    await network?.stop();
    rmSync(tmp, { recursive: true, force: true });
  });

  /** Runs dist/smoke.js in grafana/k6 against the simulator container; resolves to its exit code and output. */
  async function k6(t: Testcontainers, testid: string, env: Record<string, string> = {}): Promise<{ code: number; log: string }> {
    let log = '';
    const started = await new t.GenericContainer(K6_IMAGE)
      .withNetwork(network as TcNetwork)
      .withCopyFilesToContainer([{ source: join(ROOT, 'dist', 'smoke.js'), target: '/scripts/smoke.js' }])
      .withEnvironment({
        TARGET_URL: `http://sim:${SIM_PORT}`,
        RUN_ID: testid,
        // k6 cannot create folders; /tmp exists and is writable for the image's user.
        RESULTS_DIR: '/tmp',
        K6_PROMETHEUS_RW_SERVER_URL: 'http://prometheus:9090/api/v1/write',
        K6_PROMETHEUS_RW_TREND_STATS: TREND_STATS,
        K6_NO_USAGE_REPORT: 'true',
        ...env,
      })
      .withCommand(['run', '--quiet', '-o', 'experimental-prometheus-rw', '/scripts/smoke.js'])
      .withLogConsumer((stream) => stream.on('data', (d: Buffer | string) => (log += d.toString())))
      // No exposed ports: start() returns once the container runs; its exit is awaited below.
      .withWaitStrategy(t.Wait.forListeningPorts())
      .start();
    const client = await t.getContainerRuntimeClient();
    const handle = client.container.getById(started.getId());
    const deadline = Date.now() + 180_000;
    for (;;) {
      const info = await client.container.inspect(handle);
      if (!info.State.Running) {
        await started.stop();
        return { code: info.State.ExitCode, log };
      }
      assert.ok(Date.now() < deadline, `k6 still running after 180 s:\n${log}`);
      await new Promise((r) => setTimeout(r, 1000));
    }
  }

  test('k6 streams its series to Prometheus with the scenario labels; SLOs met: exit 0', { timeout: 600_000 }, async (t) => {
    if (typeof tc === 'string') return t.skip(tc);
    const testid = `ctr${Date.now()}`;
    const run = await k6(tc, testid);
    assert.equal(run.code, 0, run.log);
    const base = `http://${(prom as TcStarted).getHost()}:${(prom as TcStarted).getMappedPort(9090)}`;
    const now = Date.now() / 1000;
    const tokens = await queryInstant(base, `k6_llm_output_tokens_total{testid="${testid}"}`, now);
    assert.equal(tokens.length, 1, JSON.stringify(tokens));
    const s = tokens[0] as (typeof tokens)[number];
    // smoke: 3 requests of 16 output tokens at concurrency 1 against the one target, on the SGLang API.
    assert.deepEqual(
      {
        variant: s.metric.variant,
        cell: s.metric.cell,
        isl: s.metric.isl,
        osl: s.metric.osl,
        concurrency: s.metric.concurrency,
        scenario: s.metric.scenario,
        dialect: s.metric.dialect,
      },
      { variant: 'target', cell: 'i128_o16_c1', isl: '128', osl: '16', concurrency: '1', scenario: 'target_i128_o16_c1', dialect: 'sglang' },
    );
    assert.equal(s.values[0]?.[1], 48);
    const success = await queryInstant(base, `k6_llm_success_rate{testid="${testid}"}`, now);
    assert.equal(success[0]?.values[0]?.[1], 1);
    // Time trends arrive in seconds, one series per configured stat.
    for (const stat of ['p50', 'p90', 'p99', 'avg', 'max', 'count']) {
      const r = await queryInstant(base, `k6_llm_e2e_${stat}{testid="${testid}"}`, now);
      assert.equal(r.length, 1, `k6_llm_e2e_${stat}`);
      const v = r[0]?.values[0]?.[1] ?? NaN;
      if (stat === 'count') assert.equal(v, 3);
      else assert.ok(v > 0 && v < 10, `k6_llm_e2e_${stat} = ${v} s`);
    }
    const vus = await queryInstant(base, `k6_vus{testid="${testid}"}`, now);
    assert.ok(vus.length >= 1, 'k6_vus carries the testid');
  });

  test('an SLO that cannot be met: k6 exits 99', { timeout: 600_000 }, async (t) => {
    if (typeof tc === 'string') return t.skip(tc);
    const run = await k6(tc, `ctrslo${Date.now()}`, { SLO_E2E_P99: '1ms' });
    assert.equal(run.code, 99, run.log);
  });
});
