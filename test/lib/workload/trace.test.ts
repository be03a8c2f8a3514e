// Trace files read, sliced and turned into prompts: shared exactly where hash_ids are shared,
// errors that name the file and line, and TRACE's configuration and plan.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { parseTrace, traceShape, traceUnits, tokenUnit, windowOf, wordUnit, dueMs, traceLogLine, type BlockSpec } from '../../../lib/workload/trace';
import { loadConfig } from '../../../lib/config/load';
import { BENCHMARKS } from '../../../lib/benchmarks';
import { planOf } from '../../../lib/plan/matrix';
import { k6Options } from '../../../lib/plan/k6-options';
import { synthTrace } from '../../../scripts/make-trace';

const NOW = new Date('2026-12-04T03:00:00Z');
const AB = { DFLASH_URL: 'http://127.0.0.1:30001', MTP_URL: 'http://127.0.0.1:30002' };
const spec: BlockSpec = { seed: 1, blockSize: 16, idFloor: 1000, vocabSize: 32000 };

const jsonl = [
  '{"timestamp": 100, "input_length": 40, "output_length": 8, "hash_ids": [1, 2, 3], "session_id": "a"}',
  '{"timestamp": 50, "input_length": 20, "output_length": 4, "hash_ids": [1, 9]}',
  '',
  '{"timestamp": 700, "input_length": 48, "output_length": 16, "hash_ids": [1, 2, 3, 4], "session_id": "a"}',
].join('\n');

