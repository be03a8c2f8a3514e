// Where a load stops paying: the knee of a concurrency ramp, and the rate where an open-model load
// falls behind (or what a trace replay sent and got back).
import type { RunFigures } from './run-figures';

export interface Knee {
  /** Concurrency where adding more stops paying; null when throughput kept growing. */
  concurrency: number | null;
  text: string;
}

/** The knee: the first level after which doubling-ish concurrency adds < `minGain` throughput. */
export function findKnee(runs: RunFigures[], minGain = 0.1): Knee {
  const levels = runs
    .filter((r) => r.load.kind === 'vus' && r.throughput !== null)
    .sort((x, y) => (x.load.kind === 'vus' && y.load.kind === 'vus' ? x.load.vus - y.load.vus : 0));
  if (levels.length < 2) return { concurrency: null, text: 'fewer than two measured concurrency levels: no knee to find' };
  const c = (r: RunFigures) => (r.load.kind === 'vus' ? r.load.vus : 0);
  for (let i = 0; i + 1 < levels.length; i++) {
    const cur = levels[i];
    const next = levels[i + 1];
    const gain = (next.throughput as number) / (cur.throughput as number) - 1;
    if (gain < minGain) {
      const lat = cur.e2e && next.e2e ? ` while p50 latency grows ${(next.e2e.p50 / cur.e2e.p50).toFixed(2)}×` : '';
      return {
        concurrency: c(cur),
        text: `knee at c=${c(cur)}: going to c=${c(next)} changes throughput by ${(gain * 100).toFixed(0)}%${lat}`,
      };
    }
  }
  const first = levels[0];
  const last = levels[levels.length - 1];
  const growth = (last.throughput as number) / (first.throughput as number);
  return { concurrency: null, text: `no knee up to c=${c(last)}: throughput still grows (${growth.toFixed(2)}× from c=${c(first)})` };
}

export interface FallBehind {
  rate: number | null;
  text: string;
}

/** The first offered rate the server does not keep up with: drops, or completions < 95% of offered. */
export function findFallBehind(runs: RunFigures[]): FallBehind {
  const levels = runs.filter((r) => r.load.kind === 'rate').sort((x, y) => rateOf(x) - rateOf(y));
  for (const r of levels) {
    const offered = rateOf(r);
    const done = r.requestRate ?? 0;
    if (r.dropped > 0 || done < offered * 0.95) {
      const why = r.dropped > 0 ? `${r.dropped} iterations dropped (no free VU)` : `completes ${done.toFixed(2)} req/s of ${offered} offered`;
      return { rate: offered, text: `falls behind at ${offered} req/s: ${why}` };
    }
  }
  const top = levels.length ? rateOf(levels[levels.length - 1]) : 0;
  if (levels.length) return { rate: null, text: `keeps up with every offered rate up to ${top} req/s` };
  // TRACE: one replay instead of rate levels; what it sent and what came back (its schedule lag is the replay's note).
  const replay = runs.find((r) => r.load.kind === 'trace');
  if (replay === undefined || replay.load.kind !== 'trace') return { rate: null, text: 'no arrival-rate cells' };
  const q = replay.requests;
  const lost = [q.failed > 0 ? `${q.failed} failed` : '', replay.dropped > 0 ? `${replay.dropped} never sent (every TRACE_VUS VU busy)` : '']
    .filter(Boolean)
    .join(', ');
  return {
    rate: null,
    text:
      `trace replay at ${replay.load.speed}× speed: ${q.ok} of ${replay.load.requests} requests completed` +
      (lost ? `; ${lost}` : ', none failed or left unsent'),
  };
}

function rateOf(r: RunFigures): number {
  return r.load.kind === 'rate' ? r.load.rate : 0;
}
