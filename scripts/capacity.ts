// npm run capacity: how much load each deployment sustains within its SLOs, and the A/B at equal
// SLO. k6 cannot change its plan mid-run, so this runs short k6 runs in sequence, one load each
// (the context-matrix bundle for a closed loop, arrival-rate for an open one), reads each run's
// partial result and lets lib/capacity decide the next load. Writes <run id>.summary.json,
// .report.md and .report.html in RESULTS_DIR, and pushes the answer to Prometheus with --prometheus.
//
//   SLO_TTFT_P99=500ms SLO_ITL_P99=50ms TRANSPORT=sse DFLASH_URL=… MTP_URL=… npm run capacity
//   TARGET_URL=… SLO_E2E_P99=4s CAPACITY_LOOP=open npm run capacity -- --prometheus
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { gpuCost, loadConfig, stamp } from '../lib/config/load';
import { benchmarkEnv } from '../lib/config/environment';
import { ConfigError, label as labelOf } from '../lib/config/parse';
import { renderCapacityHtml } from '../lib/capacity/html';
import { buildCapacityReport, capacityJson, renderCapacityMarkdown, renderCapacityText, type CapacityReport } from '../lib/capacity/capacity-report';
import { runSearch, type StepOutcome, type StepRequest } from '../lib/capacity/runner';
import { readCapacitySettings, stepBenchmark, type CapacitySettings } from '../lib/capacity/settings';
import { readStepRun } from '../lib/capacity/step-run';
import { capacitySeries } from '../lib/capacity/prometheus';
import { capacitySlots, stepEnv } from '../lib/capacity/step-variants';
import { remoteWriteBody } from '../lib/prometheus/remote-write';
import { TRANSPORTS, type TransportName } from '../lib/transports';
import { findK6, INSTALL_K6 } from './k6-runtime';

const ROOT = join(__dirname, '..');

/** Runs one k6 run of a bundle with an environment; resolves with its exit code and output. */
export type K6Exec = (bundle: string, env: Record<string, string>, extraArgs: string[]) => Promise<{ exitCode: number; output: string }>;

