// Over-saturation, seen as it happens: the server's own queue gauge (requests waiting to be
// scheduled), scraped about once a second during a run, judged over the last WINDOW_MS. A queue
// that keeps growing, or one that holds at least half the run's VUs at every scrape, means the
// server has fallen behind the load: a heavier step can only queue more. An open loop must also
// complete less than it is offered. The rule is pure; watchRun drives it through an HttpPort.
import { metricNames } from '../engines/index';
import type { HttpPort } from '../http-port';
import { parsePromText, total } from './promtext';
import type { ProbeVariant } from './probe';
import type { Load } from '../plan/plan-types';

/** The span the rule judges. */
export const WINDOW_MS = 10_000;
/** The window must be covered this far (scrapes come about once a second, not exactly). */
const MIN_COVER = 0.9;
/** At least this many scrapes in the window. */
const MIN_SCRAPES = 6;
/** "Growing": the fitted rise over the window, in requests, at least this … */
export const MIN_RISE = 4;
/** … and at least this many times the scatter around the fit (RMS residual). */
export const NOISE_FACTOR = 3;
/** "Full": at least this share of the run's VUs waiting at every scrape of the window. */
export const FULL_SHARE = 0.5;
/** An open loop also completes less than this share of its offered rate over the window. */
export const COMPLETION_SHARE = 0.9;
/** Time between scrapes. */
export const SCRAPE_EVERY_MS = 1000;

export interface QueueSample {
  /** Client clock when scraped. */
  atMs: number;
  /** Requests waiting to be scheduled (the server's queue gauge). */
  waiting: number;
  /** Requests the server has finished so far (a counter); null when it exposes none. */
  completed: number | null;
}

/** The rules that can fire, as the llm_saturated counter's saturation_rule tag. */
export const SATURATION_RULES = ['growing', 'full'] as const;

export interface Saturation {
  rule: (typeof SATURATION_RULES)[number];
  /** Client clock of the scrape that fired. */
  atMs: number;
  /** Waiting at that scrape. */
  waiting: number;
  /** Least waiting over the window. */
  minWaiting: number;
  /** Fitted rise of the queue over the window, in requests. */
  rise: number;
  /** RMS scatter around the fit, in requests. */
  noise: number;
  /** Completions per second over the window; null when the server counts none. */
  completionsPerS: number | null;
  /** One sentence of evidence. */
  evidence: string;
}

const r1 = (x: number) => Math.round(x * 10) / 10;

/** Least-squares line through (t, y): its rise over the samples' span and the RMS residual. */
function fit(s: QueueSample[]): { rise: number; noise: number } {
  const n = s.length;
  const t0 = s[0].atMs;
  let mt = 0;
  let my = 0;
  for (const x of s) {
    mt += (x.atMs - t0) / n;
    my += x.waiting / n;
  }
  let sxy = 0;
  let sxx = 0;
  for (const x of s) {
    sxy += (x.atMs - t0 - mt) * (x.waiting - my);
    sxx += (x.atMs - t0 - mt) ** 2;
  }
  const slope = sxx > 0 ? sxy / sxx : 0;
  let ss = 0;
  for (const x of s) ss += (x.waiting - (my + slope * (x.atMs - t0 - mt))) ** 2;
  return { rise: slope * (s[n - 1].atMs - t0), noise: Math.sqrt(ss / n) };
}

/**
 * The verdict on a run's samples so far (oldest first): saturated by which rule, or null. Judged
 * over the scrapes of the last WINDOW_MS, once they cover it.
 */
