// The fault matrix: every simulator fault, what switching it on looks like to a user, and what
// the suite must report. One table drives the test (test/scenarios/faults.test.ts, on both transports and the
// dialects where the fault applies) and the table in docs/faults.md (npm run docs).
import type { ErrorClass } from '../lib/dialects/types';
import { DIALECT_TRAITS, type DialectName } from '../lib/dialects/index';
import type { Faults } from '../sim/index';
import { SIMULATED_DIALECTS as SIMULATED } from './simulated-dialects';
/** The cases run on the plain `data:` streams by default. */
export const DIALECTS: readonly DialectName[] = SIMULATED.filter((d) => !DIALECT_TRAITS[d].namedEvents);
/**
 * The dialects with named events (Anthropic Messages, OpenAI Responses) join the cases whose shape
 * is their own (an error body, an error event in a named-event stream); the others reach every
 * dialect through the same transport code and are not run for them again.
 */
const WITH_NAMED_EVENTS: readonly DialectName[] = SIMULATED;
export const TRANSPORTS = ['http', 'sse'] as const;

export interface FaultCase {
  id: string;
  /** How a user switches it on (simulator flag or admin call), for the docs. */
  how: string;
  /** Faults set on the simulator. */
  faults: Partial<Faults>;
  /** start: from the simulator's start; load: once the first measured request arrives. */
  when: 'start' | 'load';
  /** Kill the simulator instead of setting faults (at `when`). */
  crash?: boolean;
  /** The fault exists only in streamed replies: the http transport asks for a stream (STREAM=true). */
  streamOnly?: boolean;
  /** Dialects it applies to (default: DIALECTS). */
  dialects?: readonly DialectName[];
  /** The simulated server (default: SGLang for the sglang dialect, vLLM for the OpenAI ones). */
  server?: 'sglang' | 'vllm';
  /** Variables on top of the matrix's own. */
  env?: Record<string, string>;
  exit: 0 | 99 | 108;
  /** The error classes the run may report; at least one must appear when exit is 99, none when 0. */
  classes: readonly ErrorClass[];
  /**
   * Runs over both transports on k6 v2.2 too (TEST_SUBSET=v2), where the other cases run over sse
   * only: what it checks is read from a stream by each transport's own code.
   */
  bothTransportsOnV2?: boolean;
  /** The preflight reason when exit is 108. */
  preflight?: string;
  /** What the user reads, for the docs. */
  sees: string;
}

/**
 * Each cell of the matrix runs this small load: a few seconds, a deadline much shorter than the graceful stop,
 * so a VU held past its deadline shows in the run time.
 */
export const MATRIX_ENV = {
  ISL: '32',
  OSL: '24',
  CONCURRENCY: '2',
  DURATION: '3s',
  SLICES: '1',
  REQUEST_TIMEOUT: '2s',
  GRACEFUL_STOP: '15s',
  PREFLIGHT_TIMEOUT: '2s',
  WARMUP_REQUESTS: '0',
  SERVER_METRICS: 'off',
} as const;

