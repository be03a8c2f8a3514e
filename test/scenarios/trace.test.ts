// A trace replayed on real k6 against two simulators (the A/B): a Mooncake-style trace written by
// scripts/make-trace.ts (bursts and lulls, shared system-prompt blocks, multi-turn sessions). The
// simulators' own records are the judge: every request arrives within TRACE_MAX_LAG of its instant
// at p99 (the replay clock's start is what k6 logs), and a prompt's cached tokens are exactly the
// blocks the trace shares with an earlier request, never more.
//
// CI replays slices of the trace (TRACE_WINDOW): its first 80 s at 4× (20 s per deployment) and
// 40 s from its middle at 1×. The whole 4-minute trace, at 4× and at 1× (8 minutes), runs with TEST_LONG=1
// (`npm run test:long`, the scheduled workflow .github/workflows/long.yml).
// test-runner: alone (its bounds are arrival lags of a few milliseconds)
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { synthTrace, type SynthRow } from '../../scripts/make-trace';
import type { RequestRecord } from '../../sim/index';
import { spawnSim, type RemoteSim } from './sim-process';
import { explain, RUNNERS } from './harness';

const BLOCK = 512;
const MAX_LAG_MS = 50;
/** The simulator's prefix cache keeps blocks of this many tokens: a shared prefix is cached to a multiple of it. */
const SIM_BLOCK = 16;

interface TraceRecord {
  variant: string;
  requests_ok: number;
  requests_failed: number;
  errors_by_class: Record<string, number>;
  notes: string[];
  trace: { speed: number; requests: number; schedule_lag_ms: { p50: number; p99: number; count: number } | null; faithful: boolean | null } | null;
}

const LONG = process.env.TEST_LONG === '1';
const trace = distinctShapes(synthTrace({ requests: 2000, spanMs: 240_000, seed: 7, blockSize: BLOCK }));
const dir = mkdtempSync(join(tmpdir(), 'llm-trace-'));
const file = join(dir, 'trace.jsonl');
writeFileSync(file, trace.map((r) => JSON.stringify(r)).join('\n') + '\n');

/**
 * The server's records name no trace row, only its shape (prompt and output lengths): two rows of one
 * shape with different blocks, due within seconds of each other, could swap records when one is held
 * up, and each would be judged by the other's cache. An output one token longer makes every shape
 * unique within SHAPE_SPAN_MS of trace time (4 of 2,000 rows change; the blocks, which the cache
 * check reads, do not).
 */
function distinctShapes(rows: SynthRow[]): SynthRow[] {
  const SHAPE_SPAN_MS = 10_000;
  const out: SynthRow[] = [];
  for (const r of rows) {
    let o = r.output_length;
    const near = out.filter((x) => r.timestamp - x.timestamp < SHAPE_SPAN_MS && x.input_length === r.input_length);
    while (near.some((x) => x.output_length === o)) o++;
    out.push({ ...r, output_length: o });
  }
  return out;
}

/** The rows TRACE_WINDOW picks, as lib/workload/trace.ts windowOf does: offsets from the first arrival in [from, to). */
function slice(win: [number, number] | null): SynthRow[] {
  if (win === null) return trace;
  const t0 = trace[0].timestamp;
  return trace.filter((r) => r.timestamp - t0 >= win[0] * 1000 && r.timestamp - t0 < win[1] * 1000);
}

const quantile = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))];

/**
 * Each trace row's record on the server (null: it never arrived). Rows of one shape (prompt and
 * output lengths) take that shape's records in order, one each: the k-th due the k-th to arrive.
 * Nearest-in-time would give one record to two rows once lags pass half their spacing (a busy
 * machine, lags of a second), and a row another's cache.
 */
