// The main command (`npm start`): build the bundles, start two simulated servers (SGLang with a
// DFlash profile, vLLM with an MTP profile) on free loopback ports, run the A/B benchmark on them
// with a small matrix, and stop the servers whatever happens.
//
//   npm start                               dflash-vs-mtp on the simulators (~2 minutes)
//   npm start -- --benchmark smoke          another benchmark on one simulator
//   npm start -- --no-sim                   use DFLASH_URL / MTP_URL / TARGET_URL from the environment
//   npm start -- --prometheus               stream to Prometheus (k6 -o experimental-prometheus-rw)
//   npm start -- --instances 2              split the run over 2 k6 processes (execution segments), merge their reports
//   npm start -- --no-raw                   no raw record (by default results/<run id>.raw.json.gz, k6 --out json; npm run report reads it)
//   npm start -- --no-build                 run the bundles already in dist/ (after npm run build) instead of building them
//   npm start -- ... -- --vus-max 10        arguments after a second -- go to k6
//   TRANSPORT=sse npm start                 runs dist/sse/<benchmark>.js (TTFT, ITL; needs xk6-sse)
//   npm start -- --benchmark capacity       the capacity search (npm run capacity) as an A/B on the simulators
//   npm start -- --benchmark compare        none, MTP, DFlash and DDTree profiles of one simulated SGLang (VARIANTS)
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { startSim, type SimHandle } from '../sim/index';
import { standIn } from '../sim/stand-ins';
import { BENCHMARKS, BENCHMARK_NAMES, slotsOf, type VariantSlot } from '../lib/benchmarks';
import { TRANSPORTS, type TransportName } from '../lib/transports';
import { findK6, INSTALL_K6, INSTALL_SSE, k6Info, versionWarning } from './k6-runtime';
import { mergeFiles } from './merge';
import { segmentFileName } from '../lib/report/merge-instances';
import { realK6, runCapacity } from './capacity';
import { rawRecordArgs, rawRecordPath, recordMeasuredAny, writeSidecar } from './raw-record';
import { lossSentence, remoteWriteLoss, RW_FAILED, RW_SLOW, type RemoteWriteLoss } from '../lib/raw/k6-log';
import { duration } from '../lib/config/parse';

const ROOT = join(__dirname, '..');

/** The small matrix the simulators answer in about two minutes; any variable set by the user wins. */
export const SIM_DEFAULTS: Record<string, string> = {
  ISL: '512',
  OSL: '64',
  CONCURRENCY: '1,8',
  DURATION: '20s',
  REQUEST_TIMEOUT: '10s',
  SLICES: '8',
  PREFLIGHT_TIMEOUT: '5s',
};

/** `--benchmark capacity`: the capacity search, not a bundle; its simulators run this much faster than model time. */
export const CAPACITY = 'capacity';
export const CAPACITY_SIM_TIME_SCALE = 4;
/** The A/B at equal SLO the simulators answer in a few minutes; any variable set by the user wins. */
export const CAPACITY_SIM_DEFAULTS: Record<string, string> = {
  ISL: '512',
  OSL: '64',
  SLO_E2E_P99: '500ms',
  CAPACITY_START: '4',
  CAPACITY_STEP: '5s',
  CAPACITY_STEP_MAX: '20s',
  CAPACITY_MAX_TIME: '10m',
  SLICES: '5',
  REQUEST_TIMEOUT: '10s',
  GRACEFUL_STOP: '5s',
  PREFLIGHT_TIMEOUT: '5s',
  WARMUP_REQUESTS: '1',
  MAX_VUS: '64',
};

export interface StartArgs {
  /** The benchmark: what scenarios/<name>.ts runs (or `capacity`, the search). */
  benchmark: string;
  sim: boolean;
  prometheus: boolean;
  /** k6 instances, each running its execution segment; their partial results are merged. */
  instances: number;
  /** Write the raw record (k6 --out json=results/<run id>.raw.json.gz) and its sidecar. */
  raw: boolean;
  /** Build the bundles first (webpack); off, the bundles in dist/ run as they are. */
  build: boolean;
  k6Args: string[];
}

