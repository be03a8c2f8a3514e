// What a capacity search needs to know: the loop kind, the SLOs that define "meets", and the
// bounds that keep it safe. Read from the same environment as the benchmarks (the step runs get
// the rest of it unchanged), checked before any load with one line naming the variable. Pure.
import { BENCHMARKS } from '../benchmarks';
import { ConfigError, duration, number, oneOf, positiveInt, invalid } from '../config/parse';

/** The two load models, described once: which bundle a step runs, which variable carries the load. */
export interface LoopKind {
  name: 'closed' | 'open';
  /** The single-variant benchmark whose bundle runs one step (one cell at one load). */
  benchmark: string;
  /** The variable that sets a step's load. */
  variable: 'CONCURRENCY' | 'RATE';
  /** Whole numbers only (VUs) or any positive number (requests per second). */
  integer: boolean;
  unit: string;
  /** Short unit for tables and chart axes. */
  short: string;
  defaults: { start: string; maxLoad: string };
}

export const LOOPS: Record<LoopKind['name'], LoopKind> = {
  closed: {
    name: 'closed',
    benchmark: 'context-matrix',
    variable: 'CONCURRENCY',
    integer: true,
    unit: 'concurrent streams',
    short: 'streams',
    defaults: { start: '1', maxLoad: '256' },
  },
  open: {
    name: 'open',
    benchmark: 'arrival-rate',
    variable: 'RATE',
    integer: false,
    unit: 'requests per second',
    short: 'req/s',
    defaults: { start: '0.5', maxLoad: '64' },
  },
};

/** A latency SLO on a p99, or the share of requests meeting every per-request SLO. */
export type CriterionKey = 'ttft' | 'itl' | 'e2e' | 'attainment';

export interface Criterion {
  key: CriterionKey;
  /** The variable that set it, for messages. */
  variable: string;
  /** ms for the latency criteria; a share (0..1) of requests for attainment. */
  limit: number;
}

export interface CapacitySettings {
  loop: LoopKind;
  start: number;
  maxLoad: number;
  maxTimeMs: number;
  stepMs: number;
  stepMaxMs: number;
  minSamples: number;
  precision: number;
  criteria: Criterion[];
  errorRate: number;
}

export interface CapacityVariable {
  name: string;
  default: string;
  help: string;
}

/** The search's own variables (the SLO_* ones are shared with the benchmarks; see VARIABLES). */
export const CAPACITY_VARIABLES: readonly CapacityVariable[] = [
  {
    name: 'CAPACITY_LOOP',
    default: 'closed',
    help: 'closed: search over concurrent streams (VUs, each sending its next request when the last ends); open: over arrival rate in requests per second.',
  },
  {
    name: 'CAPACITY_START',
    default: '1 (closed), 0.5 (open)',
    help: 'First load tried; the search doubles it until an SLO breaks, then refines between the last load that met every SLO and the first that did not.',
  },
  {
    name: 'CAPACITY_MAX_LOAD',
    default: '256 (closed), 64 (open)',
    help: 'Highest load tried: a variant that meets every SLO there has a capacity of at least this, and the report says so.',
  },
  {
    name: 'CAPACITY_MAX_TIME',
    default: '30m',
    help: 'Bound on the whole search (all variants); when it runs out the search stops and reports what it found, with the reason.',
  },
  {
    name: 'CAPACITY_STEP',
    default: '20s',
    help: 'Load time of the first run at each load; a load whose p99 is not yet clear of its SLO runs again and pools the samples.',
  },
  {
    name: 'CAPACITY_STEP_MAX',
    default: '2m',
    help: 'Most load time spent at one load; the decision is then taken on the samples there are, and the report flags it.',
  },
  {
    name: 'CAPACITY_MIN_SAMPLES',
    default: '400',
    help: 'Samples (requests for TTFT, e2e and attainment; tokens for ITL) after which a p99 counts as stable even if its interval still crosses the SLO.',
  },
  {
    name: 'CAPACITY_PRECISION',
    default: '0.05',
    help: 'The search stops when the last passing and first failing load are within this fraction of each other (or 1 stream apart).',
  },
  {
    name: 'SLO_ATTAINMENT',
    default: '',
    help:
      'Goodput bar: at least this share (0 to 1) of requests must meet every per-request SLO set (their own ' +
      'TTFT, TPOT and e2e within SLO_TTFT_P99, SLO_ITL_P99, SLO_E2E_P99).',
  },
];

type Env = Record<string, string | undefined>;

function get(env: Env, name: string, def = ''): string {
  const v = env[name];
  return v === undefined || v.trim() === '' ? def : v;
}

function load(loop: LoopKind, name: string, raw: string): number {
  if (loop.integer) return positiveInt(name, raw, { min: 1, max: 100_000 });
  return number(name, raw, 0.001, 1_000_000);
}

