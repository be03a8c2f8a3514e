// VU 0: everything a benchmark's k6 functions share, made once at init: the configuration (a bad
// value stops the run in setup with one line), the plan, the metrics, the sender, the prompt
// source, the k6 options. setup.ts, measure.ts, probe-scenario.ts and handle-summary.ts each take
// this and return one function (setup.ts and handle-summary.ts in VU 0 only: vu0-functions.ts).
// Evaluated in VU 0 (from once.js), and in a VU that VU 0 handed nothing (vu0-handoff.ts); the
// others make their Bench in each-vu-bench.ts.
import { loadConfig, type BenchConfig, type Env } from '../../config/load';
import { benchmarkEnv, checkResultsDir } from '../../config/environment';
import type { BenchmarkSpec } from '../../benchmarks';
import { configErrorOf } from '../config-error';
import { planOf, type Plan } from '../../plan/matrix';
import { k6Options, setupTimeoutMs } from '../../plan/k6-options';
import { datasetThresholds } from '../../plan/dataset-keys';
import { adapterThresholds } from '../../plan/adapter-keys';
import { METRICS, type MetricKey } from '../../metrics/catalog';
import type { MetricDecls } from '../metrics';
import type { SharedDataset } from '../shared-dataset';
import type { SharedTrace } from '../shared-trace';
import { handOff } from './vu0-handoff';
import { assemble, type Bench, type K6Options } from './each-vu-bench';

// The dataset and trace readers, from once.js on first use (doors as in bundle-init.ts).
declare function require(id: string): unknown;
const datasetModule = () => require('../shared-dataset') as typeof import('../shared-dataset');
const traceModule = () => require('../shared-trace') as typeof import('../shared-trace');

export type { Bench, K6Options } from './each-vu-bench';

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
  return withOptions(spec, env, cfg, dataset, trace);
}

function optionsOf(plan: Plan, cfg: BenchConfig, dataset: SharedDataset | null): K6Options {
  const options = k6Options(plan, cfg);
  // ADAPTERS: the per-adapter figures reach the summary only as declared sub-metrics.
  if (cfg.adapters) Object.assign(options.thresholds as Record<string, string[]>, adapterThresholds(plan, cfg.adapters));
  if (dataset !== null) {
    // Per-domain and per-turn figures reach the summary only as declared sub-metrics; setup also counts the prompts' tokens.
    Object.assign(options.thresholds as Record<string, string[]>, datasetThresholds(plan, dataset.shape));
    options.setupTimeout = `${setupTimeoutMs(cfg) + datasetModule().TOKENIZE_BUDGET_MS + 10_000}ms`;
  }
  return options;
}

function withOptions(spec: BenchmarkSpec, env: Env, cfg: BenchConfig, dataset: SharedDataset | null, trace: SharedTrace | null): Bench {
  const plan = planOf(spec.load, cfg, trace?.shape ?? null);
  // k6 reads a script's options in VU 0 alone and overwrites every other VU's with its own: the
  // thresholds (a few dozen per run) are built there only.
  const options = __VU === 0 ? optionsOf(plan, cfg, dataset) : ({} as K6Options);
  // The other VUs open the dataset's and the trace's shared arrays by name (each-vu-bench.ts).
  if (__VU === 0) handOff({ env, cfg, plan, metrics: declsOf(METRICS) });
  return assemble({ spec, env, cfg, plan, dataset, trace, metrics: METRICS, options });
}

/** The catalog without its help texts: what creating the metrics needs. */
function declsOf(catalog: MetricDecls): MetricDecls {
  const out = {} as Record<string, MetricDecls[MetricKey]>;
  for (const [key, { name, type, time }] of Object.entries(catalog)) out[key] = { name, type, time };
  return out as MetricDecls;
}