export function judge(samples: readonly QueueSample[], load: Load): Saturation | null {
  // A trace's own bursts fill and drain the queue by design: not judged.
  if (samples.length === 0 || load.kind === 'trace') return null;
  const last = samples[samples.length - 1];
  const from = last.atMs - WINDOW_MS;
  if (samples[0].atMs > from + WINDOW_MS * (1 - MIN_COVER)) return null;
  const w = samples.filter((x) => x.atMs >= from);
  if (w.length < MIN_SCRAPES) return null;
  const first = w[0];
  const seconds = (last.atMs - first.atMs) / 1000;
  const completionsPerS = first.completed !== null && last.completed !== null && seconds > 0 ? (last.completed - first.completed) / seconds : null;
  const { rise, noise } = fit(w);
  const minWaiting = Math.min(...w.map((x) => x.waiting));
  const base = { atMs: last.atMs, waiting: last.waiting, minWaiting, rise, noise, completionsPerS };
  const completions = completionsPerS === null ? 'completions not counted by the server' : `${r1(completionsPerS)} completions/s`;
  const growing = rise >= MIN_RISE && rise >= NOISE_FACTOR * noise;
  const span = `${r1(seconds)} s`;
  if (load.kind === 'rate') {
    // Open loop: the queue grows without bound while completions fall short of the offered rate.
    const short = completionsPerS === null || completionsPerS < COMPLETION_SHARE * load.rate;
    if (!growing || !short) return null;
    return {
      rule: 'growing',
      ...base,
      evidence:
        `the server's queue grew by ${r1(rise)} requests over ${span} (${first.waiting} → ${last.waiting} waiting, ` +
        `scatter ${r1(noise)}) while ${completions} of ${load.rate}/s offered`,
    };
  }
  // Closed loop: the queue is bounded by the VUs, so growth counts once it holds half of them
  // (a few requests drifting up and down under steady load is not saturation).
  if (growing && last.waiting >= FULL_SHARE * load.vus)
    return {
      rule: 'growing',
      ...base,
      evidence:
        `the server's queue grew by ${r1(rise)} requests over ${span} (${first.waiting} → ${last.waiting} waiting, ` +
        `scatter ${r1(noise)}) at ${load.vus} VUs; ${completions}`,
    };
  // Half the VUs waiting throughout is a server at its limit: a heavier step only queues more.
  if (minWaiting >= FULL_SHARE * load.vus) {
    return {
      rule: 'full',
      ...base,
      evidence: `at least ${minWaiting} of ${load.vus} VUs' requests waited in the server's queue at every scrape over ${span}; ${completions}`,
    };
  }
  return null;
}

/** The queue gauge and completion counter names of an engine; null when it exposes no queue gauge. */
export function queueNames(engine: string): { waiting: string; completed: string | null } | null {
  const n = metricNames(engine);
  if (n === null || !n.waiting) return null;
  return { waiting: n.waiting, completed: n.e2e === null ? null : `${n.e2e}_count` };
}

/** One scrape's queue sample; null when the scrape failed or lacks the gauge. */
export function queueSample(io: HttpPort, variant: ProbeVariant, names: { waiting: string; completed: string | null }): QueueSample | null {
  const res = io.get(`${variant.url}/metrics`, { headers: variant.headers, timeoutMs: SCRAPE_EVERY_MS * 2, name: 'GET /metrics (saturation)' });
  if (res.status !== 200) return null;
  const samples = parsePromText(res.body);
  const waiting = total(samples, names.waiting);
  if (waiting === null) return null;
  return { atMs: io.now(), waiting, completed: names.completed === null ? null : total(samples, names.completed) };
}

/**
 * Scrapes about once a second until `endMs` (client clock) and returns the first verdict of
 * saturation, or null. A failed scrape is skipped: the window then holds fewer scrapes.
 */
export function watchRun(io: HttpPort, variant: ProbeVariant, load: Load, endMs: number): Saturation | null {
  const names = queueNames(variant.engine);
  if (names === null) return null;
  const samples: QueueSample[] = [];
  while (io.now() < endMs) {
    const started = io.now();
    const s = queueSample(io, variant, names);
    if (s !== null) {
      samples.push(s);
      // Only the window is judged; older scrapes are dropped (but one, which tells the window is covered).
      while (samples.length > 2 && samples[1].atMs < s.atMs - WINDOW_MS) samples.shift();
      const v = judge(samples, load);
      if (v !== null) return v;
    }
    const wait = Math.min(SCRAPE_EVERY_MS - (io.now() - started), endMs - io.now());
    if (wait > 0) io.sleep(wait);
  }
  return null;
}