export function parseStartArgs(argv: string[], benchmarks: string[]): StartArgs {
  const out: StartArgs = { benchmark: 'dflash-vs-mtp', sim: true, prometheus: false, instances: 1, raw: true, build: true, k6Args: [] };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--') {
      out.k6Args = argv.slice(i + 1);
      break;
    }
    if (a === '--no-sim') out.sim = false;
    else if (a === '--prometheus') out.prometheus = true;
    else if (a === '--no-raw') out.raw = false;
    else if (a === '--no-build') out.build = false;
    else if (/^--(benchmark|scenario)(=|$)/.test(a)) {
      // --scenario is the old name: a k6 scenario is k6's own (one per cell and variant).
      const flag = a.split('=')[0];
      const v = a.includes('=') ? a.slice(a.indexOf('=') + 1) : argv[++i];
      if (!v || !benchmarks.includes(v)) throw new Error(`${flag} ${v ?? ''}: expected one of ${benchmarks.join(', ')}`);
      out.benchmark = v;
    } else if (a === '--instances' || a.startsWith('--instances=')) {
      const v = a.includes('=') ? a.slice(a.indexOf('=') + 1) : argv[++i];
      if (!v || !/^\d+$/.test(v) || Number(v) < 1 || Number(v) > 64) throw new Error(`--instances ${v ?? ''}: expected a whole number from 1 to 64`);
      out.instances = Number(v);
    } else if (a === '--help' || a === '-h') throw new Error('help');
    else
      throw new Error(
        `unknown option ${a}: expected --benchmark NAME, --no-sim, --prometheus, --instances N, --no-raw, --no-build, or -- followed by k6 arguments`,
      );
  }
  return out;
}

/** The arguments, k6 and (unless --no-build) a fresh build; or the exit code when one of them fails. */
function prepare(): { args: StartArgs; k6: string; info: ReturnType<typeof k6Info> } | number {
  let args: StartArgs;
  try {
    args = parseStartArgs(process.argv.slice(2), [...BENCHMARK_NAMES, CAPACITY]);
    if (args.benchmark === CAPACITY && args.instances > 1) throw new Error('--instances: the capacity search runs one k6 at a time; split a benchmark instead');
  } catch (e) {
    const msg = (e as Error).message;
    if (msg !== 'help') console.error(`npm start: ${msg}`);
    console.error('usage: npm start -- [--benchmark NAME] [--no-sim] [--prometheus] [--instances N] [--no-raw] [--no-build] [-- k6 args]');
    return msg === 'help' ? 0 : 2;
  }
  const k6 = findK6();
  if (!k6) {
    console.error(INSTALL_K6);
    return 1;
  }
  const info = k6Info(k6);
  console.log(`k6: ${k6} (${info.banner}${info.hasSse ? ', with xk6-sse' : ''})`);
  const warning = versionWarning(info);
  if (warning) console.warn(`npm start: ${warning}`);
  if (!args.build) return { args, k6, info };
  const build = spawnSync(process.execPath, [join(ROOT, 'node_modules', 'webpack', 'bin', 'webpack.js'), '--config', join(ROOT, 'webpack.config.js')], {
    cwd: ROOT,
    stdio: 'inherit',
  });
  if (build.status !== 0) {
    console.error('npm start: the build failed (see above).');
    return 1;
  }
  return { args, k6, info };
}

/**
 * One simulator per variant slot of the benchmark, with the engine and profile its stand-in names
 * (sim/stand-ins.ts); their URLs go into env. Null, or the exit code.
 */
