// Everything a benchmark's k6 functions share, made once at init: the configuration (a bad value
// stops the run in setup with one line), the plan, the metrics, the sender, the prompt source, the
// k6 options. setup.ts, measure.ts, probe.ts and summary.ts each take this and return one function
// (setup.ts and summary.ts in VU 0 only: once.ts).
import { loadConfig, type BenchConfig, type Env } from '../config/load';
import { benchmarkEnv, checkResultsDir } from '../config/environment';
import type { BenchmarkSpec } from '../benchmarks';
import { configErrorOf } from './config-error';
import type { AddSample, SloLimits } from '../metrics/samples';
import { planOf, probeScenario, watchScenario, type Plan, type Run } from '../plan/matrix';
import { resetScenario } from '../plan/cache-reset';
import { k6Options, setupTimeoutMs } from '../plan/k6-options';
import { datasetThresholds } from '../plan/dataset-keys';
import { resolveVariants, type ResolvedVariant, type SetupData } from '../variants';
import { TRANSPORTS, type TransportSpec } from '../transports';
import { adder, createMetrics, type K6Metrics } from './metrics';
import { SENDERS, type Send } from './transport';
import { createPromptPools, neededKinds } from './prompts';
import type { SharedDataset } from './dataset';
import { datasetSource, poolSource, type PromptSource } from './prompt-source';
import type { SharedTrace } from './trace';

// A CommonJS require, which webpack resolves inside the bundle. A module reached only through it
// is evaluated on its first call: the dataset and trace code (118 KB of the bundle, 0.08 MB of each
// VU's live heap: docs/fidelity.md) is evaluated only in runs that set DATASET or TRACE.
declare function require(id: string): unknown;
const datasetModule = () => require('./dataset') as typeof import('./dataset');
const traceModule = () => require('./trace') as typeof import('./trace');

export interface Bench {
  spec: BenchmarkSpec;
  env: Env;
  cfg: BenchConfig;
  plan: Plan;
  dataset: SharedDataset | null;
  trace: SharedTrace | null;
  /** Each run, and its server-metrics probe, watch and cache reset, by k6 scenario name. */
  runs: Map<string, { run: Run; index: number }>;
  metrics: K6Metrics;
  add: AddSample;
  transport: TransportSpec;
  send: Send;
  source: PromptSource;
  slo: SloLimits;
  /** Ask for a streamed reply (the transport needs one, or STREAM=true). */
  stream: boolean;
  /** The k6 options: built in VU 0 only (empty in the others, whose options k6 overwrites). */
  options: K6Options;
  /** The targets as this VU uses them, resolved from the setup data on first use. */
  target(data: SetupData, variant: string): ResolvedVariant;
}

/** The shared state of a benchmark, or the one-line message of a configuration error. */
export function loadBenchmark(spec: BenchmarkSpec): Bench | { error: string } {
  let env: Env;
  let cfg: BenchConfig;
  let dataset: SharedDataset | null;
  let trace: SharedTrace | null;
  try {
    const read = (path: string) => open(path);
    // The sse bundles (dist/sse/*.js, see bundle.d.ts) measure TTFT by default; TRANSPORT=http still works there.
    env = benchmarkEnv(__ENV, read, spec.defaults, __SSE_BUNDLE__ ? 'sse' : null);
    cfg = loadConfig(spec, env, new Date());
    spec.validate?.(cfg);
    checkResultsDir(cfg.resultsDir, __ENV.PWD, read);
    // DATASET: read and parsed once per test (SharedArray); a bad file stops here with one line.
    dataset = cfg.dataset === null ? null : datasetModule().openDataset(cfg, read);
    // TRACE: likewise; its span and request count make the plan.
    trace = cfg.trace === null ? null : traceModule().openTrace(cfg, read);
  } catch (e) {
    // One line that names the variable (k6 would print a stack after an exception at init).
    return configErrorOf(spec, e);
  }
  return assemble(spec, env, cfg, dataset, trace);
}

function promptSource(cfg: BenchConfig, dataset: SharedDataset | null, trace: SharedTrace | null): PromptSource {
  if (trace !== null) return traceModule().traceSource(cfg, trace);
  if (dataset !== null) return datasetSource(cfg, new (datasetModule().DatasetVu)(cfg, dataset));
  return poolSource(cfg, createPromptPools(cfg, neededKinds(cfg)));
}

type K6Options = ReturnType<typeof k6Options>;

function optionsOf(plan: Plan, cfg: BenchConfig, dataset: SharedDataset | null): K6Options {
  const options = k6Options(plan, cfg);
  if (dataset !== null) {
    // Per-domain and per-turn figures reach the summary only as declared sub-metrics; setup also counts the prompts' tokens.
    Object.assign(options.thresholds as Record<string, string[]>, datasetThresholds(plan, dataset.shape));
    options.setupTimeout = `${setupTimeoutMs(cfg) + datasetModule().TOKENIZE_BUDGET_MS + 10_000}ms`;
  }
  return options;
}

function assemble(spec: BenchmarkSpec, env: Env, cfg: BenchConfig, dataset: SharedDataset | null, trace: SharedTrace | null): Bench {
  const plan = planOf(spec.load, cfg, trace?.shape ?? null);
  const runs = new Map<string, { run: Run; index: number }>();
  plan.runs.forEach((run, index) => {
    runs.set(run.scenario, { run, index });
    runs.set(probeScenario(run), { run, index });
    runs.set(watchScenario(run), { run, index });
    runs.set(resetScenario(run), { run, index });
  });
  const metrics = createMetrics();
  const transport = TRANSPORTS[cfg.transport];
  // k6 reads a script's options in VU 0 alone and overwrites every other VU's with its own: the
  // thresholds (a few dozen per run) are built there only.
  const options = __VU === 0 ? optionsOf(plan, cfg, dataset) : ({} as K6Options);
  let targets: Map<string, ResolvedVariant> | null = null;
  return {
    spec,
    env,
    cfg,
    plan,
    dataset,
    trace,
    runs,
    metrics,
    add: adder(metrics),
    transport,
    send: SENDERS[cfg.transport](),
    source: promptSource(cfg, dataset, trace),
    slo: { ttftP99Ms: cfg.slo.ttftP99Ms, ttftOf: cfg.slo.ttftOf, itlP99Ms: cfg.slo.itlP99Ms, e2eP99Ms: cfg.slo.e2eP99Ms },
    stream: transport.streams || cfg.stream,
    options,
    target(data, variant) {
      if (targets === null) targets = resolveVariants(cfg, data);
      return targets.get(variant) as ResolvedVariant;
    },
  };
}
