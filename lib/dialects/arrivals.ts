// A stream's events stamped as they arrive and read in batches. On k6 the per-event handler runs
// between two reads of the socket, each on another VU's JavaScript runtime: profiled at 64
// streams, the handler cost about 12 µs per event while reading the same chunks in a loop costs
// 4–6 µs each. So the handler only stamps and keeps each event, and the reader takes them a batch
// at a time (docs/fidelity.md, "What one streamed token costs the client").
import { EVENT_DONE, EVENT_NONE } from './types';

/** Events kept before they are read: bounds the memory a long stream holds (a few hundred bytes each). */
export const ARRIVAL_BATCH = 64;

export interface Arrivals {
  /** Arrival time and data of the events kept and not yet read (the first ones of each array). */
  readonly at: number[];
  readonly data: string[];
  /** Token-carrying events read so far: arrival time and tokens (NaN: not said), `n` of them. */
  readonly times: number[];
  readonly tokens: number[];
  n: number;
  /** Arrival time of the event that ended the stream ([DONE]); 0 while none did. */
  doneMs: number;
}

/**
 * One per VU, reused by each of its streams in turn: an array element written past an array's end
 * costs k6's engine a look through Array.prototype, one written in place does not.
 */
export function arrivals(): Arrivals {
  return { at: [], data: [], times: [], tokens: [], n: 0, doneMs: 0 };
}

/** Makes ready for the next stream. */
export function restart(a: Arrivals): void {
  a.n = 0;
  a.doneMs = 0;
}

/** The token-carrying events read, as columns of their own (the buffers are reused). */
export function tokenColumns(a: Arrivals): { t: number[]; tokens: number[] } {
  return { t: a.times.slice(0, a.n), tokens: a.tokens.slice(0, a.n) };
}

/**
 * Reads the first `count` kept events in arrival order. Events after the one that ended the stream
 * are not read, as a reader told [DONE] would not have been given them.
 */
export function readKept(a: Arrivals, count: number, onEvent: (data: string) => number): void {
  const at = a.at;
  const data = a.data;
  const times = a.times;
  const tokens = a.tokens;
  let n = a.n;
  for (let i = 0; i < count && a.doneMs === 0; i++) {
    const c = onEvent(data[i]);
    if (c === EVENT_DONE) a.doneMs = at[i];
    else if (c !== EVENT_NONE) {
      times[n] = at[i];
      tokens[n++] = c;
    }
  }
  a.n = n;
}
