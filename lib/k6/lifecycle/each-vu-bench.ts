// Each VU: its Bench made from a configuration and a plan already read. VU 0 reads them from the
// environment (vu0-config.ts); a VU that sends requests takes them from VU 0 (vu0-handoff.ts), so
// that nothing here imports the configuration's parser, the plan's builder or the metric catalog:
// this module and what it imports are what such a VU evaluates.
import type { BenchConfig, Env } from '../../config/config-types';
import type { BenchmarkSpec } from '../../benchmarks';
import { probeScenario, watchScenario, type Plan, type Run } from '../../plan/matrix';
import { resetScenario } from '../../plan/cache-reset-plan';
import { resolveVariants, type ResolvedVariant } from '../../variants';
import { TRANSPORTS } from '../../transports';
import type { ImageCache } from '../../workload/seeded-images';
import { sharedImages } from '../shared-images';
import { adder, createMetrics, type MetricDecls } from '../metrics';
import { SENDERS } from '../transport';
import { createPromptPools, neededKinds } from '../prompt-pools';
import type { SharedDataset } from '../shared-dataset';
import { datasetSource, poolSource, type PromptSource } from '../prompt-source';
import type { SharedTrace } from '../shared-trace';
import type { AddSample, SloLimits } from '../../metrics/samples';
import type { SetupData } from '../../variants';
import type { TransportSpec } from '../../transports';
import type { k6Options } from '../../plan/k6-options';
import type { K6Metrics } from '../metrics';
import type { Send } from '../transport';
import type { Handoff } from './vu0-handoff';

// The dataset and trace code, from once.js (once-table.ts), evaluated on first use: 118 KB, 0.08 MB
// of each VU's live heap (docs/fidelity.md), only in runs that set DATASET or TRACE. Doors as in
// bundle-init.ts: a require() of the path, which the bundles read from once.js.
declare function require(id: string): unknown;
const datasetModule = () => require('../shared-dataset') as typeof import('../shared-dataset');
const traceModule = () => require('../shared-trace') as typeof import('../shared-trace');

function promptSource(cfg: BenchConfig, dataset: SharedDataset | null, trace: SharedTrace | null): PromptSource {
  if (trace !== null) return traceModule().traceSource(cfg, trace);
  if (dataset !== null) return datasetSource(cfg, new (datasetModule().DatasetVu)(cfg, dataset));
  return poolSource(cfg, createPromptPools(cfg, neededKinds(cfg)));
}

export type K6Options = ReturnType<typeof k6Options>;

/** What a VU's Bench is built from and keeps: the same in VU 0 and in the VUs it hands over to. */
interface BenchBase {
  spec: BenchmarkSpec;
  env: Env;
  cfg: BenchConfig;
  plan: Plan;
  dataset: SharedDataset | null;
  trace: SharedTrace | null;
  /** The k6 options: built in VU 0 only (empty in the others, whose options k6 overwrites). */
  options: K6Options;
}

export interface Bench extends BenchBase {
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
  /** IMAGES: the plan's images, made in init, each read by this VU on first use; null when no cell carries any. */
  images: ImageCache | null;
  /** The variants as this VU uses them, resolved from the setup data on first use. */
  variant(data: SetupData, variant: string): ResolvedVariant;
}

export interface BenchParts extends BenchBase {
  metrics: MetricDecls;
}

/**
 * The Bench of a VU that VU 0 handed its configuration and plan to. A DATASET's or a TRACE's shared
 * arrays are opened by their names: VU 0 filled them, so nothing is read or parsed again here.
 */
export function fromHandoff(spec: BenchmarkSpec, h: Handoff): Bench {
  const read = (path: string) => open(path);
  const dataset = h.cfg.dataset === null ? null : datasetModule().openDataset(h.cfg, read);
  const trace = h.cfg.trace === null ? null : traceModule().openTrace(h.cfg, read);
  return assemble({ spec, ...h, dataset, trace, options: {} as K6Options });
}

export function assemble({ spec, env, cfg, plan, dataset, trace, metrics: decls, options }: BenchParts): Bench {
  const runs = new Map<string, { run: Run; index: number }>();
  plan.runs.forEach((run, index) => {
    runs.set(run.scenario, { run, index });
    runs.set(probeScenario(run), { run, index });
    runs.set(watchScenario(run), { run, index });
    runs.set(resetScenario(run), { run, index });
  });
  const metrics = createMetrics(decls);
  const transport = TRANSPORTS[cfg.transport];
  let resolved: Map<string, ResolvedVariant> | null = null;
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
    images: sharedImages(plan, cfg.seed),
    options,
    variant(data, variant) {
      if (resolved === null) resolved = resolveVariants(cfg, data);
      return resolved.get(variant) as ResolvedVariant;
    },
  };
}
