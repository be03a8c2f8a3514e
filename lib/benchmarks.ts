// What each benchmark is: the question it answers, its report, its load model, the variants it
// measures and the defaults that differ from the shared ones. Everything that differs between
// benchmarks is here as data; the configuration, the variables table, the report and `npm start`
// derive from it. Pure, so the README's tables and the tests read the same definitions k6 runs.
// (A benchmark is what scenarios/<name>.ts runs; each of its runs is one k6 scenario.)
import type { BenchConfig } from './config/config-types';
import { ConfigError } from './config/parse';
import type { PoolingTask } from './dialects/pooling';

/** Which report a benchmark writes (lib/report/build-report.ts renders each). */
export type ReportKind = 'ab' | 'compare' | 'ramp' | 'context' | 'arrival' | 'smoke' | 'pooling';

/** A variant a benchmark measures, and how its variables are named. (What `npm start` simulates for it: sim/stand-ins.ts.) */
export interface VariantSlot {
  /** The variant: tag value and report label, e.g. dflash. */
  variant: string;
  /** Prefix of its variables: DFLASH gives DFLASH_URL, DFLASH_DIALECT …; '' gives TARGET_URL, DIALECT, MODEL, API_KEY. */
  prefix: string;
  /** How the variables table names it, e.g. "deployment A". */
  role: string;
}

export interface BenchmarkSpec {
  /** The file name in scenarios/ and dist/. */
  name: string;
  /** The question the benchmark answers, for the README. */
  question: string;
  report: ReportKind;
  /** Closed loop over CONCURRENCY (vus) or open loop over RATE. */
  load: 'vus' | 'rate';
  slots: readonly VariantSlot[];
  /** Defaults that differ from the shared ones for this benchmark (variable → value). */
  defaults?: Record<string, string>;
  /** Extra checks of the configuration, throwing ConfigError. */
  validate?: (cfg: BenchConfig) => void;
  /** The variants are named by VARIANTS (`slots` are its default), one of them BASELINE_VARIANT. */
  variants?: true;
  /** TRACE may replace the load axis with a trace replayed on its own clock. */
  trace?: true;
  /** Its levels escalate: a level that saturates the server ends the run (SATURATION_STOP). */
  escalates?: true;
  /** A pooling benchmark: its requests go to this task's route (lib/dialects/pooling.ts), its matrix is ISL × BATCH × CONCURRENCY. */
  pooling?: PoolingTask;
}

/** The slot of a variant named by VARIANTS: NONE_URL, MTP_URL …. */
export function variantSlot(variant: string): VariantSlot {
  return { variant, prefix: variant.toUpperCase().replace(/[^A-Z0-9]/g, '_'), role: `the ${variant} deployment` };
}

/** The variant slots of a benchmark under an environment: VARIANTS for a comparison of N, else its own. */
export function slotsOf(spec: Pick<BenchmarkSpec, 'slots' | 'variants'>, env: Record<string, string | undefined>): readonly VariantSlot[] {
  if (!spec.variants) return spec.slots;
  const raw = (env.VARIANTS ?? '').trim();
  if (raw === '') return spec.slots;
  const names = raw.split(',').map((v) => v.trim());
  for (const v of names) {
    if (!/^[a-z][a-z0-9_-]{0,31}$/.test(v))
      throw new ConfigError(`VARIANTS=${raw}: '${v}' is not a variant name (lower-case letters, digits, - and _, starting with a letter).`);
  }
  if (new Set(names).size !== names.length) throw new ConfigError(`VARIANTS=${raw}: a variant is named twice.`);
  if (names.length < 2 || names.length > 8) throw new ConfigError(`VARIANTS=${raw}: compare takes 2 to 8 variants.`);
  return names.map(variantSlot);
}

/** The one server under test of the single-server benchmarks: its variant is named `target`, after TARGET_URL. */
const SINGLE: readonly VariantSlot[] = [{ variant: 'target', prefix: '', role: 'the server under test' }];

/** The A/B: two deployments, each its own engine and speculative method. */
const AB: readonly VariantSlot[] = [
  { variant: 'dflash', prefix: 'DFLASH', role: 'deployment A' },
  { variant: 'mtp', prefix: 'MTP', role: 'deployment B' },
];

