// A request trace: when each request came and how long its prompt and reply were, replayed on the
// trace's own clock. Two file forms: Mooncake-style JSONL ({"timestamp": ms, "input_length",
// "output_length", optional "hash_ids" and session id}) and plain CSV (timestamp,input_tokens,
// output_tokens). Prompts are built so that requests share a prefix exactly where the trace's
// hash_ids are shared: hash id h is always the same block of tokens, so a prefix cache sees what
// production saw. Pure: the k6 layer reads the file and sleeps; this parses, slices and builds.
import { ConfigError } from '../config/parse';
import { randInt, rngFor, type Rng } from '../stats/rng';
import { WORDS } from './seeded-prompts';

export interface TraceEntry {
  /** Arrival time in the trace, ms (as written; the replay starts at the first entry of the window). */
  atMs: number;
  input: number;
  output: number;
  /** Prefix blocks, in order; null: the prompt shares nothing. */
  hashIds: number[] | null;
  /** A multi-turn session's id; null: none. */
  session: string | null;
}

export interface Trace {
  source: string;
  /** generated: an ARRIVALS schedule (lib/workload/arrivals.ts), not a file. */
  format: 'jsonl' | 'csv' | 'generated';
  /** Sorted by atMs (stable); offsets are from the first entry. */
  entries: TraceEntry[];
}

/** One-line description of a trace's shape, for the log and the report. */
export interface TraceShape {
  requests: number;
  /** From the first arrival to the last, ms of trace time. */
  spanMs: number;
  meanInput: number;
  meanOutput: number;
  sessions: number;
  /** Requests whose hash_ids share at least a leading block with an earlier request. */
  sharing: number;
}

const MAX_ENTRIES = 1_000_000;

/** Parses a trace file; every error names the file and line. */
export function parseTrace(text: string, source: string): Trace {
  const lines = text.split('\n');
  const first = lines.findIndex((l) => l.trim() !== '');
  if (first < 0) throw new ConfigError(`TRACE=${source}: the file is empty.`);
  const format = lines[first].trim().startsWith('{') ? 'jsonl' : 'csv';
  const entries: TraceEntry[] = [];
  const at = (i: number) => `TRACE=${source}:${i + 1}`;
  let csvStart = first;
  if (format === 'csv') {
    const head = lines[first].split(',').map((s) => s.trim().toLowerCase());
    if (head[0] === 'timestamp') {
      if (head.length < 3 || !/^input/.test(head[1]) || !/^output/.test(head[2])) {
        throw new ConfigError(`${at(first)}: a CSV trace's header is timestamp,input_tokens,output_tokens (got ${lines[first].trim()}).`);
      }
      csvStart = first + 1;
    }
  }
  for (let i = format === 'csv' ? csvStart : first; i < lines.length; i++) {
    const line = lines[i].trim();
    if (line === '' || line.startsWith('#')) continue;
    if (entries.length >= MAX_ENTRIES) throw new ConfigError(`TRACE=${source}: more than ${MAX_ENTRIES} requests; use TRACE_WINDOW on a shorter file.`);
    entries.push(format === 'jsonl' ? jsonlEntry(line, at(i)) : csvEntry(line, at(i)));
  }
  if (entries.length === 0) throw new ConfigError(`TRACE=${source}: no requests in the file.`);
  // Stable: requests at the same instant keep the file's order.
  const sorted = entries
    .map((e, i) => ({ e, i }))
    .sort((a, b) => a.e.atMs - b.e.atMs || a.i - b.i)
    .map((x) => x.e);
  return { source, format, entries: sorted };
}

function jsonlEntry(line: string, at: string): TraceEntry {
  let o: unknown;
  try {
    o = JSON.parse(line);
  } catch {
    throw new ConfigError(`${at}: not a JSON object (a JSONL trace has one {"timestamp", "input_length", "output_length"} per line).`);
  }
  if (o === null || typeof o !== 'object' || Array.isArray(o)) throw new ConfigError(`${at}: not a JSON object.`);
  const r = o as Record<string, unknown>;
  const hashIds = r.hash_ids === undefined || r.hash_ids === null ? null : ids(r.hash_ids, at);
  const s = r.session_id ?? r.session ?? r.conversation_id ?? null;
  if (s !== null && typeof s !== 'string' && typeof s !== 'number') throw new ConfigError(`${at}: session_id must be a string or a number.`);
  return {
    atMs: time(r.timestamp, at, 'timestamp'),
    input: count(r.input_length, at, 'input_length'),
    output: count(r.output_length, at, 'output_length'),
    hashIds,
    session: s === null ? null : String(s),
  };
}

function csvEntry(line: string, at: string): TraceEntry {
  const f = line.split(',').map((s) => s.trim());
  if (f.length < 3) throw new ConfigError(`${at}: a CSV trace line is timestamp,input_tokens,output_tokens (got ${line}).`);
  const num = (s: string) => (s === '' ? NaN : Number(s));
  return {
    atMs: time(num(f[0]), at, 'timestamp'),
    input: count(num(f[1]), at, 'input_tokens'),
    output: count(num(f[2]), at, 'output_tokens'),
    hashIds: null,
    session: null,
  };
}

