// The trace variables (TRACE and the ones that only mean something with it), parsed into one
// TraceConfig, or null when TRACE is unset: then the load comes from CONCURRENCY or RATE as before.
import * as p from './parse';
import { ConfigError } from './parse';

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
    const stray = TRACE_ONLY.filter(set);
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
    speed: p.number('TRACE_SPEED', get('TRACE_SPEED'), 0.01, 1000),
    window: windowOf(get('TRACE_WINDOW')),
    vus: p.positiveInt('TRACE_VUS', get('TRACE_VUS'), { min: 1, max: 100_000 }),
    blockSize: p.positiveInt('TRACE_BLOCK_SIZE', get('TRACE_BLOCK_SIZE'), { min: 1, max: 65_536 }),
    maxLagMs: p.duration('TRACE_MAX_LAG', get('TRACE_MAX_LAG'), { minMs: 1, maxMs: 60_000 }),
  };
}

function windowOf(raw: string): TraceConfig['window'] {
  const s = raw.trim();
  if (s === '') return null;
  const m = /^([^-]+)-([^-]+)$/.exec(s);
  if (!m) throw p.invalid('TRACE_WINDOW', raw, 'FROM-TO in trace time, e.g. 0s-10m or 60s-180s');
  const fromMs = m[1].trim() === '0' ? 0 : p.duration('TRACE_WINDOW', m[1].trim(), { minMs: 0 });
  const toMs = p.duration('TRACE_WINDOW', m[2].trim(), { minMs: 1 });
  if (toMs <= fromMs) throw new ConfigError(`TRACE_WINDOW=${s}: the end must come after the start.`);
  return { fromMs, toMs };
}