async function startSimulators(benchmark: string, capacity: boolean, env: NodeJS.ProcessEnv, sims: SimHandle[]): Promise<number | null> {
  let slots: readonly VariantSlot[];
  const simulated = capacity ? 'dflash-vs-mtp' : benchmark;
  try {
    slots = slotsOf(BENCHMARKS[simulated], process.env);
  } catch (e) {
    console.error(`npm start: ${(e as Error).message}`);
    return 2;
  }
  for (const slot of slots) {
    const stand = standIn(simulated, slot.variant);
    const sim = await startSim({ engine: stand.engine, spec: stand.spec, port: 0, ...(capacity ? { timeScale: CAPACITY_SIM_TIME_SCALE } : {}) });
    sims.push(sim);
    env[slot.prefix ? `${slot.prefix}_URL` : 'TARGET_URL'] = sim.url;
    // The simulator's DCGM-shaped exporter, so the report has energy per token (docs/simulator.md).
    const gpuVar = slot.prefix ? `${slot.prefix}_GPU_METRICS_URL` : 'GPU_METRICS_URL';
    const gpu = !capacity && !env[gpuVar] && !env.GPU_METRICS_URL ? (env[gpuVar] = `${sim.url}/sim/dcgm/metrics`) : null;
    console.log(`simulator for ${slot.variant}: ${stand.engine}, ${stand.spec} profile, at ${sim.url}${gpu ? ` (simulated GPU telemetry: ${gpu})` : ''}`);
  }
  for (const [k, v] of Object.entries(capacity ? CAPACITY_SIM_DEFAULTS : SIM_DEFAULTS)) if (!env[k]) env[k] = v;
  if (capacity) console.log(`simulators run ${CAPACITY_SIM_TIME_SCALE}× faster than model time, so the SLOs here are in their (wall) time`);
  return null;
}

/** k6's arguments and the bundle to run; or the exit code when k6 could only fail. */
function k6Command(
  args: StartArgs,
  env: NodeJS.ProcessEnv,
  k6: string,
  info: ReturnType<typeof k6Info>,
): { k6Args: string[]; bundle: string; sseBundle: boolean } | number {
  const k6Args = ['run'];
  if (args.prometheus) {
    k6Args.push('-o', 'experimental-prometheus-rw');
    env.K6_PROMETHEUS_RW_TREND_STATS = env.K6_PROMETHEUS_RW_TREND_STATS || 'p(50),p(90),p(99),avg,max,count';
    console.log(`streaming to ${env.K6_PROMETHEUS_RW_SERVER_URL || 'http://localhost:9090/api/v1/write'} (K6_PROMETHEUS_RW_SERVER_URL)`);
  }
  // TRANSPORT=sse runs the sse bundle, which names xk6-sse so that k6 (v1.0 or newer) provisions it.
  const transport = TRANSPORTS[env.TRANSPORT as TransportName] ?? TRANSPORTS.http;
  const bundle = `${transport.bundleDir}/${args.benchmark}.js`;
  if (transport.needs && !info.hasSse) {
    // Without the extension k6 can only provision a build with it (v1.0 or newer, network needed); when that is
    // switched off the run could only fail, so say how to get one before starting.
    if (/^(false|0)$/i.test(env.K6_AUTO_EXTENSION_RESOLUTION ?? '') || (info.major ?? 0) < 1) {
      console.error(`npm start: ${k6} lacks ${transport.needs}.\n${INSTALL_SSE}`);
      return 1;
    }
    console.log(`${k6} has no xk6-sse: k6 will try to provision a build with it (automatic extension resolution, needs network access)`);
  }
  k6Args.push(...args.k6Args, bundle);
  if (!existsSync(join(ROOT, bundle))) {
    console.error(`npm start: ${bundle} was not built${args.build ? '' : ' (--no-build: run npm run build first, or drop --no-build)'}.`);
    return 1;
  }
  return { k6Args, bundle, sseBundle: transport.bundleDir !== TRANSPORTS.http.bundleDir };
}