/** The N-way comparison's default: one model without speculation and with three methods. */
const NWAY: readonly VariantSlot[] = ['none', 'mtp', 'dflash', 'ddtree'].map(variantSlot);

export const BENCHMARKS: Record<string, BenchmarkSpec> = {
  compare: {
    name: 'compare',
    question:
      'How do N deployments (VARIANTS, e.g. none,mtp,dflash,ddtree) compare with a baseline ' +
      "(BASELINE_VARIANT), cell by cell, and up to which concurrency does each one's gain hold?",
    report: 'compare',
    load: 'vus',
    slots: NWAY,
    variants: true,
    trace: true,
  },
  'dflash-vs-mtp': {
    name: 'dflash-vs-mtp',
    question: 'Is deployment A (DFLASH_URL) faster than deployment B (MTP_URL), by how much, and at which context length and concurrency?',
    report: 'ab',
    load: 'vus',
    slots: AB,
    trace: true,
  },
  'concurrency-ramp': {
    name: 'concurrency-ramp',
    question: 'Where is the knee: the concurrency after which throughput stops growing while latency climbs?',
    report: 'ramp',
    load: 'vus',
    slots: SINGLE,
    escalates: true,
    defaults: { CONCURRENCY: '1,2,4,8,16,32,64' },
    validate(cfg) {
      if (cfg.concurrency.length < 2) throw new ConfigError('CONCURRENCY needs at least two levels for a ramp, e.g. CONCURRENCY=1,4,16,64.');
    },
  },
  'context-matrix': {
    name: 'context-matrix',
    question: 'How do latency and throughput move with input and output length at a fixed concurrency?',
    report: 'context',
    load: 'vus',
    slots: SINGLE,
    defaults: { ISL: '128,1024,4096', OSL: '128,512', CONCURRENCY: '4' },
    validate(cfg) {
      if (cfg.concurrency.length !== 1) {
        throw new ConfigError(
          `CONCURRENCY=${cfg.concurrency.join(',')}: context-matrix runs at one concurrency; give one value (dflash-vs-mtp and concurrency-ramp take several).`,
        );
      }
    },
  },
  'arrival-rate': {
    name: 'arrival-rate',
    question: 'At which request rate does the server fall behind (open model: dropped iterations, completions below the offered rate, queueing)?',
    report: 'arrival',
    load: 'rate',
    slots: SINGLE,
    escalates: true,
    // One server, one trace: the replay is open loop on the trace's own clock, as this benchmark's load is.
    trace: true,
  },
  embeddings: {
    name: 'embeddings',
    question:
      'How many items per second does an embeddings route (/v1/embeddings) serve, at what latency, by items ' +
      'per request (BATCH) and input length, and which of two deployments (VARIANTS) serves more?',
    report: 'pooling',
    load: 'vus',
    slots: SINGLE,
    variants: true,
    pooling: 'embeddings',
    defaults: { ISL: '128,512', BATCH: '1,8,32', CONCURRENCY: '4', DURATION: '30s' },
  },
  rerank: {
    name: 'rerank',
    question:
      'How many documents per second does a rerank route (/v1/rerank) score, at what latency, by documents ' +
      'per request (BATCH) and document length, and which of two deployments (VARIANTS) scores more?',
    report: 'pooling',
    load: 'vus',
    slots: SINGLE,
    variants: true,
    pooling: 'rerank',
    defaults: { ISL: '128,512', BATCH: '1,8,32', CONCURRENCY: '4', DURATION: '30s' },
  },
  smoke: {
    name: 'smoke',
    question:
      'Can this server be benchmarked at all? A 30-second preflight: reachable, which API, which model, does a generation return a token, then three requests.',
    report: 'smoke',
    load: 'vus',
    slots: SINGLE,
    defaults: { ISL: '128', OSL: '16', CONCURRENCY: '1', REQUESTS: '3', DURATION: '20s', WARMUP_REQUESTS: '1' },
  },
};

export const BENCHMARK_NAMES = Object.keys(BENCHMARKS);
