// The capacity of a simulated server found without the search: a fine sweep of loads, each held
// long, driven by a plain Node client (not k6) and judged by the simulator's own
// ground truth (its per-request TTFT, per-token ITL and e2e records over a window that skips the
// ramp-up). Where the ground-truth p99 first crosses the SLO, interpolated between grid loads, is
// the capacity the search's answer is checked against.
import http from 'node:http';
import type { RemoteSim } from './sim-process';
import type { Summary } from '../../sim/index';

export interface Workload {
  engine: 'sglang' | 'vllm';
  isl: number;
  osl: number;
}

function body(w: Workload, seq: number): { path: string; json: string } {
  const ids = Array.from({ length: w.isl }, (_, i) => 1000 + ((seq * 7919 + i * 104729) % 30000));
  return w.engine === 'sglang'
    ? {
        path: '/generate',
        json: JSON.stringify({ input_ids: ids, sampling_params: { max_new_tokens: w.osl, ignore_eos: true, temperature: 0 }, stream: true }),
      }
    : {
        path: '/v1/completions',
        json: JSON.stringify({ model: 'qwen3-32b-sim', prompt: ids, max_tokens: w.osl, ignore_eos: true, temperature: 0, stream: true }),
      };
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 100_000 });

function send(base: string, w: Workload, seq: number): Promise<void> {
  const { path, json } = body(w, seq);
  return new Promise((resolve) => {
    const req = http.request(
      base + path,
      { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(json) } },
      (res) => {
        res.on('data', () => undefined);
        res.on('end', () => resolve());
        res.on('error', () => resolve());
      },
    );
    req.on('error', () => resolve());
    req.end(json);
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface TruthPoint {
  load: number;
  ttft: number | null;
  itl: number | null;
  e2e: number | null;
  finished: number;
}

/** How long a load is held, and how much of its start the truth skips. */
export interface Hold {
  holdMs: number;
  skipMs: number;
}

/** Holds one load for `holdMs` and reads the ground truth over all but the first `skipMs`. */
export async function truthAt(sim: RemoteSim, w: Workload, loop: 'closed' | 'open', load: number, { holdMs, skipMs }: Hold): Promise<TruthPoint> {
  const t0 = Date.now();
  const end = t0 + holdMs;
  let seq = 0;
  const inflight: Array<Promise<void>> = [];
  if (loop === 'closed') {
    const worker = async () => {
      while (Date.now() < end) await send(sim.url, w, seq++);
    };
    for (let i = 0; i < load; i++) inflight.push(worker());
  } else {
    const gap = 1000 / load;
    for (let k = 0; t0 + k * gap < end; k++) {
      const due = t0 + k * gap;
      if (due > Date.now()) await sleep(due - Date.now());
      inflight.push(send(sim.url, w, seq++));
    }
  }
  await Promise.all(inflight);
  const s: Summary = await sim.summary(t0 + skipMs, Date.now() + 1);
  return { load, ttft: s.ttftMs.p99, itl: s.itlMs.p99, e2e: s.e2eMs.p99, finished: s.finished };
}

/** Where a p99 first crosses its limit along the grid, log-interpolated; null if it never does. */
export function truthCrossing(points: TruthPoint[], key: 'ttft' | 'itl' | 'e2e', limit: number): number | null {
  const pts = [...points].sort((a, b) => a.load - b.load);
  const i = pts.findIndex((p) => (p[key] ?? Infinity) > limit);
  if (i <= 0) return null;
  const a = pts[i - 1];
  const b = pts[i];
  const ya = Math.log((a[key] as number) / limit);
  const yb = Math.log((b[key] ?? limit * 10) / limit);
  return a.load + ((b.load - a.load) * -ya) / (yb - ya);
}
