// The parity harness's arithmetic, free of processes and files so a pure Node test covers it: the
// simulator's truth for one tool's run, the error of a tool's reported percentiles against it, and
// the table. Times are milliseconds.
import type { RequestRecord } from '../../sim/index';
import { quantileSorted } from '../../lib/stats/bootstrap';

/** p50 and p99 of one figure; null where the tool does not report it (never filled in). */
export interface Dist {
  p50: number | null;
  p99: number | null;
}

export const FIGURES = ['ttft', 'itl', 'tpot', 'e2e'] as const;
export type Figure = (typeof FIGURES)[number];

/** What one tool reported for one load, read from its own output files. */
export interface Reported {
  ttft: Dist | null;
  itl: Dist | null;
  tpot: Dist | null;
  e2e: Dist | null;
  /** Requests the tool counts as successful. */
  requestsOk: number | null;
  /** Output tokens the tool counted over those requests. */
  outputTokens: number | null;
  /** Requests the tool counts as failed (errors; requests it cancelled at its deadline are not failures). */
  failed: number | null;
  /** What the tool's figures mean where that differs from the truth's definition (docs/parity.md). */
  notes: string[];
}

/** The simulator's record of the same run: server-side times of the requests that completed. */
export interface Truth extends Record<Figure, Dist> {
  /** Requests that arrived in the run and completed (every token sent). */
  completed: number;
  /** Requests that arrived in the run and did not complete (the client went away, an error). */
  notCompleted: number;
  /** Output tokens the server sent to the completed requests. */
  tokensServed: number;
  /** Token-carrying events the server wrote to every request of the run (the client read them all). */
  tokenEvents: number;
  /**
   * How late the simulator may have read the completed requests' headers (busy with other work):
   * the truth's TTFT and e2e start that much late at most, so a client's error within it is not
   * the client's (sim/ground-truth.ts, intakeLagMs).
   */
  intakeLag: Dist;
  /** Mean requests in flight at the server from the run's first arrival to its last finish: the load the client really offered. */
  serverConcurrency: number | null;
}

export interface Cost {
  /** The client's process tree, user + system CPU seconds over the whole run. */
  cpuSec: number;
  /** Most resident memory of the client's process tree at once, MB. */
  peakRssMb: number;
}

export const quantiles = (values: number[]): Dist => {
  if (values.length === 0) return { p50: null, p99: null };
  const s = Float64Array.from(values).sort();
  return { p50: quantileSorted(s, 0.5), p99: quantileSorted(s, 0.99) };
};

/**
 * The truth over the requests that arrived in [fromMs, toMs): TTFT = first token event − arrival,
 * e2e = last event − arrival, TPOT = (last − first token) / (tokens − 1), ITL per token (an event's
 * gap shared by the tokens it carries), exactly as sim/ground-truth.ts's summary defines them.
 */
export function truthOf(records: readonly RequestRecord[], fromMs: number, toMs: number): Truth {
  const ttft: number[] = [];
  const itl: number[] = [];
  const tpot: number[] = [];
  const e2e: number[] = [];
  const intake: number[] = [];
  let completed = 0;
  let notCompleted = 0;
  let tokensServed = 0;
  let tokenEvents = 0;
  let busyMs = 0;
  let firstArrival = Infinity;
  let lastFinish = -Infinity;
  for (const r of records) {
    if (r.arrivalMs < fromMs || r.arrivalMs >= toMs) continue;
    const end = r.finishMs ?? toMs;
    busyMs += end - r.arrivalMs;
    firstArrival = Math.min(firstArrival, r.arrivalMs);
    lastFinish = Math.max(lastFinish, end);
    for (const e of r.events) if (e.tokens > 0) tokenEvents++;
    const ok = r.errorClass === null && r.finishReason === 'length' && r.finishMs !== null && r.firstTokenMs !== null;
    if (!ok) {
      notCompleted++;
      continue;
    }
    completed++;
    tokensServed += r.completionTokens;
    const first = r.firstTokenMs as number;
    const finish = r.finishMs as number;
    intake.push(r.intakeLagMs);
    ttft.push(first - r.arrivalMs);
    e2e.push(finish - r.arrivalMs);
    if (r.completionTokens > 1) tpot.push((finish - first) / (r.completionTokens - 1));
    for (let i = 1; i < r.events.length; i++) {
      const e = r.events[i];
      if (!e || e.tokens === 0) continue;
      const gap = (e.timeMs - (r.events[i - 1]?.timeMs ?? e.timeMs)) / e.tokens;
      for (let k = 0; k < e.tokens; k++) itl.push(gap);
    }
  }
  return {
    ttft: quantiles(ttft),
    itl: quantiles(itl),
    tpot: quantiles(tpot),
    e2e: quantiles(e2e),
    completed,
    notCompleted,
    tokensServed,
    tokenEvents,
    intakeLag: quantiles(intake),
    serverConcurrency: lastFinish > firstArrival ? busyMs / (lastFinish - firstArrival) : null,
  };
}