function time(v: unknown, at: string, field: string): number {
  if (typeof v !== 'number' || !Number.isFinite(v) || v < 0)
    throw new ConfigError(`${at}: ${field} must be a time in ms, a number ≥ 0 (got ${JSON.stringify(v)}).`);
  return v;
}

function count(v: unknown, at: string, field: string): number {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 1 || v > 10_000_000)
    throw new ConfigError(`${at}: ${field} must be a whole number of tokens, 1 or more (got ${JSON.stringify(v)}).`);
  return v;
}

function ids(v: unknown, at: string): number[] {
  if (!Array.isArray(v) || v.some((x) => typeof x !== 'number' || !Number.isInteger(x) || x < 0)) {
    throw new ConfigError(`${at}: hash_ids must be a list of whole numbers ≥ 0.`);
  }
  return v as number[];
}

/**
 * The entries with fromMs ≤ offset < toMs, offsets counted from the trace's first arrival; times
 * shifted so the slice's first request is at 0 (the replay's span and load time are the slice's).
 */
export function windowOf(trace: Trace, win: { fromMs: number; toMs: number } | null): Trace {
  const t0 = trace.entries[0].atMs;
  const from = win?.fromMs ?? 0;
  const to = win?.toMs ?? Infinity;
  const inside = trace.entries.filter((e) => e.atMs - t0 >= from && e.atMs - t0 < to);
  const first = inside.length > 0 ? inside[0].atMs : 0;
  const entries = inside.map((e) => ({ ...e, atMs: e.atMs - first }));
  if (entries.length === 0)
    throw new ConfigError(
      `TRACE_WINDOW: no request of ${trace.source} falls in ${from} ms – ${to} ms (the trace spans ${trace.entries[trace.entries.length - 1].atMs - t0} ms).`,
    );
  return { ...trace, entries };
}

export function traceShape(trace: Trace): TraceShape {
  const e = trace.entries;
  const seen = new Set<number>();
  let sharing = 0;
  for (const x of e) {
    if (x.hashIds !== null && x.hashIds.length > 0 && seen.has(x.hashIds[0])) sharing++;
    for (const h of x.hashIds ?? []) seen.add(h);
  }
  const sum = (f: (x: TraceEntry) => number) => e.reduce((a, x) => a + f(x), 0);
  return {
    requests: e.length,
    spanMs: e[e.length - 1].atMs - e[0].atMs,
    meanInput: sum((x) => x.input) / e.length,
    meanOutput: sum((x) => x.output) / e.length,
    sessions: new Set(e.filter((x) => x.session !== null).map((x) => x.session)).size,
    sharing,
  };
}

/** What setup says about a replay before it starts. */
export function traceLogLine(source: string, s: TraceShape, t: { speed: number; vus: number; window: { fromMs: number; toMs: number } | null }): string {
  const slice = t.window === null ? '' : ` (TRACE_WINDOW ${t.window.fromMs / 1000}s–${t.window.toMs / 1000}s)`;
  const sessions = s.sessions > 0 ? `, ${s.sessions} sessions` : '';
  return (
    `${source}${slice}: ${s.requests} requests over ${(s.spanMs / 1000).toFixed(1)} s of trace time, mean ` +
    `${s.meanInput.toFixed(0)} input / ${s.meanOutput.toFixed(0)} output tokens` +
    (`${sessions}, ${s.sharing} sharing a prefix block with an earlier request; replayed at ${t.speed}× (${(s.spanMs / t.speed / 1000).toFixed(1)} ` +
      `s) with at most ${t.vus} in flight.`)
  );
}

/** When entry i is due, ms after the replay's start: its trace offset over the speed. */
export function dueMs(entry: TraceEntry, speed: number): number {
  return entry.atMs / speed;
}

export interface BlockSpec {
  seed: number;
  blockSize: number;
  idFloor: number;
  vocabSize: number;
}

/**
 * A trace request's prompt as `kind` units (token ids, or one-token words for chat): block h for
 * each hash id (the same units wherever h appears), cut or filled to `input` units; the fill is the
 * request's own (seeded by its index), so nothing is shared that the trace does not share.
 * `blocks` caches blocks across requests.
 */
export function traceUnits<T>(entry: TraceEntry, index: number, spec: BlockSpec, blocks: Map<number, T[]>, unit: (rng: Rng) => T): T[] {
  const out: T[] = [];
  for (const h of entry.hashIds ?? []) {
    if (out.length >= entry.input) break;
    let b = blocks.get(h);
    if (b === undefined) {
      const rng = rngFor(spec.seed, `trace-block:${h}`);
      b = new Array<T>(spec.blockSize);
      for (let i = 0; i < spec.blockSize; i++) b[i] = unit(rng);
      blocks.set(h, b);
    }
    for (let i = 0; i < b.length && out.length < entry.input; i++) out.push(b[i]);
  }
  if (out.length < entry.input) {
    const rng = rngFor(spec.seed, `trace-own:${index}`);
    while (out.length < entry.input) out.push(unit(rng));
  }
  return out;
}

export const tokenUnit = (spec: BlockSpec) => (rng: Rng) => randInt(rng, spec.idFloor, spec.vocabSize);
export const wordUnit = (rng: Rng) => WORDS[randInt(rng, 0, WORDS.length)];