function match(rows: SynthRow[], truth: RequestRecord[], due: number[]): Array<RequestRecord | null> {
  const shape = (p: number, o: number | null) => `${p}:${o}`;
  const records = new Map<string, RequestRecord[]>();
  for (const r of truth) records.set(shape(r.promptTokens, r.maxNewTokens), [...(records.get(shape(r.promptTokens, r.maxNewTokens)) ?? []), r]);
  for (const list of records.values()) list.sort((x, y) => x.arrivalMs - y.arrivalMs);
  const out: Array<RequestRecord | null> = rows.map(() => null);
  const order = rows.map((_, i) => i).sort((x, y) => due[x] - due[y]);
  const next = new Map<string, number>();
  for (const i of order) {
    const k = shape(rows[i].input_length, rows[i].output_length);
    const list = records.get(k) ?? [];
    const j = next.get(k) ?? 0;
    // A request never arrives before its instant; one far later is another row's (this one failed).
    if (j < list.length && list[j].arrivalMs > due[i] - 2 && list[j].arrivalMs - due[i] < 5000) {
      out[i] = list[j];
      next.set(k, j + 1);
    }
  }
  return out;
}

/**
 * Tokens of row i's prompt that other requests share by the trace's hash ids: with one that had
 * finished when i arrived (its blocks surely cached), and with any admitted no later than i (the
 * most a cache could hold). Admission, not arrival: two requests read in the same instant are
 * queued in the order their bodies were parsed, so the later arrival may be admitted first.
 */
function sharedBefore(rows: SynthRow[], i: number, matched: Array<RequestRecord | null>): { finished: number; arrived: number } {
  const row: SynthRow = rows[i];
  const arrival = matched[i]?.arrivalMs ?? Infinity;
  const admitted = matched[i]?.queueExitMs ?? Infinity;
  let finished = 0;
  let arrived = 0;
  for (let j = 0; j < rows.length; j++) {
    const m = matched[j];
    if (j === i || m === null || (m.queueExitMs ?? Infinity) > admitted) continue;
    let n = 0;
    while (n < row.hash_ids.length && n < rows[j].hash_ids.length && row.hash_ids[n] === rows[j].hash_ids[n]) n++;
    const tokens = Math.min(n * BLOCK, rows[j].input_length, row.input_length);
    arrived = Math.max(arrived, tokens);
    if ((m.finishMs ?? Infinity) < arrival) finished = Math.max(finished, tokens);
  }
  return { finished, arrived };
}

/** Cached prefix tokens where the trace shares blocks with a finished earlier request, and never more than it shares. */
function checkSharing(rows: SynthRow[], matched: Array<RequestRecord | null>, variant: string): void {
  let sharing = 0;
  let cachedAsShared = 0;
  let overCached = 0;
  let freshCached = 0;
  for (let i = 0; i < rows.length; i++) {
    const m = matched[i];
    if (m === null) continue;
    const shared = sharedBefore(rows, i, matched);
    // The simulator caches whole 16-token blocks and never the prompt's last token.
    const cacheable = (tokens: number) => Math.min(Math.floor(tokens / SIM_BLOCK) * SIM_BLOCK, rows[i].input_length - 1);
    const expected = cacheable(shared.finished);
    if (m.cachedTokens > cacheable(shared.arrived)) overCached++;
    if (shared.arrived === 0 && m.cachedTokens > 0) freshCached++;
    if (shared.finished > 0) {
      sharing++;
      if (m.cachedTokens >= expected) cachedAsShared++;
    }
  }
  console.log(
    `# ${variant}: ${sharing} requests share blocks with a finished earlier one; ${cachedAsShared} had all ` +
      `of it cached; ${overCached} cached more than the trace shares`,
  );
  assert.equal(freshCached, 0, 'a prompt that shares nothing caches nothing');
  assert.equal(overCached, 0, 'nothing is cached beyond what the trace shares');
  assert.ok(sharing > rows.length / 2 && cachedAsShared >= 0.9 * sharing, `${cachedAsShared} of ${sharing} sharing requests had their shared prefix cached`);
}

/**
 * One deployment's replay judged by the server's own records: every row sent and nothing failed but
 * a rare lost keep-alive connection; each success one row of the trace; no request before its
 * instant; half within TRACE_MAX_LAG; the client's verdict agreeing with the server's record,
 * whichever it is; cached prefixes where the trace shares blocks. The A/B and the one-server replay
 * are held to the same.
 */
