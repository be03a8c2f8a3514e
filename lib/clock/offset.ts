// A load generator's clock against the server host's, measured NTP-style before the load: the
// instances of one test (execution segments on several hosts) each say how far their clock is
// from the server's, so that the merge lays their timelines on one clock (lib/report/align-instances.ts).

/** One exchange: the client's clock at send and at receipt, the server's reading in between (epoch ms). */
export interface ClockExchange {
  sendMs: number;
  serverMs: number;
  recvMs: number;
}

/** How the server's time was read: its own time route (ms), or its HTTP Date header (whole seconds). */
export type ClockMethod = 'time-route' | 'http-date';

export interface ClockReading {
  /** Server clock − this host's clock, ms: a time on this host plus it is the server's time. */
  offsetMs: number;
  /** The round trip of the exchange the offset was taken from (the shortest), ms. */
  roundTripMs: number;
  /**
   * How far the true offset may be from offsetMs: half the round trip (the server read its clock
   * somewhere within it), plus half a second for a Date header's whole seconds.
   */
  boundMs: number;
  method: ClockMethod;
  exchanges: number;
}

/**
 * The offset from exchanges with a time route: offset = server − (send + receipt) / 2 of the
 * exchange with the shortest round trip (the one whose server reading is pinned closest).
 */
/**
 * resolutionMs: the client clock's step (k6's Date.now(): whole ms). A moment read as t happened in
 * [t, t + step): the midpoint is taken half a step later, and the bound widens by half a step.
 */
export function clockOffset(exchanges: ClockExchange[], resolutionMs = 0): ClockReading {
  if (exchanges.length === 0) throw new RangeError('clockOffset: no exchanges');
  let best = exchanges[0];
  for (const e of exchanges) if (e.recvMs - e.sendMs < best.recvMs - best.sendMs) best = e;
  const roundTripMs = best.recvMs - best.sendMs;
  if (!(roundTripMs >= 0)) throw new RangeError(`clockOffset: an exchange received before it was sent (${roundTripMs} ms)`);
  const offsetMs = best.serverMs - (best.sendMs + best.recvMs) / 2 - resolutionMs / 2;
  return { offsetMs, roundTripMs, boundMs: roundTripMs / 2 + resolutionMs / 2, method: 'time-route', exchanges: exchanges.length };
}

/**
 * The coarse offset from HTTP Date headers: each says the whole second the server was in, so the
 * reading is the middle of that second, known to ±500 ms on top of half the round trip.
 */
export function dateHeaderOffset(exchanges: Array<{ sendMs: number; date: string; recvMs: number }>, resolutionMs = 0): ClockReading | null {
  const read: ClockExchange[] = [];
  for (const e of exchanges) {
    const t = Date.parse(e.date);
    if (Number.isFinite(t)) read.push({ sendMs: e.sendMs, serverMs: t + 500, recvMs: e.recvMs });
  }
  if (read.length === 0) return null;
  const r = clockOffset(read, resolutionMs);
  return { ...r, boundMs: r.boundMs + 500, method: 'http-date', exchanges: exchanges.length };
}

/** The time route's reply: the server's clock in epoch ms (fractions allowed); null when the body is not one. */
export function serverTimeOf(body: string | null): number | null {
  try {
    const v = (JSON.parse(body ?? '') as { epoch_ms?: unknown }).epoch_ms;
    return typeof v === 'number' && Number.isFinite(v) ? v : null;
  } catch {
    return null;
  }
}
