// The server-metrics probe of one run: scrape the variant's /metrics at the start and at the end
// of the run's steady window and turn the two snapshots into window figures, or say why there are
// none. The decisions (one retry, a window cut short) live here, tested with a fake HttpPort;
// the k6 layer only hands in the port and records the figures.
import type { HttpPort } from '../http-port';
import { snapshot, windowFigures, type EngineId, type Snapshot, type WindowFigures } from './window';

/** A probe that started this late covers too little of the window to stand for the run. */
export const MIN_WINDOW_SHARE = 0.5;
const SCRAPE_TIMEOUT_MS = 10_000;
const RETRY_PAUSE_MS = 500;

export interface ProbeVariant {
  url: string;
  engine: EngineId;
  headers: Record<string, string>;
}

export type ProbeOutcome = { figures: WindowFigures } | { notMeasured: string };

/** One scrape, tried twice; the reason when it cannot be had. */
export function scrape(io: HttpPort, v: ProbeVariant, when: 'start' | 'end'): Snapshot | string {
  for (let attempt = 1; ; attempt++) {
    const res = io.get(`${v.url}/metrics`, { headers: v.headers, timeoutMs: SCRAPE_TIMEOUT_MS, name: 'GET /metrics' });
    if (res.status === 200) return snapshot(v.engine, res.body, io.now());
    if (attempt === 2) return `GET /metrics at the ${when} of the window → ${res.status || res.error}`;
    io.sleep(RETRY_PAUSE_MS);
  }
}

/**
 * Scrapes now, waits until `endMs` (client clock), scrapes again, and returns the window's
 * figures, or why they are not measured. `during` is the wait's work (the GPU probe), run after
 * the first scrape; the rest of the wait is slept.
 */
export function probeWindow(io: HttpPort, v: ProbeVariant, endMs: number, windowMs: number, during?: () => void): ProbeOutcome {
  const first = scrape(io, v, 'start');
  if (typeof first === 'string') {
    during?.();
    return { notMeasured: first };
  }
  during?.();
  const wait = endMs - io.now();
  if (wait > 0) io.sleep(wait);
  const last = scrape(io, v, 'end');
  if (typeof last === 'string') return { notMeasured: last };
  const covered = last.atMs - first.atMs;
  if (covered < windowMs * MIN_WINDOW_SHARE) {
    // The probe started late (an overloaded load generator): too short a window to stand for the run.
    return { notMeasured: `the probe covered ${covered} ms of the ${windowMs} ms window` };
  }
  return { figures: windowFigures(first, last) };
}