async function judgeReplay(
  rows: SynthRow[],
  rec: TraceRecord,
  { start, speed }: { start: number; speed: number },
  sim: RemoteSim,
  label: string,
): Promise<void> {
  // A lull longer than the server's keep-alive (5 s, uvicorn's default, which the simulator
  // keeps) lets k6 reuse a connection the server is closing: that request fails as
  // connection_lost before the server reads it. Rare, real, and counted; nothing else may fail.
  assert.equal(rec.requests_ok + rec.requests_failed, rows.length, `${label}: every request of the trace sent`);
  assert.ok(
    rec.requests_failed <= 2 && Object.keys(rec.errors_by_class).every((k) => k === 'connection_lost'),
    `${label}: ${JSON.stringify(rec.errors_by_class)}`,
  );
  assert.ok(rec.trace !== null && rec.trace.speed === speed && rec.trace.requests === rows.length);
  assert.ok(
    rec.notes.some((n) => /trace replay at .* schedule lag/.test(n)),
    rec.notes.join(' | '),
  );
  const truth = (await sim.requests()).filter((r) => r.promptTokens > BLOCK && r.status === 200);
  assert.equal(truth.length, rec.requests_ok, `${label}: the server saw every request that succeeded`);
  const due = rows.map((r) => start + (r.timestamp - rows[0].timestamp) / speed);
  const matched = match(rows, truth, due);
  assert.equal(matched.filter((m) => m !== null).length, truth.length, 'each record is one row of the trace');
  // arrivalMs may be late by the simulator's own intake lag (it was busy and read the socket
  // late): the request came in at some moment of [arrivalMs − intakeLagMs, arrivalMs]. The
  // lag charged to the client is the earliest of those, and never less than 0.
  const pairs = matched.flatMap((m, i) => (m === null ? [] : [{ m, due: due[i] }]));
  const rawLag = pairs.map((p) => p.m.arrivalMs - p.due);
  const lag = pairs.map((p) => Math.max(0, p.m.arrivalMs - p.m.intakeLagMs - p.due));
  const p50 = quantile(lag, 0.5);
  const p99 = quantile(lag, 0.99);
  const client = rec.trace.schedule_lag_ms as NonNullable<TraceRecord['trace']>['schedule_lag_ms'] & object;
  assert.equal(client.count, rows.length, 'a schedule lag per request');
  console.log(
    `# ${label}: arrival − due by the server's record p50 ${p50.toFixed(1)} ms, p95 ${quantile(lag, 0.95).toFixed(1)} ` +
      `ms, p99 ${p99.toFixed(1)} ms, max ${Math.max(...lag).toFixed(1)} ms (as the simulator read them: p99 ` +
      `${quantile(rawLag, 0.99).toFixed(1)} ms, earliest ${Math.min(...rawLag).toFixed(1)} ms); the client's ` +
      `lag p50 ${client.p50.toFixed(1)} ms, p99 ${client.p99.toFixed(1)} ms`,
  );
  assert.ok(Math.min(...rawLag) > -2, `no request arrives before its instant (${Math.min(...rawLag)} ms)`);
  // A schedule off by a constant fails here: some request arrives within TRACE_MAX_LAG / 5 of its
  // instant by the server's record, and, where the client kept up (it calls the replay faithful),
  // half of them within TRACE_MAX_LAG. Where it did not, the median is the machine's: in CI, on
  // two cores shared with another k6 run, it reached 71 ms in a burst while the earliest stayed
  // under 2 ms (the verdict checks below hold the tail either way).
  assert.ok(Math.min(...lag) <= MAX_LAG_MS / 5, `the earliest arrival within ${MAX_LAG_MS / 5} ms of its instant (${Math.min(...lag)} ms)`);
  if (rec.trace.faithful) {
    assert.ok(p50 <= MAX_LAG_MS, `half the requests arrive within ${MAX_LAG_MS} ms of their instant by the server's record (${p50} ms)`);
  }
  // The client's verdict must agree with the server's record. The client's lag is read when
  // k6 starts the request; putting it on the wire and the server reading it (on the same
  // 2 cores here) come after, so a replay the client calls faithful is held to 3 ×
  // TRACE_MAX_LAG at p99 by the server's record (24–87 ms seen at 4× on a quiet machine).
  // One it calls not faithful must be late by that record too: no false alarm.
  // The server's p95, not its p99: in the trace's bursts k6 and the simulator share two busy
  // cores, and the last percent of arrivals waits for a core after the client read its clock
  // (server p99 127 ms for a client p99 of 49 ms seen here). A client clock that measured the
  // wrong moment would move every percentile, the p95 too.
  assert.equal(rec.trace.faithful, client.p99 <= MAX_LAG_MS);
  const p95 = quantile(lag, 0.95);
  if (rec.trace.faithful) assert.ok(p95 <= 3 * MAX_LAG_MS, `p95 arrival lag ${p95} ms by the server's record within 3 × TRACE_MAX_LAG (p99 ${p99} ms)`);
  else {
    console.log(`# ${label}: the client marked this replay not faithful (client-limited: the machine was busy)`);
    assert.ok(p99 > MAX_LAG_MS, `a replay marked not faithful is late by the server's record too (${p99} ms)`);
    assert.ok(rec.notes.some((n) => /not faithful/.test(n)));
  }
  checkSharing(rows, matched, label);
}