/**
 * One k6, or N k6 instances each with its execution segment (as the k6-operator runs them), whose
 * partial results are merged into one report. Returns the exit code and the raw records written.
 */
async function runInstances(
  k6: string,
  args: StartArgs,
  env: NodeJS.ProcessEnv,
  cmd: { k6Args: string[]; bundle: string; sseBundle: boolean },
  rwWatch: ReturnType<typeof remoteWriteWatch>,
): Promise<{ code: number; raws: string[] }> {
  const { k6Args, bundle } = cmd;
  const segments = instanceSegments(args.instances);
  const runId = env.RUN_ID || `${args.benchmark}-${new Date().toISOString().slice(0, 19).replace(/[-:T]/g, '')}`;
  // The raw record, written while the run goes, is named after the run: k6 is given its id.
  if (args.raw) env.RUN_ID = runId;
  const raws: string[] = [];
  const children = segments.map((seg, i) => {
    const childEnv = seg === null ? env : { ...env, PARTIAL: 'true', RUN_ID: runId };
    const segArgs = seg === null ? [] : ['--execution-segment', seg.segment, '--execution-segment-sequence', seg.sequence];
    const raw = args.raw
      ? rawRecordPath(resolve(ROOT, env.RESULTS_DIR as string), runId, seg === null ? '' : `.segment-${segmentFileName(seg.segment)}`)
      : null;
    if (raw) {
      writeSidecar(raw, args.benchmark, childEnv, join(ROOT, bundle), cmd.sseBundle);
      raws.push(raw);
    }
    // Streaming to Prometheus, k6's stderr passes through here: its failed remote writes are counted.
    const stderr = args.prometheus ? 'pipe' : 'inherit';
    const child = spawn(k6, [...k6Args.slice(0, 1), ...segArgs, ...(raw ? rawRecordArgs(raw) : []), ...k6Args.slice(1)], {
      cwd: ROOT,
      env: childEnv,
      stdio: [i === 0 ? 'inherit' : 'ignore', i === 0 ? 'inherit' : 'ignore', stderr],
    });
    if (child.stderr) rwWatch.follow(child.stderr);
    return child;
  });
  // Ctrl-C reaches k6 through the terminal's process group; k6 stops gracefully and still writes
  // its summary. We only make sure the simulators outlive it and then go.
  const onSignal = () => undefined;
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', () => children.forEach((c) => c.kill('SIGTERM')));
  const codes = await Promise.all(
    children.map(
      (child) =>
        new Promise<number>((resolve) => {
          child.on('error', (e) => {
            console.error(`npm start: could not run ${k6}: ${e.message}`);
            resolve(1);
          });
          child.on('exit', (c, sig) => resolve(c ?? (sig ? 128 + 2 : 1)));
        }),
    ),
  );
  let code = codes.find((c) => c !== 0 && c !== 99) ?? codes.find((c) => c === 99) ?? 0;
  if (segments[0] !== null) {
    const dir = resolve(ROOT, env.RESULTS_DIR as string);
    const partials = segments.map((seg) => join(dir, `${runId}.segment-${segmentFileName(seg!.segment)}.partial.json`));
    try {
      const merged = mergeFiles(partials, dir);
      console.log(`\nMerged ${segments.length} instances:\n${merged.text}`);
      if (merged.report.thresholds.some((t) => t.ok === false) && code === 0) code = 99;
    } catch (e) {
      console.error(`npm start: merging the instances failed: ${(e as Error).message}`);
      if (code === 0) code = 1;
    }
  }
  return { code, raws };
}

