// ARRIVALS (parsed in lib/config/trace-config.ts): how an open-loop benchmark's requests arrive.
// `constant` is k6's constant-arrival-rate executor (evenly spaced); `poisson` and `gamma:<shape>` draw a seeded schedule of inter-arrival
// gaps with mean 1/RATE and replay it as a trace (lib/workload/trace.ts, lib/k6/shared-trace.ts), so the
// schedule lag and the "faithful" verdict come with it. Gamma gaps of shape k have a squared
// coefficient of variation 1/k: k < 1 bursty, k = 1 Poisson (exponential gaps), k > 1 smoother.
// Pure: the same seed, rate and span give the same schedule on every machine.
import { ConfigError } from '../config/parse';
import type { ArrivalSchedule } from '../config/trace-config';
import { rngFor, type Rng } from '../stats/rng';
import type { Trace } from './trace';

const MAX_REQUESTS = 1_000_000;

/**
 * `count` gaps (ms) of a gamma process of shape `shape` and mean 1000/rate ms, drawn from the seed.
 * Shape 1 is the exponential (Poisson arrivals).
 */
export function arrivalGaps(shape: number, rate: number, count: number, seed: number): number[] {
  const rng = rngFor(seed, `arrivals:${shape}`);
  const scale = 1000 / rate / shape;
  const out = new Array<number>(count);
  for (let i = 0; i < count; i++) out[i] = gamma(rng, shape) * scale;
  return out;
}

/**
 * The schedule as a trace: the first request at 0, each next one a gap later, as long as it falls
 * within the span; every request of the same lengths and sharing no prefix.
 */
export function arrivalTrace(a: ArrivalSchedule, seed: number): Trace {
  const expected = (a.rate * a.durationMs) / 1000;
  if (expected > MAX_REQUESTS)
    throw new ConfigError(
      `ARRIVALS=${a.process.name}: RATE × DURATION asks for about ${Math.round(expected)} requests, more than ${MAX_REQUESTS}; shorten DURATION.`,
    );
  // Enough gaps for the span with a wide margin; drawn in one stream so a longer span extends the same schedule.
  const gaps = arrivalGaps(a.process.shape, a.rate, Math.ceil(expected * 2 + 100), seed);
  const entries: Trace['entries'] = [];
  let at = 0;
  for (let i = 0; at < a.durationMs; i++) {
    entries.push({ atMs: at, input: a.input, output: a.output, hashIds: null, session: null });
    at += i < gaps.length ? gaps[i] : Infinity;
  }
  return { source: `ARRIVALS=${a.process.name} at ${a.rate}/s`, format: 'generated', entries };
}

/** A gamma(shape, 1) draw: Marsaglia and Tsang's method; below shape 1 boosted by U^(1/shape). */
function gamma(rng: Rng, shape: number): number {
  if (shape < 1) return gamma(rng, shape + 1) * Math.pow(1 - rng(), 1 / shape);
  const d = shape - 1 / 3;
  const c = 1 / Math.sqrt(9 * d);
  for (;;) {
    let x: number;
    let v: number;
    do {
      x = normal(rng);
      v = 1 + c * x;
    } while (v <= 0);
    v = v * v * v;
    const u = 1 - rng();
    if (u < 1 - 0.0331 * x * x * x * x || Math.log(u) < 0.5 * x * x + d * (1 - v + Math.log(v))) return d * v;
  }
}

/** A standard normal draw (Box–Muller). */
function normal(rng: Rng): number {
  return Math.sqrt(-2 * Math.log(1 - rng())) * Math.cos(2 * Math.PI * rng());
}
