// Is the load generator, not the server, setting the numbers? Per run, from what both sides
// measured: the client's mean latencies minus the server's own over the same window (client +
// network overhead), the time each VU spends between one request's end and its next send, and
// dropped iterations; plus whether ITL percentiles fall under the clock's resolution. A run whose
// overhead or gap passes the stated rule is "client-limited", in every report.

import type { Dist } from './dist';

/** Overhead above this is the client's: max(5 ms, 2 % of the server's own figure). */
export const LIMIT_ABS_MS = 5;
export const LIMIT_REL = 0.02;
/** k6's clock (Date.now()) ticks in whole milliseconds. */
export const CLOCK_RESOLUTION_MS = 1;

export interface ClientCheck {
  /** Client mean e2e minus the server's over the steady window; null when the server gave none. */
  e2eOverheadMs: number | null;
  /** Client mean TTFT minus the server's; null when either is not measured. */
  ttftOverheadMs: number | null;
  /** Time between a VU's request end and its next send (closed loop only). */
  gap: Dist | null;
  dropped: number;
  /** TRACE replays: sent − due per request, and the bound its p99 is held to; null otherwise. */
  schedule: { lag: Dist | null; maxLagMs: number } | null;
  /** ITL percentiles within two clock ticks: they are quantised (the mean stays exact). */
  itlQuantised: boolean;
  /**
   * Why the stream reached the client in bursts, held by something between k6 and the server (a
   * buffering proxy): most token gaps under the clock's tick while the client's TTFT is well above
   * the server's own. Null when it did not. The overheads it explains are not the client's.
   */
  held: string | null;
  /** Why the run is client-limited; empty when it is not. */
  limited: string[];
}

/** A trace replay is faithful when its p99 schedule lag is within TRACE_MAX_LAG; null: nothing was sent. */
export function faithful(lag: Dist | null, maxLagMs: number): boolean | null {
  return lag === null ? null : lag.p99 <= maxLagMs;
}

export function limitMs(serverMs: number): number {
  return Math.max(LIMIT_ABS_MS, LIMIT_REL * serverMs);
}

export interface ClientCheckInput {
  /** Client mean e2e over the steady window (requests completing in it), ms. */
  clientWindowE2eMs: number | null;
  /** Client mean TTFT over the steady window (requests whose first token arrived in it), ms. */
  clientWindowTtftMs: number | null;
  serverE2eMeanMs: number | null;
  serverTtftMeanMs: number | null;
  clientE2eMeanMs: number | null;
  gap: Dist | null;
  itl: Dist | null;
  dropped: number;
  /** Open loop: dropped iterations mean the VU pool, not the CPU, ran out. */
  openLoop: boolean;
  schedule: ClientCheck['schedule'];
}

export function clientCheck(i: ClientCheckInput): ClientCheck {
  const e2eOverheadMs = i.clientWindowE2eMs !== null && i.serverE2eMeanMs !== null ? i.clientWindowE2eMs - i.serverE2eMeanMs : null;
  const ttftOverheadMs = i.clientWindowTtftMs !== null && i.serverTtftMeanMs !== null ? i.clientWindowTtftMs - i.serverTtftMeanMs : null;
  const limited: string[] = [];
  const ttftOver = ttftOverheadMs !== null && ttftOverheadMs > limitMs(i.serverTtftMeanMs as number);
  const held =
    ttftOver && i.itl !== null && i.itl.p50 < CLOCK_RESOLUTION_MS
      ? `tokens reached the client in bursts: ITL p50 ${i.itl.p50.toFixed(1)} ms (most gaps under k6's ${CLOCK_RESOLUTION_MS} ms clock) while its TTFT is ` +
        (`${(ttftOverheadMs as number).toFixed(1)} ms above the server's own. Something between k6 and the server ` +
          `(a proxy, a load balancer, response buffering) `) +
        'held the stream and let it go at once: TTFT and ITL here are what the client saw, not what the server did.'
      : null;
  // Held by the network: the overheads are the network's, not the load generator's.
  if (held === null && e2eOverheadMs !== null && e2eOverheadMs > limitMs(i.serverE2eMeanMs as number)) {
    limited.push(`client e2e exceeds the server's by ${e2eOverheadMs.toFixed(1)} ms (rule: > max(${LIMIT_ABS_MS} ms, ${LIMIT_REL * 100} %))`);
  }
  if (held === null && ttftOver) {
    limited.push(`client TTFT exceeds the server's by ${(ttftOverheadMs as number).toFixed(1)} ms`);
  }
  if (i.gap !== null && i.clientE2eMeanMs !== null && i.gap.avg > limitMs(i.clientE2eMeanMs)) {
    limited.push(`VUs spend ${i.gap.avg.toFixed(1)} ms between requests (mean) against ${i.clientE2eMeanMs.toFixed(0)} ms per request`);
  }
  if (i.openLoop && i.dropped > 0) {
    limited.push(
      i.schedule !== null
        ? `${i.dropped} requests of the trace never sent: every TRACE_VUS VU was busy until the replay's end (raise TRACE_VUS)`
        : `${i.dropped} iterations dropped: no free VU (raise MAX_VUS)`,
    );
  }
  const lag = i.schedule?.lag ?? null;
  if (i.schedule !== null && lag !== null && faithful(lag, i.schedule.maxLagMs) === false) {
    limited.push(
      `trace replay not faithful: p99 schedule lag ${lag.p99.toFixed(1)} ms is above TRACE_MAX_LAG ${i.schedule.maxLagMs} ` +
        `ms (requests went out late: every TRACE_VUS VU busy, or the client's CPU)`,
    );
  }
  return {
    e2eOverheadMs,
    ttftOverheadMs,
    gap: i.gap,
    dropped: i.dropped,
    schedule: i.schedule,
    itlQuantised: i.itl !== null && i.itl.p50 < 2 * CLOCK_RESOLUTION_MS,
    held,
    limited,
  };
}

/** What the terminal says when any run is client-limited. */
export const CLIENT_LIMITED_ADVICE =
  'the load generator limited these runs, not the server: run fewer VUs per k6 instance and more ' +
  'instances (k6 --execution-segment), or give k6 a machine of its own.';