async function main(): Promise<number> {
  const ready = prepare();
  if (typeof ready === 'number') return ready;
  const { args, k6, info } = ready;
  const sims: SimHandle[] = [];
  const stopSims = async () => {
    await Promise.all(sims.splice(0).map((s) => s.stop().catch(() => undefined)));
  };
  const env: NodeJS.ProcessEnv = { ...process.env };
  const capacity = args.benchmark === CAPACITY;
  if (args.sim) {
    const failed = await startSimulators(args.benchmark, capacity, env, sims);
    if (failed !== null) return failed;
  }
  env.RESULTS_DIR = env.RESULTS_DIR || 'results';
  // A benchmark run sends traffic only to its variants unless the user says otherwise.
  env.K6_NO_USAGE_REPORT = env.K6_NO_USAGE_REPORT || 'true';
  mkdirSync(resolve(ROOT, env.RESULTS_DIR), { recursive: true });
  if (capacity) {
    if (args.prometheus) env.K6_PROMETHEUS_RW_TREND_STATS = env.K6_PROMETHEUS_RW_TREND_STATS || 'p(50),p(90),p(99),avg,max,count';
    const out = await runCapacity({ env, exec: realK6(k6), prometheus: args.prometheus });
    await stopSims();
    if (out.message) console.error(out.message);
    return out.code;
  }
  const cmd = k6Command(args, env, k6, info);
  if (typeof cmd === 'number') {
    await stopSims();
    return cmd;
  }
  const rwWatch = remoteWriteWatch();
  const k6Started = Date.now();
  const { code, raws } = await runInstances(k6, args, env, cmd, rwWatch);
  await stopSims();
  if (args.prometheus) {
    let pushMs = 5000;
    try {
      pushMs = duration('K6_PROMETHEUS_RW_PUSH_INTERVAL', env.K6_PROMETHEUS_RW_PUSH_INTERVAL || '5s');
    } catch {
      // k6 itself refuses a bad interval; the default is then as good a guess as any.
    }
    const line = lossSentence(rwWatch.loss(), pushMs, Date.now() - k6Started);
    if (line) console.error(line);
  }
  if (code === 99) console.error('k6 exited 99: an SLO threshold was crossed (see SLOs above).');
  else if (code !== 0) console.error(`k6 exited ${code}.`);
  // Stopped before a request ended (a bad setting, a failed preflight): there is nothing to rebuild.
  if (code !== 0 && code !== 99 && raws.length > 0 && (await Promise.all(raws.map(recordMeasuredAny))).some(Boolean)) {
    console.error(`What was measured is in the raw record: npm run report -- ${raws.join(' ')}`);
  }
  return code;
}

if (require.main === module) {
  main().then(
    (code) => process.exit(code),
    (e) => {
      console.error(`npm start: ${(e as Error).stack ?? e}`);
      process.exit(1);
    },
  );
}

/** k6 execution segments for N instances (null: one plain run). */
export function instanceSegments(n: number): Array<{ segment: string; sequence: string } | null> {
  if (n <= 1) return [null];
  const bound = (i: number) => (i === 0 ? '0' : i === n ? '1' : `${i}/${n}`);
  const sequence = Array.from({ length: n + 1 }, (_, i) => bound(i)).join(',');
  return Array.from({ length: n }, (_, i) => ({ segment: `${bound(i)}:${bound(i + 1)}`, sequence }));
}

/** Passes k6's stderr on unchanged and counts the remote-write failures k6 logs there (it keeps no counter of them). */
export function remoteWriteWatch(): { follow(stream: NodeJS.ReadableStream): void; loss(): RemoteWriteLoss } {
  let log = '';
  return {
    follow(stream) {
      let rest = '';
      stream.on('data', (d: Buffer) => {
        process.stderr.write(d);
        const lines = (rest + d.toString()).split('\n');
        rest = lines.pop() ?? '';
        // Only the lines that matter are kept: a long run's log is not held in memory.
        for (const line of lines) if (line.includes(RW_FAILED) || line.includes(RW_SLOW)) log += line + '\n';
      });
      stream.on('end', () => {
        if (rest.includes(RW_FAILED) || rest.includes(RW_SLOW)) log += rest + '\n';
      });
    },
    loss: () => remoteWriteLoss(log),
  };
}
