// The trace variables (TRACE and the ones that only mean something with it), parsed into one
// TraceConfig, or null when TRACE is unset: then the load comes from CONCURRENCY or RATE as before.
// ARRIVALS's values too: a drawn schedule (lib/workload/arrivals.ts) is replayed as a trace.
import { ConfigError, duration, invalid, number, positiveInt } from './parse';

export interface TraceConfig {
  /** TRACE as given: a file path (k6's open(): absolute or relative to the bundle). */
  spec: string;
  /** TRACE_SPEED: 2 replays twice as fast (arrival gaps halved). */
  speed: number;
  /** TRACE_WINDOW: the slice of the trace replayed, ms from its first arrival; null: all of it. */
  window: { fromMs: number; toMs: number } | null;
  /** TRACE_VUS: VUs that hold requests waiting for their instant or in flight; the most requests in flight at once. */
  vus: number;
  /** TRACE_BLOCK_SIZE: tokens per hash id (Mooncake's traces use 512). */
  blockSize: number;
  /** TRACE_MAX_LAG: a replay whose p99 schedule lag is above this is marked not faithful. */
  maxLagMs: number;
  /** ARRIVALS=poisson|gamma:<shape>: the trace is that drawn schedule, not a file (spec names it); absent for a file. */
  arrivals?: ArrivalSchedule;
}

/** The variables that need TRACE. */
export const TRACE_ONLY = ['TRACE_SPEED', 'TRACE_WINDOW', 'TRACE_VUS', 'TRACE_BLOCK_SIZE', 'TRACE_MAX_LAG'] as const;

/**
 * @param get the variable's value as configured ('' when unset and without a default)
 * @param set whether the user set a variable in the environment or CONFIG
 */
export function traceConfig(get: (name: string) => string, set: (name: string) => boolean): TraceConfig | null {
  const spec = get('TRACE').trim();
  if (spec === '') {
    // A drawn ARRIVALS schedule is replayed as a trace: its lag limit and VUs apply there too.
    const drawn = parseArrivals(get('ARRIVALS')).kind !== 'constant';
    const stray = TRACE_ONLY.filter((n) => set(n) && !(drawn && (n === 'TRACE_MAX_LAG' || n === 'TRACE_VUS')));
    if (stray.length > 0) throw new ConfigError(`${stray.join(', ')} ${stray.length > 1 ? 'need' : 'needs'} TRACE: set TRACE to a trace file (JSONL or CSV).`);
    return null;
  }
  if (get('DATASET').trim() !== '')
    throw new ConfigError(
      'TRACE and DATASET together are not supported: a trace replay sends token-id prompts of the lengths the trace gives; unset one of them.',
    );
  if (set('REQUESTS'))
    throw new ConfigError('REQUESTS does not apply to a trace replay: the trace says how many requests are sent; use TRACE_WINDOW for fewer.');
  return {
    spec,
    speed: number('TRACE_SPEED', get('TRACE_SPEED'), 0.01, 1000),
    window: windowOf(get('TRACE_WINDOW')),
    vus: positiveInt('TRACE_VUS', get('TRACE_VUS'), { min: 1, max: 100_000 }),
    blockSize: positiveInt('TRACE_BLOCK_SIZE', get('TRACE_BLOCK_SIZE'), { min: 1, max: 65_536 }),
    maxLagMs: duration('TRACE_MAX_LAG', get('TRACE_MAX_LAG'), { minMs: 1, maxMs: 60_000 }),
  };
}

function windowOf(raw: string): TraceConfig['window'] {
  const s = raw.trim();
  if (s === '') return null;
  const m = /^([^-]+)-([^-]+)$/.exec(s);
  if (!m) throw invalid('TRACE_WINDOW', raw, 'FROM-TO in trace time, e.g. 0s-10m or 60s-180s');
  const fromMs = m[1].trim() === '0' ? 0 : duration('TRACE_WINDOW', m[1].trim(), { minMs: 0 });
  const toMs = duration('TRACE_WINDOW', m[2].trim(), { minMs: 1 });
  if (toMs <= fromMs) throw new ConfigError(`TRACE_WINDOW=${s}: the end must come after the start.`);
  return { fromMs, toMs };
}

