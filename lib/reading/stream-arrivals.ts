// A stream's events stamped as they arrive and read in batches. On k6 the per-event handler runs
// between two reads of the socket, each on another VU's JavaScript runtime: profiled at 64
// streams, the handler cost about 12 µs per event while reading the same chunks in a loop costs
// 4–6 µs each. So the handler only stamps and keeps each event, and the stream's reader takes them
// a batch at a time (StreamReader.readKept; docs/fidelity.md, "What one streamed token costs the
// client").
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

/**
 * The token-carrying events read, as columns: the buffers themselves, not copies (copying costs
 * k6's engine a property definition per element), so they are read before this VU's next stream.
 */
export function tokenColumns(a: Arrivals): { t: number[]; tokens: number[]; n: number } {
  return { t: a.times, tokens: a.tokens, n: a.n };
}
