// Injected failures. The same specs serve CLI flags, startSim({faults}) and POST /sim/faults, so a
// fault means one thing whichever way it was switched on.
import type { OptionSpec } from './option-spec';
import type { Rng } from './rng';

export interface Faults {
  /** Engine hangs: requests are accepted (stream headers sent) and never get a token. Health stays 200. */
  stall: boolean;
  /**
   * The OpenAI layer hangs: /v1/completions and /v1/chat/completions accept requests (stream
   * headers sent) and never answer, while the engine and SGLang's native /generate work. On vLLM,
   * which has no native route, every generation route hangs.
   */
  stallOpenai: boolean;
  /** Probabilities of an error reply before any token, by HTTP status. One uniform draw per request. */
  errorRate400: number;
  errorRate429: number;
  errorRate500: number;
  errorRate503: number;
  /** Probabilities of a mid-stream failure after `faultAfterTokens` tokens (streams only). */
  abortRate: number;
  streamErrorRate: number;
  malformedRate: number;
  /** Probability a stream ends cleanly (HTTP body closed properly) without its closing event or [DONE]. */
  truncateRate: number;
  faultAfterTokens: number;
  /** Probability that a tool call's arguments or a response_format reply are not valid JSON (sim/api/structured.ts). */
  schemaViolationRate: number;
  /** Multiplies every step time (a slow or throttled GPU). */
  slowFactor: number;
  /** Model ms after start at which the server crashes (listener closed, sockets reset); 0 = never. */
  crashAfterMs: number;
}

export const FAULT_SPECS: OptionSpec<keyof Faults>[] = [
  { key: 'stall', flag: 'stall', kind: 'bool', def: false, help: 'fault: engine hangs; health 200, generation never yields a token' },
  {
    key: 'stallOpenai',
    flag: 'stall-openai',
    kind: 'bool',
    def: false,
    help: 'fault: the OpenAI routes (/v1/completions, /v1/chat/completions) hang; /generate answers',
  },
  { key: 'errorRate400', flag: 'error-rate-400', kind: 'number', min: 0, max: 1, def: 0, help: 'fault: chance of a 400 reply' },
  { key: 'errorRate429', flag: 'error-rate-429', kind: 'number', min: 0, max: 1, def: 0, help: 'fault: chance of a 429 reply' },
  { key: 'errorRate500', flag: 'error-rate-500', kind: 'number', min: 0, max: 1, def: 0, help: 'fault: chance of a 500 reply' },
  { key: 'errorRate503', flag: 'error-rate-503', kind: 'number', min: 0, max: 1, def: 0, help: 'fault: chance of a 503 reply' },
  {
    key: 'abortRate',
    flag: 'abort-rate',
    kind: 'number',
    min: 0,
    max: 1,
    def: 0,
    help: 'fault: chance a stream is reset (TCP RST) after --fault-after-tokens',
  },
  {
    key: 'streamErrorRate',
    flag: 'stream-error-rate',
    kind: 'number',
    min: 0,
    max: 1,
    def: 0,
    help: 'fault: chance of an in-stream error event (HTTP 200) after --fault-after-tokens',
  },
  {
    key: 'malformedRate',
    flag: 'malformed-rate',
    kind: 'number',
    min: 0,
    max: 1,
    def: 0,
    help: 'fault: chance of one invalid-JSON data line after --fault-after-tokens',
  },
  {
    key: 'truncateRate',
    flag: 'truncate-rate',
    kind: 'number',
    min: 0,
    max: 1,
    def: 0,
    help: 'fault: chance a stream ends cleanly after --fault-after-tokens, without its closing event or [DONE]',
  },
  {
    key: 'faultAfterTokens',
    flag: 'fault-after-tokens',
    kind: 'int',
    min: 0,
    max: 1_000_000,
    def: 8,
    help: 'tokens streamed before a mid-stream fault strikes',
  },
  {
    key: 'schemaViolationRate',
    flag: 'schema-violation-rate',
    kind: 'number',
    min: 0,
    max: 1,
    def: 0,
    help: 'fault: chance that a tool call or a response_format reply is not valid JSON (its last character dropped); the truth records which',
  },
  { key: 'slowFactor', flag: 'slow-factor', kind: 'number', min: 0.01, max: 10_000, def: 1, help: 'fault: multiply every step time by this' },
  { key: 'crashAfterMs', flag: 'crash-after-ms', kind: 'number', min: 0, max: 1e9, def: 0, help: 'fault: crash this many model ms after start; 0 = never' },
];

export type PreFault = 400 | 429 | 500 | 503 | null;
export type MidFault = 'abort' | 'stream_error' | 'malformed' | 'truncate' | null;

export interface FaultPlan {
  pre: PreFault;
  mid: MidFault;
}

/** One draw per class group, in a fixed order, so the same seed and request order give the same faults. */
export function planFaults(f: Faults, rng: Rng, stream: boolean): FaultPlan {
  const u = rng.next();
  let pre: PreFault = null;
  let acc = 0;
  for (const [rate, status] of [
    [f.errorRate400, 400],
    [f.errorRate429, 429],
    [f.errorRate500, 500],
    [f.errorRate503, 503],
  ] as const) {
    acc += rate;
    if (pre === null && u < acc) pre = status;
  }
  const v = rng.next();
  let mid: MidFault = null;
  if (stream) {
    acc = 0;
    for (const [rate, kind] of [
      [f.abortRate, 'abort'],
      [f.streamErrorRate, 'stream_error'],
      [f.malformedRate, 'malformed'],
      [f.truncateRate, 'truncate'],
    ] as const) {
      acc += rate;
      if (mid === null && v < acc) mid = kind;
    }
  }
  return { pre, mid };
}

export const PRE_FAULT_MESSAGES: Record<Exclude<PreFault, null>, string> = {
  400: 'Simulated bad request.',
  429: 'Simulated rate limit: too many requests.',
  500: 'Simulated internal server error.',
  503: 'Simulated service unavailable.',
};
