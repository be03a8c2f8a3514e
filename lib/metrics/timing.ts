// Per-request latency figures from the timestamps a transport really took. The http transport
// has only start and end, so TTFT, ITL and TPOT are null for it: not measured, never estimated.

export interface TimedEvent {
  /** Client clock (ms) when a token-carrying event arrived. */
  t: number;
  /** Tokens the event carried, when the server reported it; null when unknown. */
  tokens: number | null;
}

export interface RequestTiming {
  e2eMs: number;
  ttftMs: number | null;
  /** One sample per token after the first event: an event's gap divided by the tokens it carried. */
  itlMs: number[] | null;
  tpotMs: number | null;
}

/**
 * @param events token-carrying events in arrival order; null when the transport cannot see events.
 * @param completionTokens the server's final count, for TPOT.
 */
export function requestTiming(
  startMs: number,
  endMs: number,
  events: TimedEvent[] | null,
  completionTokens: number | null,
): RequestTiming {
  const e2eMs = endMs - startMs;
  if (events === null || events.length === 0) return { e2eMs, ttftMs: null, itlMs: null, tpotMs: null };
  const ttftMs = events[0].t - startMs;
  let itlMs: number[] | null = [];
  let prev = events[0].t;
  for (let i = 1; i < events.length; i++) {
    const n = events[i].tokens;
    if (n === null) {
      // One event with an unknown token count makes every per-token gap unknowable.
      itlMs = null;
      break;
    }
    if (n <= 0) continue;
    const per = (events[i].t - prev) / n;
    for (let k = 0; k < n; k++) itlMs.push(per);
    prev = events[i].t;
  }
  const tpotMs = completionTokens !== null && completionTokens >= 2 ? (e2eMs - ttftMs) / (completionTokens - 1) : null;
  return { e2eMs, ttftMs, itlMs, tpotMs };
}

/**
 * Splits a request's output tokens over the time slices of its cell: by event time when events
 * were seen, else evenly over [start, end]. Tokens after the last slice are outside the window.
 * Returns [slice index, tokens] pairs with tokens > 0.
 */
export function sliceTokens(
  startMs: number,
  endMs: number,
  tokens: number,
  cellStartMs: number,
  sliceMs: number,
  slices: number,
  events: TimedEvent[] | null,
): Array<[number, number]> {
  const acc = new Array<number>(slices).fill(0);
  const windowEnd = cellStartMs + sliceMs * slices;
  const exact = events !== null && events.length > 0 && events.every((e) => e.tokens !== null);
  if (exact) {
    // The first event's count is what was reported by then; later ones carry their own counts.
    for (const e of events) {
      if (e.t < cellStartMs || e.t >= windowEnd) continue;
      acc[Math.floor((e.t - cellStartMs) / sliceMs)] += e.tokens as number;
    }
  } else if (endMs > startMs && tokens > 0) {
    const rate = tokens / (endMs - startMs);
    for (let s = 0; s < slices; s++) {
      const a = Math.max(startMs, cellStartMs + s * sliceMs);
      const b = Math.min(endMs, cellStartMs + (s + 1) * sliceMs);
      if (b > a) acc[s] += rate * (b - a);
    }
  }
  const out: Array<[number, number]> = [];
  for (let s = 0; s < slices; s++) if (acc[s] > 0) out.push([s, acc[s]]);
  return out;
}

/** The slice a moment falls in, or -1 outside the window. */
export function sliceOf(tMs: number, cellStartMs: number, sliceMs: number, slices: number): number {
  const s = Math.floor((tMs - cellStartMs) / sliceMs);
  return s >= 0 && s < slices ? s : -1;
}