/** Reads and checks the search's variables; throws ConfigError naming the first bad one. */
export function readCapacitySettings(env: Env): CapacitySettings {
  const loop = LOOPS[oneOf('CAPACITY_LOOP', get(env, 'CAPACITY_LOOP', 'closed'), ['closed', 'open'] as const)];
  // Each step is one run of its own; the search confirms a level by running it again, not by REPEATS.
  if (!['', '1'].includes(get(env, 'REPEATS').trim()))
    throw new ConfigError(`REPEATS=${get(env, 'REPEATS')} applies to a benchmark's run (k6 run, npm start), not to the capacity search: unset it.`);
  const start = load(loop, 'CAPACITY_START', get(env, 'CAPACITY_START', loop.defaults.start));
  const maxLoad = load(loop, 'CAPACITY_MAX_LOAD', get(env, 'CAPACITY_MAX_LOAD', loop.defaults.maxLoad));
  if (maxLoad < start) throw new ConfigError(`CAPACITY_MAX_LOAD=${maxLoad} is below CAPACITY_START=${start}: the search needs room to grow.`);
  const stepMs = duration('CAPACITY_STEP', get(env, 'CAPACITY_STEP', '20s'), { minMs: 1000, maxMs: 3_600_000 });
  const stepMaxMs = duration('CAPACITY_STEP_MAX', get(env, 'CAPACITY_STEP_MAX', '2m'), { minMs: 1000, maxMs: 86_400_000 });
  if (stepMaxMs < stepMs)
    throw new ConfigError(
      `CAPACITY_STEP_MAX (${get(env, 'CAPACITY_STEP_MAX')}) is shorter than CAPACITY_STEP (${get(env, 'CAPACITY_STEP', '20s')}): a step could never run once.`,
    );
  const maxTimeMs = duration('CAPACITY_MAX_TIME', get(env, 'CAPACITY_MAX_TIME', '30m'), { minMs: 10_000, maxMs: 7 * 86_400_000 });
  const criteria: Criterion[] = [];
  const latency = (key: 'ttft' | 'itl' | 'e2e', variable: string) => {
    const raw = get(env, variable);
    if (raw === '') return;
    criteria.push({ key, variable, limit: duration(variable, raw, { minMs: 1 }) });
  };
  latency('ttft', 'SLO_TTFT_P99');
  latency('itl', 'SLO_ITL_P99');
  latency('e2e', 'SLO_E2E_P99');
  const attainment = get(env, 'SLO_ATTAINMENT');
  if (attainment !== '') {
    const share = number('SLO_ATTAINMENT', attainment, 0, 1);
    if (share <= 0 || share >= 1) throw invalid('SLO_ATTAINMENT', attainment, 'a share above 0 and below 1, e.g. 0.9 for 90 % of requests within every SLO');
    if (criteria.length === 0)
      throw new ConfigError('SLO_ATTAINMENT needs a per-request SLO to count against: set SLO_TTFT_P99, SLO_ITL_P99 or SLO_E2E_P99 too.');
    criteria.push({ key: 'attainment', variable: 'SLO_ATTAINMENT', limit: share });
  }
  if (criteria.length === 0)
    throw new ConfigError(
      'a capacity search needs an SLO: set SLO_TTFT_P99, SLO_ITL_P99 and/or SLO_E2E_P99 (e.g. SLO_TTFT_P99=500ms SLO_ITL_P99=50ms), optionally SLO_ATTAINMENT.',
    );
  for (const v of ['ISL', 'OSL'] as const) {
    const raw = get(env, v);
    if (raw.includes(',')) throw new ConfigError(`${v}=${raw}: a capacity search measures one workload; give one value (run one search per ${v}).`);
  }
  for (const v of ['CONCURRENCY', 'RATE', 'REQUESTS', 'PARTIAL'] as const) {
    if (get(env, v) !== '')
      throw new ConfigError(`${v} is set: the capacity search sets each step's load and length itself; unset it and use CAPACITY_START / CAPACITY_MAX_LOAD.`);
  }
  return {
    loop,
    start,
    maxLoad,
    maxTimeMs,
    stepMs,
    stepMaxMs,
    minSamples: positiveInt('CAPACITY_MIN_SAMPLES', get(env, 'CAPACITY_MIN_SAMPLES', '400'), { min: 10, max: 10_000_000 }),
    precision: number('CAPACITY_PRECISION', get(env, 'CAPACITY_PRECISION', '0.05'), 0.001, 0.5),
    criteria,
    errorRate: number('SLO_ERROR_RATE', get(env, 'SLO_ERROR_RATE', '0.05'), 0, 1),
  };
}

/** The benchmark a step runs, checked to exist and to be single-variant. */
export function stepBenchmark(loop: LoopKind) {
  const spec = BENCHMARKS[loop.benchmark];
  if (!spec || spec.slots.length !== 1 || (spec.load === 'rate') !== (loop.name === 'open'))
    throw new Error(`capacity: ${loop.benchmark} cannot run a ${loop.name}-loop step`);
  return spec;
}
