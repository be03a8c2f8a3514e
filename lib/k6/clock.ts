// setup() of an instance of a split run: its clock against the server host's, before any load
// (lib/clock/offset.ts does the arithmetic). The simulator's GET /sim/clock gives the server's
// time to the microsecond; a server without it answers with an HTTP Date header, read as a coarse
// fallback (whole seconds, said so); with neither, the offset is not measured.
import http from 'k6/http';
import { clockOffset, dateHeaderOffset, serverTimeOf, type ClockReading } from '../clock/offset';
import type { InstanceClock } from '../clock/instance';

/** Exchanges per measurement: enough for one of them to meet an idle link. */
const EXCHANGES = 8;
/** k6's Date.now() steps by whole milliseconds. */
const K6_CLOCK_STEP_MS = 1;

function exchange(url: string): { sendMs: number; recvMs: number; status: number; body: string; date: string } {
  const sendMs = Date.now();
  const res = http.get(url, { timeout: 5000, tags: { name: 'GET /sim/clock', phase: 'preflight' }, responseType: 'text' });
  const recvMs = Date.now();
  const date = (res.headers.Date ?? res.headers.date ?? '') as string;
  return { sendMs, recvMs, status: res.status, body: typeof res.body === 'string' ? res.body : '', date };
}

function measure(baseUrl: string): { reading: ClockReading | null; why: string | null } {
  const xs = Array.from({ length: EXCHANGES }, () => exchange(`${baseUrl}/sim/clock`));
  const timed = xs.flatMap((x) => {
    const serverMs = x.status === 200 ? serverTimeOf(x.body) : null;
    return serverMs === null ? [] : [{ sendMs: x.sendMs, serverMs, recvMs: x.recvMs }];
  });
  if (timed.length > 0) return { reading: clockOffset(timed, K6_CLOCK_STEP_MS), why: null };
  const coarse = dateHeaderOffset(
    xs.filter((x) => x.status > 0),
    K6_CLOCK_STEP_MS,
  );
  if (coarse !== null) return { reading: coarse, why: null };
  const first = xs[0];
  return {
    reading: null,
    why: first.status === 0 ? `the server did not answer GET /sim/clock` : `GET /sim/clock answered ${first.status} without a time or a Date header`,
  };
}

/** This instance's clock against the server of the first variant; its name as reports show it. */
export function instanceClock(name: string, baseUrl: string, sliceMs: number): InstanceClock {
  const { reading, why } = measure(baseUrl);
  const host = baseUrl.replace(/^[a-z]+:\/\//, '').replace(/\/.*$/, '');
  if (reading)
    console.log(
      `clock of ${name} against ${host}: offset ${reading.offsetMs.toFixed(2)} ms (± ${reading.boundMs.toFixed(2)}; ` +
        (`round trip ${reading.roundTripMs.toFixed(2)} ms, best of ${reading.exchanges}` +
          `${reading.method === 'http-date' ? ", from the server's Date header: coarse" : ''})`),
    );
  else console.warn(`clock of ${name} against ${host}: not measured (${why})`);
  return { name, server: host, clock: reading, notMeasured: why, sliceMs };
}