/** Real k6, in --quiet mode, its output kept for the message when a run fails. */
export function realK6(k6: string): K6Exec {
  return (bundle, env, extraArgs) =>
    new Promise((res) => {
      const child = spawn(k6, ['run', '--quiet', ...extraArgs, bundle], { cwd: ROOT, env: { ...pathEnv(), ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
      let output = '';
      const keep = (b: Buffer) => {
        output = (output + b.toString()).slice(-20_000);
      };
      child.stdout.on('data', keep);
      child.stderr.on('data', keep);
      child.on('error', (e) => res({ exitCode: 1, output: `could not run ${k6}: ${e.message}` }));
      child.on('exit', (code, sig) => res({ exitCode: code ?? (sig ? 130 : 1), output }));
    });
}

/** What a k6 child needs from this process beyond the step's variables (and nothing secret). */
function pathEnv(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const k of ['PATH', 'HOME', 'TMPDIR', 'K6_NO_USAGE_REPORT', 'K6_AUTO_EXTENSION_RESOLUTION'])
    if (process.env[k] !== undefined) out[k] = process.env[k] as string;
  for (const [k, v] of Object.entries(process.env)) if (k.startsWith('K6_PROMETHEUS_RW_') && v !== undefined) out[k] = v;
  return out;
}

export interface CapacityOptions {
  env: Record<string, string | undefined>;
  exec: K6Exec;
  /** Push the answer to Prometheus (remote write at K6_PROMETHEUS_RW_SERVER_URL), and each run's metrics through k6's output. */
  prometheus: boolean;
  log?: (line: string) => void;
  now?: () => Date;
}

export interface CapacityOutcome {
  code: number;
  report: CapacityReport | null;
  files: string[];
  message?: string;
}

/** Checks everything that can be checked before any load; throws ConfigError naming the variable. */
export function prepare(env: Record<string, string | undefined>, now: Date) {
  const merged = benchmarkEnv(env as Record<string, string>, (p) => readFileSync(p, 'utf8'), undefined, null);
  const s = readCapacitySettings(merged);
  const spec = stepBenchmark(s.loop);
  const slots = capacitySlots(merged, s.loop.benchmark);
  // What the capacity report prices each variant's capacity at (a bad value stops here, before any load).
  const costs = Object.fromEntries(slots.map((x) => [x.variant, gpuCost(merged, x.prefix)]));
  const runIdRaw = (merged.RUN_ID ?? '').trim();
  const runId = runIdRaw === '' ? `capacity-${stamp(now)}` : labelOf('RUN_ID', runIdRaw);
  const resultsRaw = (merged.RESULTS_DIR ?? '').trim() || 'results';
  const resultsDir = isAbsolute(resultsRaw) ? resultsRaw : resolve(ROOT, resultsRaw);
  if (!existsSync(resultsDir)) throw new ConfigError(`RESULTS_DIR=${resultsRaw}: no such folder; create it or point RESULTS_DIR at an existing one.`);
  const stepsDir = join(resultsDir, `${runId}.steps`);
  // The step runs' own configuration, checked now with the loads the search may use.
  for (const slot of slots) {
    for (const load of [s.start, s.maxLoad]) {
      const e = stepEnv(s, merged, { slot, load, durationMs: s.stepMs, first: true, runId: 'check', resultsDir: stepsDir });
      const cfg = loadConfig(spec, Object.fromEntries(Object.entries(e).filter(([k]) => k !== 'PARTIAL')), now);
      spec.validate?.(cfg);
    }
  }
  const transport = ((merged.TRANSPORT ?? '').trim() || 'http') as TransportName;
  const bundle = join(ROOT, TRANSPORTS[transport].bundleDir, `${spec.name}.js`);
  return { s, spec, slots, costs, runId, resultsDir, stepsDir, transport, bundle, env: merged };
}

/** Runs the search (all variants) and writes the reports. */
export async function runCapacity(o: CapacityOptions): Promise<CapacityOutcome> {
  const now = o.now ?? (() => new Date());
  const log = o.log ?? ((l: string) => console.log(l));
  const t0 = Date.now();
  let p: ReturnType<typeof prepare>;
  try {
    p = prepare(o.env, now());
  } catch (e) {
    if (e instanceof ConfigError) return { code: 108, report: null, files: [], message: `capacity: ${e.message}` };
    throw e;
  }
  if (!existsSync(p.bundle)) return { code: 1, report: null, files: [], message: `capacity: ${p.bundle} was not built: run npm run build.` };
  mkdirSync(p.stepsDir, { recursive: true });
  const { s } = p;
  log(
    `capacity: ${s.loop.name} loop over ${s.loop.unit}, variants ${p.slots.map((x) => x.variant).join(', ')}, SLOs ` +
      `${s.criteria.map((c) => `${c.variable}`).join(', ')}; step runs in ${p.stepsDir}`,
  );
  const stepOverheadMs = 5000;
  const extra = o.prometheus ? ['-o', 'experimental-prometheus-rw', '--tag', `testid=${p.runId}`] : [];
  const runStep = async (req: StepRequest): Promise<StepOutcome> => {
    const slot = p.slots.find((x) => x.variant === req.variant)!;
    const stepRunId = `${req.variant}-${req.run}`;
    const env = stepEnv(s, p.env, { slot, load: req.load, durationMs: req.durationMs, first: req.first, runId: stepRunId, resultsDir: p.stepsDir });
    const { exitCode, output } = await o.exec(p.bundle, env, extra);
    const file = join(p.stepsDir, `${stepRunId}.partial.json`);
    // 0: every threshold held; 99: an SLO threshold broke, which is what a search looks for.
    if ((exitCode !== 0 && exitCode !== 99) || !existsSync(file)) {
      const tail = output.trim().split('\n').slice(-6).join('\n    ');
      return {
        error:
          `k6 run ${stepRunId} at ${req.load} ${s.loop.short} exited ${exitCode}${existsSync(file) ? '' : ' without a partial result'}` +
          `${tail ? `:\n    ${tail}` : ''}`,
      };
    }
    try {
      return { run: readStepRun(file, readFileSync(file, 'utf8')) };
    } catch (e) {
      return { error: `reading ${file}: ${(e as Error).message}` };
    }
  };
  const searches = await runSearch(
    s,
    p.slots.map((x) => x.variant),
    { runStep, elapsedMs: () => Date.now() - t0, log, overheadMs: stepOverheadMs },
  );
  const report = buildCapacityReport(s, searches, {
    runId: p.runId,
    now: now(),
    durationMs: Date.now() - t0,
    transport: p.transport,
    workload: workload(
      p.env,
      p.slots.map((x) => x.variant),
    ),
    costs: p.costs,
  });
  const base = join(p.resultsDir, p.runId);
  const files: Record<string, string> = {
    [`${base}.summary.json`]: capacityJson(report),
    [`${base}.report.md`]: renderCapacityMarkdown(s, report),
    [`${base}.report.html`]: renderCapacityHtml(s, report),
  };
  for (const [f, body] of Object.entries(files)) writeFileSync(f, body);
  log(renderCapacityText(s, report, Object.keys(files)));
  let code = 0;
  if (o.prometheus) code = await push(s, report, o.env, log);
  // A search that ended on an error answers only in part: say so with the exit code too.
  if (searches.some((search) => search.stop && (search.stop.kind === 'error' || search.stop.kind === 'degraded' || search.stop.kind === 'time')))
    code = code || 97;
  return { code, report, files: Object.keys(files) };
}

function workload(env: Record<string, string | undefined>, variants: string[]): Record<string, string> {
  const out: Record<string, string> = { variants: variants.join(', ') };
  for (const k of ['ISL', 'OSL', 'TRANSPORT', 'DATASET', 'ISL_SPREAD', 'SEED', 'REQUEST_TIMEOUT']) if (env[k]) out[k] = env[k] as string;
  return out;
}

/** Pushes the answer where k6's output pushes, with the same credentials (sent there only, never logged). */
async function push(s: CapacitySettings, r: CapacityReport, env: Record<string, string | undefined>, log: (l: string) => void): Promise<number> {
  const url = env.K6_PROMETHEUS_RW_SERVER_URL || 'http://localhost:9090/api/v1/write';
  const { body, headers } = remoteWriteBody(capacitySeries(s, r, Date.now()));
  if (env.K6_PROMETHEUS_RW_BEARER_TOKEN) headers.Authorization = `Bearer ${env.K6_PROMETHEUS_RW_BEARER_TOKEN}`;
  else if (env.K6_PROMETHEUS_RW_USERNAME)
    headers.Authorization = `Basic ${Buffer.from(`${env.K6_PROMETHEUS_RW_USERNAME}:${env.K6_PROMETHEUS_RW_PASSWORD ?? ''}`).toString('base64')}`;
  try {
    const res = await fetch(url, { method: 'POST', body, headers, signal: AbortSignal.timeout(10_000) });
    if (!res.ok) {
      log(`capacity: Prometheus at ${url} refused the result: HTTP ${res.status} ${(await res.text()).slice(0, 200)}`);
      return 1;
    }
    log(`capacity: result pushed to ${url}`);
    return 0;
  } catch (e) {
    log(`capacity: could not push the result to ${url}: ${(e as Error).message}`);
    return 1;
  }
}

async function main(): Promise<number> {
  const args = process.argv.slice(2);
  const prometheus = args.includes('--prometheus');
  const unknown = args.filter((a) => a !== '--prometheus');
  if (unknown.length) {
    console.error(`npm run capacity: unknown option ${unknown[0]}: expected --prometheus (settings come from the environment: see docs/capacity.md).`);
    return 2;
  }
  const k6 = findK6();
  if (!k6) {
    console.error(INSTALL_K6);
    return 1;
  }
  const out = await runCapacity({ env: { K6_NO_USAGE_REPORT: 'true', ...process.env }, exec: realK6(k6), prometheus });
  if (out.message) console.error(out.message);
  return out.code;
}

if (require.main === module) {
  main().then(
    (code) => process.exit(code),
    (e) => {
      console.error(`npm run capacity: ${(e as Error).stack ?? e}`);
      process.exit(1);
    },
  );
}