/** window: TRACE_WINDOW in seconds of the trace (null: the whole trace). */
const all: Array<{ speed: number; transport: 'sse' | 'http'; window: [number, number] | null }> = LONG
  ? [
      { speed: 4, transport: 'sse', window: null },
      { speed: 4, transport: 'http', window: null },
      // The whole trace on its own clock: 4 minutes per deployment.
      { speed: 1, transport: 'sse', window: null },
    ]
  : [
      { speed: 4, transport: 'sse', window: [0, 80] },
      { speed: 4, transport: 'http', window: [0, 80] },
      // The trace's own clock, over a slice that starts mid-trace (a burst and a lull of it).
      { speed: 1, transport: 'sse', window: [100, 140] },
    ];
// TEST_SUBSET=v2 (.ci/run's k6 v2.2 phase): what can differ on v2 is the executor and its clock, not
// the transport: one replay, 4× over sse.
const cases = process.env.TEST_SUBSET === 'v2' ? all.slice(0, 1) : all;

for (const c of cases) {
  const rows = slice(c.window);
  const span = (rows[rows.length - 1].timestamp - rows[0].timestamp) / 1000;
  const windowEnv: Record<string, string> = c.window === null ? {} : { TRACE_WINDOW: `${c.window[0]}s-${c.window[1]}s` };
  for (const runner of RUNNERS) {
    const skip = runner.skip ?? (c.transport === 'sse' ? runner.sseSkip : null) ?? undefined;
    const what = c.window === null ? 'the whole trace' : `TRACE_WINDOW ${c.window[0]}s-${c.window[1]}s, ${rows.length} requests`;
    describe(`trace replay at ${c.speed}× over ${c.transport} (${what}) on ${runner.name}`, { skip }, () => {
      test("arrivals on schedule by the servers' own records; cached prefixes where the trace shares blocks", async () => {
        const sims = await Promise.all([
          spawnSim({ engine: 'sglang', spec: 'dflash', timeScale: 20, seed: 3 }),
          spawnSim({ engine: 'vllm', spec: 'mtp', timeScale: 20, seed: 4 }),
        ]);
        try {
          const run = await runner.run(
            'dflash-vs-mtp',
            {
              DFLASH_URL: sims[0].url,
              MTP_URL: sims[1].url,
              TRANSPORT: c.transport,
              TRACE: file,
              TRACE_SPEED: String(c.speed),
              TRACE_MAX_LAG: `${MAX_LAG_MS}ms`,
              GRACEFUL_STOP: '5s',
              REQUEST_TIMEOUT: '10s',
              WARMUP_REQUESTS: '0',
              ...windowEnv,
            },
            (2 * (span / c.speed) + 90) * 1000,
          );
          assert.equal(run.result.exitCode, 0, explain(run));
          const summary = JSON.parse(readFileSync(run.result.files.find((f) => f.endsWith('.summary.json')) as string, 'utf8')) as { records: TraceRecord[] };
          const clocks = new Map(
            [...run.result.stderr.matchAll(/▶ run \d+\/\d+: (\w+) trace_x\S+ \(replay clock starts at (\d+(?:\.\d+)?) ms/g)].map((m) => [m[1], Number(m[2])]),
          );
          for (const [k, variant] of (['dflash', 'mtp'] as const).entries()) {
            const rec = summary.records.find((r) => r.variant === variant) as TraceRecord;
            const start = clocks.get(variant);
            assert.ok(start !== undefined, `k6 logged ${variant}'s replay clock: ${run.result.stderr.slice(0, 2000)}`);
            await judgeReplay(rows, rec, { start, speed: c.speed }, sims[k], `${runner.name} ${c.transport} ${c.speed}×, ${variant}`);
          }
        } finally {
          await Promise.all(sims.map((s) => s.stop()));
        }
      });
    });
  }
}

// One server, one trace (arrival-rate with TRACE and TARGET_URL): the same replay against a single
// variant, its schedule lag and verdict reported, the arrival-rate line saying what completed. A
// 20 s slice at 2× (10 s of load); the A/B above checks the replay itself at length. Not 4×: the
// trace's first 20 s are its densest (324 requests, 65/s at 4×, twice the A/B slices' rate), and
// beside another k6 file in CI the client fell behind there (median lag 71 ms, or rows unsent).
const SINGLE_WINDOW: [number, number] = [0, 20];
const SINGLE_SPEED = 2;
for (const runner of process.env.TEST_SUBSET === 'v2' ? [] : RUNNERS) {
  const rows = slice(SINGLE_WINDOW);
  describe(
    `trace replay against one server (arrival-rate, TRACE_WINDOW 0s-20s at ${SINGLE_SPEED}×, ${rows.length} requests) on ${runner.name}`,
    { skip: runner.skip ?? runner.sseSkip ?? undefined },
    () => {
      test("every request of the slice sent on schedule by the server's record, the lag and verdict reported, prefixes shared", async () => {
        const sim = await spawnSim({ engine: 'sglang', spec: 'dflash', timeScale: 20, seed: 5 });
        try {
          const run = await runner.run(
            'arrival-rate',
            {
              TARGET_URL: sim.url,
              TRANSPORT: 'sse',
              TRACE: file,
              TRACE_SPEED: String(SINGLE_SPEED),
              TRACE_WINDOW: '0s-20s',
              TRACE_MAX_LAG: `${MAX_LAG_MS}ms`,
              GRACEFUL_STOP: '5s',
              REQUEST_TIMEOUT: '10s',
              WARMUP_REQUESTS: '0',
            },
            60_000,
          );
          assert.equal(run.result.exitCode, 0, explain(run));
          const summary = JSON.parse(readFileSync(run.result.files.find((f) => f.endsWith('.summary.json')) as string, 'utf8')) as {
            records: TraceRecord[];
            fall_behind: { text: string } | null;
          };
          const rec = summary.records[0];
          assert.equal(rec.variant, 'target');
          assert.ok(
            rec.notes.some((n) => new RegExp(`trace replay at ${SINGLE_SPEED}× speed: .* schedule lag`).test(n)),
            rec.notes.join(' | '),
          );
          assert.match(
            summary.fall_behind?.text ?? '',
            new RegExp(`^trace replay at ${SINGLE_SPEED}× speed: ${rec.requests_ok} of ${rows.length} requests completed`),
          );
          assert.match(run.result.stdout, new RegExp(`Arrival rate: trace replay at ${SINGLE_SPEED}× speed`));
          const start = Number(/▶ run \d+\/\d+: target trace_x\S+ \(replay clock starts at (\d+(?:\.\d+)?) ms/.exec(run.result.stderr)?.[1]);
          assert.ok(Number.isFinite(start), `k6 logged the replay clock: ${run.result.stderr.slice(0, 2000)}`);
          // Held to what the A/B is held to, faithful or not: a replay the client marks not
          // faithful must be late by the server's record too.
          await judgeReplay(rows, rec, { start, speed: SINGLE_SPEED }, sim, `${runner.name} one server`);
        } finally {
          await sim.stop();
        }
      });
    },
  );
}