/** Reported − truth, per percentile (ms; positive: the tool says slower than the server was). Null where either is missing. */
export function errorOf(reported: Dist | null, truth: Dist): Dist {
  const d = (a: number | null | undefined, b: number | null): number | null => (a === null || a === undefined || b === null ? null : a - b);
  return { p50: d(reported?.p50, truth.p50), p99: d(reported?.p99, truth.p99) };
}

export interface Row {
  load: number;
  tool: string;
  /** null: the tool produced no figures (the reason is in `failure`). */
  reported: Reported | null;
  truth: Truth;
  cost: Cost | null;
  failure: string | null;
  /** 1-minute load average of the machine when the run ended. */
  loadAvg: number;
}

const num = (v: number | null, digits: number, sign = false): string =>
  v === null || !Number.isFinite(v) ? 'n/m' : `${sign && v >= 0 ? '+' : ''}${v.toFixed(digits)}`;

/** Digits for a millisecond figure: sub-ms ITLs need two. */
const msDigits = (v: number | null): number => (v !== null && Math.abs(v) < 10 ? 2 : 1);

export const TABLE_HEAD = [
  'load',
  'tool',
  'TTFT p50',
  'TTFT p99',
  'ITL p50',
  'ITL p99',
  'TPOT p50',
  'TPOT p99',
  'e2e p50',
  'e2e p99',
  'tokens counted / served',
  'requests ok / completed',
  'failed',
  'CPU-s per 1k events',
  'peak RSS MB',
  'load avg',
];

/** The truth's own row: absolute server-side milliseconds, the scale of the errors below it. */
export function truthLine(load: number, t: Truth): string[] {
  const cells = FIGURES.flatMap((f) => [num(t[f].p50, msDigits(t[f].p50)), num(t[f].p99, msDigits(t[f].p99))]);
  const lag = `intake lag p50 ${num(t.intakeLag.p50, 1)}, p99 ${num(t.intakeLag.p99, 1)}; in flight ${num(t.serverConcurrency, 0)}`;
  return [String(load), 'truth (ms)', ...cells, `${t.tokensServed}`, `${t.completed}`, `${t.notCompleted} cut; ${lag}`, '', '', ''];
}

/** One tool's row: each figure's error (reported − truth, ms), its token count and failures, its cost. */
export function toolLine(r: Row): string[] {
  const cost = r.cost;
  const costCells = [
    cost && r.truth.tokenEvents > 0 ? num((cost.cpuSec / r.truth.tokenEvents) * 1000, 3) : 'n/m',
    cost ? num(cost.peakRssMb, 0) : 'n/m',
    num(r.loadAvg, 1),
  ];
  if (!r.reported) return [String(r.load), r.tool, ...Array(8).fill('n/m'), 'n/m', 'n/m', r.failure ?? 'no figures', ...costCells];
  const rep = r.reported;
  const cells = FIGURES.flatMap((f) => {
    const e = errorOf(rep[f], r.truth[f]);
    return [num(e.p50, msDigits(e.p50), true), num(e.p99, msDigits(e.p99), true)];
  });
  const tokens = `${rep.outputTokens ?? 'n/m'} / ${r.truth.tokensServed}`;
  const reqs = `${rep.requestsOk ?? 'n/m'} / ${r.truth.completed}`;
  return [String(r.load), r.tool, ...cells, tokens, reqs, r.failure ? `${rep.failed ?? 'n/m'} (${r.failure})` : `${rep.failed ?? 'n/m'}`, ...costCells];
}

export function markdownTable(rows: string[][]): string {
  const line = (cells: string[]): string => `| ${cells.join(' | ')} |`;
  return [line(TABLE_HEAD), line(TABLE_HEAD.map(() => '---')), ...rows.map(line)].join('\n');
}