export const FAULT_CASES: readonly FaultCase[] = [
  {
    id: 'error-400',
    how: '`--error-rate-400 0.3`',
    faults: { errorRate400: 0.3 },
    when: 'load',
    exit: 99,
    classes: ['bad_request'],
    sees: "bad_request counted; the server's message quoted",
  },
  {
    id: 'error-429',
    how: '`--error-rate-429 0.3`',
    faults: { errorRate429: 0.3 },
    when: 'load',
    exit: 99,
    classes: ['rate_limited'],
    sees: 'rate_limited counted; "lower CONCURRENCY or the arrival rate"',
  },
  {
    id: 'error-500',
    how: '`--error-rate-500 0.3`',
    faults: { errorRate500: 0.3 },
    when: 'start',
    exit: 99,
    classes: ['server_error'],
    sees: 'preflight retries and passes; server_error counted during the load',
  },
  {
    id: 'error-503',
    how: '`--error-rate-503 0.3`',
    faults: { errorRate503: 0.3 },
    when: 'load',
    dialects: WITH_NAMED_EVENTS,
    exit: 99,
    classes: ['overloaded'],
    sees: 'overloaded counted; "still loading, queue full or engine down"',
  },
  {
    id: 'abort',
    how: '`--abort-rate 0.5` (TCP reset mid-stream)',
    faults: { abortRate: 0.5 },
    when: 'start',
    streamOnly: true,
    exit: 99,
    classes: ['connection_lost'],
    sees: 'connection_lost counted; the VU goes on at once',
  },
  {
    id: 'stream-error',
    how: '`--stream-error-rate 0.5` (error event in a 200 stream)',
    faults: { streamErrorRate: 0.5 },
    when: 'start',
    streamOnly: true,
    dialects: WITH_NAMED_EVENTS,
    exit: 99,
    classes: ['stream_error'],
    sees: "stream_error counted with the server's message",
  },
  {
    id: 'malformed',
    how: '`--malformed-rate 0.5` (a data line that is not JSON)',
    faults: { malformedRate: 0.5 },
    when: 'start',
    streamOnly: true,
    exit: 99,
    classes: ['invalid_reply'],
    sees: 'invalid_reply counted, quoting the line',
  },
  {
    id: 'truncate',
    how: '`--truncate-rate 0.5` (the stream ends cleanly, without its closing event)',
    faults: { truncateRate: 0.5 },
    when: 'start',
    streamOnly: true,
    // Each with its own end: [DONE], message_stop, response.completed.
    dialects: ['openai', 'anthropic', 'responses'],
    bothTransportsOnV2: true,
    exit: 99,
    classes: ['truncated'],
    sees: 'truncated counted: "the stream ended after N event(s) without a finish reason or [DONE]" (for Messages and Responses: without its closing event)',
  },
  {
    id: 'slow',
    how: '`--slow-factor 20`',
    faults: { slowFactor: 20 },
    when: 'start',
    exit: 99,
    classes: ['timeout'],
    sees: 'timeout counted per request at REQUEST_TIMEOUT; no VU waits longer',
  },
  {
    id: 'stall-midrun',
    how: '`POST /sim/faults {"stall":true}` during the load',
    faults: { stall: true },
    when: 'load',
    exit: 99,
    classes: ['timeout'],
    sees: 'timeout counted per request at REQUEST_TIMEOUT; the run ends on time',
  },
  {
    id: 'crash-midrun',
    how: 'the server dies during the load (`--crash-after-ms`)',
    faults: {},
    when: 'load',
    crash: true,
    env: { VARIANT_DOWN_AFTER: '1s' },
    exit: 99,
    classes: ['connection_lost', 'unreachable'],
    sees: 'in-flight requests connection_lost; then back-off, refused attempts counted apart from requests, the variant declared down after VARIANT_DOWN_AFTER',
  },
  {
    id: 'stall',
    how: '`--stall` (healthy, never a token)',
    faults: { stall: true },
    when: 'start',
    exit: 108,
    classes: [],
    preflight: 'stalled',
    sees: 'preflight: "no token within PREFLIGHT_TIMEOUT: … the engine itself is stuck", exit 108, no load',
  },
  {
    id: 'stall-openai',
    how: '`--stall-openai` on SGLang (its OpenAI layer hangs, /generate answers)',
    faults: { stallOpenai: true },
    when: 'start',
    server: 'sglang',
    dialects: ['openai', 'openai-chat'],
    exit: 108,
    classes: [],
    preflight: 'stalled_layer',
    sees: 'preflight: "only POST /v1/… hangs; POST /generate answers: the OpenAI layer … is stuck; DIALECT=sglang works around it"',
  },
  {
    id: 'stall-openai-native',
    how: '`--stall-openai` on SGLang, spoken to natively',
    faults: { stallOpenai: true },
    when: 'start',
    server: 'sglang',
    dialects: ['sglang'],
    exit: 0,
    classes: [],
    sees: 'the run: the native route is unaffected; a warning that the OpenAI layer hangs (preflight waited PREFLIGHT_TIMEOUT for its probe)',
  },
];

/** The docs/faults.md table, generated from the cases above. */
export function faultTable(): string {
  const rows = FAULT_CASES.map((c) => {
    const dialects = (c.dialects ?? DIALECTS).join(', ');
    const transports = c.streamOnly ? 'http (STREAM=true), sse' : 'http, sse';
    const outcome =
      c.exit === 108
        ? `exit 108, preflight \`${c.preflight}\``
        : `exit ${c.exit}${c.classes.length ? `, ${c.classes.map((x) => `\`${x}\``).join(' / ')}` : ''}`;
    return `| ${c.id} | ${c.how} | ${transports} | ${dialects} | ${outcome} | ${c.sees} |`;
  });
  return ['| fault | switched on by | transports | dialects | outcome | what the user sees |', '|---|---|---|---|---|---|', ...rows].join('\n');
}