describe('parseTrace', () => {
  test('Mooncake JSONL: sorted by time, sessions and hash ids kept', () => {
    const t = parseTrace(jsonl, 'm.jsonl');
    assert.equal(t.format, 'jsonl');
    assert.deepEqual(
      t.entries.map((e) => [e.atMs, e.input, e.output, e.session]),
      [
        [50, 20, 4, null],
        [100, 40, 8, 'a'],
        [700, 48, 16, 'a'],
      ],
    );
    assert.deepEqual(t.entries[1].hashIds, [1, 2, 3]);
    const s = traceShape(t);
    assert.deepEqual(
      { requests: s.requests, spanMs: s.spanMs, sessions: s.sessions, sharing: s.sharing },
      { requests: 3, spanMs: 650, sessions: 1, sharing: 2 },
    );
    assert.match(
      traceLogLine('m.jsonl', s, { speed: 2, vus: 64, window: null }),
      /3 requests over 0\.7 s .* 1 sessions, 2 sharing a prefix block .* replayed at 2× \(0\.3 s\) with at most 64 in flight/,
    );
  });
  test('CSV with or without its header', () => {
    const withHead = parseTrace('timestamp,input_tokens,output_tokens\n0,100,20\n1500,200,30\n', 'a.csv');
    assert.equal(withHead.format, 'csv');
    assert.deepEqual(
      withHead.entries.map((e) => [e.atMs, e.input, e.output, e.hashIds]),
      [
        [0, 100, 20, null],
        [1500, 200, 30, null],
      ],
    );
    assert.equal(parseTrace('0,100,20\n', 'b.csv').entries.length, 1);
  });
  test('a bad line names file, line and field', () => {
    assert.throws(
      () => parseTrace('{"timestamp": 0, "input_length": 10, "output_length": 5}\n{"timestamp": 5, "input_length": 0, "output_length": 5}', 't.jsonl'),
      /TRACE=t\.jsonl:2: input_length must be a whole number of tokens, 1 or more \(got 0\)/,
    );
    assert.throws(() => parseTrace('{"timestamp": -1, "input_length": 10, "output_length": 5}', 't.jsonl'), /TRACE=t\.jsonl:1: timestamp must be a time in ms/);
    assert.throws(() => parseTrace('{"timestamp": 0, "input_length": 10, "output_length": 5, "hash_ids": [1, "x"]}', 't.jsonl'), /:1: hash_ids must be a list/);
    assert.throws(() => parseTrace('{"timestamp": 0, "input_length": 10, "output_length": 5}\n{oops', 't.jsonl'), /TRACE=t\.jsonl:2: not a JSON object/);
    assert.throws(
      () => parseTrace('timestamp,input_tokens,output_tokens\n0,100\n', 'c.csv'),
      /TRACE=c\.csv:2: a CSV trace line is timestamp,input_tokens,output_tokens/,
    );
    assert.throws(() => parseTrace('timestamp,prompt\n', 'c.csv'), /c\.csv:1: a CSV trace's header/);
    assert.throws(() => parseTrace('\n\n', 'e.jsonl'), /TRACE=e\.jsonl: the file is empty/);
  });
});

describe('windowOf', () => {
  test('picks the slice by offset from the first arrival and starts it at its first request', () => {
    const t = parseTrace(jsonl, 'm.jsonl');
    assert.deepEqual(
      windowOf(t, { fromMs: 40, toMs: 700 }).entries.map((e) => e.atMs),
      [0, 600],
    );
    assert.deepEqual(
      windowOf(t, { fromMs: 40, toMs: 650 }).entries.map((e) => e.atMs),
      [0],
      'the end is outside',
    );
    assert.deepEqual(
      windowOf(t, null).entries.map((e) => e.atMs),
      [0, 50, 650],
    );
    assert.throws(
      () => windowOf(t, { fromMs: 1000, toMs: 2000 }),
      /TRACE_WINDOW: no request of m\.jsonl falls in 1000 ms – 2000 ms \(the trace spans 650 ms\)/,
    );
  });
  test('due instants follow the speed', () => {
    const e = windowOf(parseTrace(jsonl, 'm.jsonl'), null).entries;
    assert.deepEqual(
      e.map((x) => dueMs(x, 4)),
      [0, 12.5, 162.5],
    );
  });
});

describe('prompts from hash ids', () => {
  const t = parseTrace(jsonl, 'm.jsonl').entries; // [1,9] 20 tok, [1,2,3] 40 tok, [1,2,3,4] 48 tok
  const ids = (i: number) => traceUnits(t[i], i, spec, new Map(), tokenUnit(spec));
  test('exact lengths; the same block wherever its hash id appears, and nothing else shared', () => {
    const [a, b, c] = [ids(0), ids(1), ids(2)];
    assert.deepEqual([a.length, b.length, c.length], [20, 40, 48]);
    assert.deepEqual(a.slice(0, 16), b.slice(0, 16), 'block 1 is shared');
    assert.notDeepEqual(a.slice(16, 20), b.slice(16, 20), 'block 9 is not block 2');
    assert.deepEqual(c.slice(0, 40), b, 'a later turn repeats the earlier prompt: blocks 1, 2, 3');
    assert.ok(a.every((x) => x >= 1000 && x < 32000));
  });
  test('a prompt without hash ids shares nothing; the cache does not change the prompt', () => {
    const e = { atMs: 0, input: 30, output: 1, hashIds: null, session: null };
    assert.notDeepEqual(traceUnits(e, 0, spec, new Map(), tokenUnit(spec)).slice(0, 16), traceUnits(e, 1, spec, new Map(), tokenUnit(spec)).slice(0, 16));
    const cache = new Map<number, number[]>();
    traceUnits(t[1], 1, spec, cache, tokenUnit(spec));
    assert.deepEqual(traceUnits(t[2], 2, spec, cache, tokenUnit(spec)), ids(2));
  });
  test('words for chat prompts, shared the same way', () => {
    const w = (i: number) => traceUnits(t[i], i, spec, new Map(), wordUnit);
    assert.deepEqual(w(2).slice(0, 40), w(1));
    assert.ok(w(0).every((x) => typeof x === 'string' && x.length > 0));
  });
});

describe('TRACE configuration and plan', () => {
  const shape = traceShape(parseTrace(jsonl, 'm.jsonl'));
  test('defaults, and one trace cell per deployment whose load time is the span over the speed', () => {
    const cfg = loadConfig(BENCHMARKS['dflash-vs-mtp'], { ...AB, TRACE: 't.jsonl', TRACE_SPEED: '0.5' }, NOW);
    assert.deepEqual(cfg.trace, { spec: 't.jsonl', speed: 0.5, window: null, vus: 64, blockSize: 512, maxLagMs: 50 });
    const plan = planOf('vus', cfg, shape);
    assert.deepEqual(
      plan.cells.map((c) => [c.id, c.isl, c.osl]),
      [['trace_x0p5', 36, 9]],
    );
    assert.deepEqual(
      plan.runs.map((r) => [r.scenario, r.durationMs, r.vus]),
      [
        // Three requests: three VUs, not TRACE_VUS's 64 (k6 refuses more VUs than iterations).
        ['dflash_trace_x0p5', 2300, 3],
        ['mtp_trace_x0p5', 2300, 3],
      ],
    );
    const sc = (k6Options(plan, cfg).scenarios as Record<string, Record<string, unknown>>).mtp_trace_x0p5;
    assert.deepEqual(
      [sc.executor, sc.vus, sc.iterations, sc.maxDuration, (sc.tags as Record<string, string>).trace_speed],
      ['shared-iterations', 3, 3, '2300ms', '0.5'],
    );
    assert.throws(() => planOf('vus', cfg, null), /TRACE=t\.jsonl: the trace's shape is not in this test's record/);
  });
  test('windows and bad values end in one line', () => {
    assert.deepEqual(
      loadConfig(
        BENCHMARKS.compare,
        { NONE_URL: 'http://a:1', MTP_URL: 'http://b:1', DFLASH_URL: 'http://c:1', DDTREE_URL: 'http://d:1', TRACE: 't', TRACE_WINDOW: '60s-3m' },
        NOW,
      ).trace?.window,
      { fromMs: 60_000, toMs: 180_000 },
    );
    assert.throws(
      () => loadConfig(BENCHMARKS['dflash-vs-mtp'], { ...AB, TRACE: 't', TRACE_WINDOW: '3m-60s' }, NOW),
      /TRACE_WINDOW=3m-60s: the end must come after the start/,
    );
    assert.throws(() => loadConfig(BENCHMARKS['dflash-vs-mtp'], { ...AB, TRACE: 't', TRACE_WINDOW: 'soon' }, NOW), /TRACE_WINDOW='soon' is not valid/);
    assert.throws(() => loadConfig(BENCHMARKS['dflash-vs-mtp'], { ...AB, TRACE: 't', TRACE_SPEED: '0' }, NOW), /TRACE_SPEED/);
    assert.throws(() => loadConfig(BENCHMARKS['dflash-vs-mtp'], { ...AB, TRACE_SPEED: '2' }, NOW), /TRACE_SPEED needs TRACE/);
    assert.throws(
      () => loadConfig(BENCHMARKS['dflash-vs-mtp'], { ...AB, TRACE: 't', DATASET: 'builtin' }, NOW),
      /TRACE and DATASET together are not supported/,
    );
    assert.throws(() => loadConfig(BENCHMARKS['dflash-vs-mtp'], { ...AB, TRACE: 't', REQUESTS: '10' }, NOW), /REQUESTS does not apply to a trace replay/);
    assert.throws(
      () => loadConfig(BENCHMARKS['concurrency-ramp'], { TARGET_URL: 'http://a:1', TRACE: 't' }, NOW),
      /TRACE applies to compare, dflash-vs-mtp and arrival-rate .*not to concurrency-ramp/,
    );
    // One server: arrival-rate takes TRACE with TARGET_URL.
    assert.equal(loadConfig(BENCHMARKS['arrival-rate'], { TARGET_URL: 'http://a:1', TRACE: 't', TRACE_SPEED: '2' }, NOW).trace?.speed, 2);
  });
});

describe('scripts/make-trace.ts', () => {
  const rows = synthTrace({ requests: 3000, spanMs: 300_000, seed: 5, blockSize: 512 });
  test('the span asked for, bursts and lulls, shared system prompts and multi-turn sessions', () => {
    assert.equal(rows.length, 3000);
    assert.equal(rows[0].timestamp, 0);
    assert.equal(rows[rows.length - 1].timestamp, 300_000);
    assert.ok(
      rows.every((r, i) => i === 0 || r.timestamp >= rows[i - 1].timestamp),
      'sorted',
    );
    // Arrivals per 5 s: the busiest windows hold several times the quietest.
    const perWindow = new Array<number>(60).fill(0);
    for (const r of rows) perWindow[Math.min(59, Math.floor(r.timestamp / 5000))]++;
    const sorted = [...perWindow].sort((a, b) => a - b);
    assert.ok(sorted[54] > 3 * sorted[5], `bursts and lulls: ${sorted[5]} vs ${sorted[54]} arrivals per 5 s`);
    const t = parseTrace(rows.map((r) => JSON.stringify(r)).join('\n'), 'synth');
    const s = traceShape(t);
    assert.ok(s.sharing > 0.9 * rows.length, `${s.sharing} share a leading block`);
    const turns = new Map<string, number>();
    for (const r of rows) turns.set(r.session_id, (turns.get(r.session_id) ?? 0) + 1);
    assert.ok([...turns.values()].filter((n) => n >= 2).length > 200, 'many sessions have later turns');
    // A later turn extends its session's previous prompt block for block.
    const last = new Map<string, number[]>();
    for (const r of rows) {
      const prev = last.get(r.session_id);
      if (prev) assert.deepEqual(r.hash_ids.slice(0, prev.length), prev);
      last.set(r.session_id, r.hash_ids);
      assert.ok(
        r.input_length > (r.hash_ids.length - 1) * 512 && r.input_length <= r.hash_ids.length * 512,
        'hash ids cover the prompt, the last block in part',
      );
    }
    assert.deepEqual(
      synthTrace({ requests: 50, spanMs: 1000, seed: 5, blockSize: 512 }),
      synthTrace({ requests: 50, spanMs: 1000, seed: 5, blockSize: 512 }),
      'seeded',
    );
  });
});