/** What a drawn schedule is drawn for: the open-loop benchmark's own settings. */
export interface OpenLoop {
  rates: number[];
  isl: number[];
  osl: number[];
  durationMs: number;
  maxVus: number;
}

/**
 * ARRIVALS=poisson|gamma:<shape> in an open-loop benchmark: the drawn schedule, replayed as a
 * trace (its VUs MAX_VUS unless TRACE_VUS says, its lag limit TRACE_MAX_LAG); null for constant,
 * which k6's constant-arrival-rate executor runs as before.
 */
export function arrivalsConfig(get: (name: string) => string, set: (name: string) => boolean, o: OpenLoop): TraceConfig | null {
  const process = parseArrivals(get('ARRIVALS'));
  if (process.kind === 'constant') return null;
  const name = `ARRIVALS=${process.name}`;
  if (get('TRACE').trim() !== '') throw new ConfigError(`${name} and TRACE together: a trace gives its own arrival times; unset one of them.`);
  if (get('DATASET').trim() !== '')
    throw new ConfigError(`${name} and DATASET together are not supported: a drawn schedule sends token-id prompts of ISL tokens; unset one of them.`);
  if (set('REQUESTS')) throw new ConfigError(`REQUESTS does not apply to ${name}: the schedule spans DURATION at RATE; set DURATION instead.`);
  if (o.rates.length !== 1 || o.isl.length !== 1 || o.osl.length !== 1)
    throw new ConfigError(
      `${name} replays one drawn schedule: give one RATE, one ISL and one OSL (got RATE=${o.rates.join(',')}, ISL=${o.isl.join(',')}, OSL=${o.osl.join(',')}).`,
    );
  return {
    spec: name,
    speed: 1,
    window: null,
    vus: set('TRACE_VUS') ? positiveInt('TRACE_VUS', get('TRACE_VUS'), { min: 1, max: 100_000 }) : o.maxVus,
    blockSize: 1,
    maxLagMs: duration('TRACE_MAX_LAG', get('TRACE_MAX_LAG'), { minMs: 1, maxMs: 60_000 }),
    arrivals: { process, rate: o.rates[0], durationMs: o.durationMs, input: o.isl[0], output: o.osl[0] },
  };
}

export type ArrivalProcess = { kind: 'constant' } | { kind: 'gamma'; shape: number; name: string };

const FORMS = 'constant, poisson or gamma:<shape> (shape a number above 0: below 1 bursty, 1 Poisson, above 1 smoother)';

/** Parses ARRIVALS; anything else ends in one message naming the forms. */
export function parseArrivals(raw: string): ArrivalProcess {
  const s = raw.trim().toLowerCase();
  if (s === '' || s === 'constant') return { kind: 'constant' };
  if (s === 'poisson') return { kind: 'gamma', shape: 1, name: 'poisson' };
  const m = /^gamma:(.*)$/.exec(s);
  const shape = m && m[1].trim() !== '' ? Number(m[1]) : NaN;
  if (m && Number.isFinite(shape) && shape > 0 && shape <= 1000) return { kind: 'gamma', shape, name: `gamma:${shape}` };
  throw new ConfigError(`ARRIVALS=${raw}: expected ${FORMS}${m ? `; the shape must be above 0 and at most 1000 (got ${JSON.stringify(m[1])})` : ''}.`);
}

/** A drawn schedule's settings: the process, the mean rate (requests/s), how long it spans, each request's lengths. */
export interface ArrivalSchedule {
  process: Extract<ArrivalProcess, { kind: 'gamma' }>;
  rate: number;
  durationMs: number;
  input: number;
  output: number;
}
