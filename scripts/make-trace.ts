// npm run make-trace -- [--requests 2000] [--span 240s] [--seed 1] [--out trace.jsonl]
//
// Writes a Mooncake-style JSONL trace with what production traffic has and a constant rate does
// not: bursts and lulls (arrivals switch between a busy and a quiet rate), prefix blocks shared by
// many requests (a few system prompts, picked with a skewed popularity), and multi-turn sessions
// whose later turns repeat the earlier turns' blocks and add their own. Seeded: the same options
// give the same file.
import { writeFileSync } from 'node:fs';
import { rngFor, type Rng } from '../lib/stats/rng';

export interface SynthOptions {
  requests: number;
  /** Trace time from the first arrival to the last, ms (the arrivals are scaled to it). */
  spanMs: number;
  seed: number;
  blockSize: number;
}

export interface SynthRow {
  timestamp: number;
  input_length: number;
  output_length: number;
  hash_ids: number[];
  session_id: string;
}

/** System prompts: this many, of 1–3 blocks each, the first ones far more popular. */
const SYSTEM_PROMPTS = 8;
/** Share of requests that are a later turn of a session already open. */
const FOLLOW_UP = 0.45;
/** Busy and quiet spells: arrival rates in the ratio 6 : 1, spells of about 8 s and 12 s of trace time (before scaling). */
const BURST_RATIO = 6;
const BURST_MS = 8000;
const LULL_MS = 12000;

export function synthTrace(o: SynthOptions): SynthRow[] {
  const rng = rngFor(o.seed, 'make-trace');
  let nextId = 0;
  const systems = Array.from({ length: SYSTEM_PROMPTS }, () => Array.from({ length: 1 + Math.floor(rng() * 3) }, () => nextId++));
  const raw = arrivals(o.requests, rng);
  const times = raw.map((t) => Math.round(((t - raw[0]) / (raw[raw.length - 1] - raw[0] || 1)) * o.spanMs));
  const open: Array<{ id: string; blocks: number[]; turns: number; lastMs: number }> = [];
  const rows: SynthRow[] = [];
  let sessions = 0;
  for (const t of times) {
    // A user answers a reply after a few seconds: a session's next turn comes 3 s or more after its last.
    const ready = open.filter((s) => t - s.lastMs > 3000 && s.turns < 6);
    let s: (typeof open)[number];
    if (ready.length > 0 && rng() < FOLLOW_UP) {
      s = ready[Math.floor(rng() * ready.length)];
    } else {
      // Popularity falls off as 1/(k+1): the first system prompts are shared by most sessions.
      const weights = systems.map((_, k) => 1 / (k + 1));
      let u = rng() * weights.reduce((a, b) => a + b, 0);
      let k = 0;
      while (u > weights[k] && k < weights.length - 1) u -= weights[k++];
      s = { id: `s${sessions++}`, blocks: [...systems[k]], turns: 0, lastMs: t };
      open.push(s);
      if (open.length > 64) open.shift();
    }
    // Each turn adds the previous reply and a new user message: 1–2 blocks of its own.
    const added = 1 + Math.floor(rng() * 2);
    for (let i = 0; i < added; i++) s.blocks.push(nextId++);
    s.turns++;
    s.lastMs = t;
    // The last block is partly used, as in a real prompt.
    const input = (s.blocks.length - 1) * o.blockSize + 1 + Math.floor(rng() * o.blockSize);
    rows.push({ timestamp: t, input_length: input, output_length: outputLength(rng), hash_ids: [...s.blocks], session_id: s.id });
  }
  return rows;
}

/** A Markov-modulated Poisson process: exponential gaps at the busy or the quiet rate, switching spells. */
function arrivals(n: number, rng: Rng): number[] {
  const out: number[] = [];
  let t = 0;
  let busy = true;
  let spellEnd = BURST_MS;
  while (out.length < n) {
    const rate = busy ? BURST_RATIO : 1; // per unit of trace time; scaled later
    t += (-Math.log(1 - rng()) / rate) * 100;
    while (t > spellEnd) {
      busy = !busy;
      spellEnd += busy ? BURST_MS : LULL_MS;
    }
    out.push(t);
  }
  return out;
}

/** Replies of 16 to 256 tokens, most short. */
function outputLength(rng: Rng): number {
  return Math.round(16 * Math.pow(16, rng() * rng()));
}

function main(argv: string[]): void {
  const get = (flag: string, def: string) => {
    const i = argv.indexOf(flag);
    return i >= 0 && i + 1 < argv.length ? argv[i + 1] : def;
  };
  const num = (flag: string, def: string, min: number) => {
    const v = Number(get(flag, def).replace(/s$/, ''));
    if (!Number.isFinite(v) || v < min) {
      console.error(`make-trace: ${flag} must be a number ≥ ${min} (got ${get(flag, def)}).`);
      process.exit(2);
    }
    return v;
  };
  const o: SynthOptions = {
    requests: Math.floor(num('--requests', '2000', 1)),
    spanMs: num('--span', '240', 1) * 1000,
    seed: Math.floor(num('--seed', '1', 0)),
    blockSize: Math.floor(num('--block-size', '512', 1)),
  };
  const out = get('--out', 'trace.jsonl');
  const rows = synthTrace(o);
  writeFileSync(out, rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
  const sessions = new Set(rows.map((r) => r.session_id)).size;
  console.log(`make-trace: ${rows.length} requests over ${o.spanMs / 1000} s, ${sessions} sessions, written to ${out}.`);
}

if (process.argv[1] && /make-trace\.ts$/.test(process.argv[1])) main(process.argv.slice(2));
