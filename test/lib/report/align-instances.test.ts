// The merge lays the instances' per-slice figures on one clock: each instance's start on the server's
// clock is its own start plus its measured offset (lib/report/align-instances.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mergeInstanceResults, INSTANCE_RESULT_FORMAT, type InstanceResult } from '../../../lib/report/merge-instances';
import type { InstanceClock } from '../../../lib/report/align-instances';
import type { SummaryMetrics } from '../../../lib/report/figures/run-figures';

const T = 1_765_000_000_000;
const SLICE_MS = 1000;
const key = (s: number) => `llm_window_output_tokens{scenario:a_c1,slice:${s}}`;

/** Tokens per slice, with every slice of the run declared (as the plan's thresholds make k6 keep them). */
function slices(tokens: number[]): SummaryMetrics {
  const m: SummaryMetrics = { llm_requests: { type: 'counter', contains: 'default', values: { count: 10, rate: 1 } } };
  tokens.forEach((n, s) => (m[key(s)] = { type: 'counter', contains: 'default', values: { count: n, rate: 0 } }));
  return m;
}

function part(segment: string, runsStartMs: number, offsetMs: number | null, tokens: number[]): InstanceResult {
  const instance: InstanceClock = {
    name: `host ${segment}`,
    server: '10.0.0.2:8000',
    clock: offsetMs === null ? null : { offsetMs, roundTripMs: 0.4, boundMs: 1.2, method: 'time-route', exchanges: 8 },
    notMeasured: offsetMs === null ? 'the server did not answer GET /sim/clock' : null,
    sliceMs: SLICE_MS,
  };
  return {
    format: INSTANCE_RESULT_FORMAT,
    benchmark: 'smoke',
    runId: `run-${segment}`,
    segment,
    sequence: '0,1/2,1',
    variables: { SEED: '1' },
    setup: { runId: 'run', variants: [], warnings: [], failures: [], segment, sequence: '0,1/2,1', runsStartMs, instance },
    metrics: slices(tokens),
    testRunDurationMs: 6000,
  };
}

const merged = (a: InstanceResult, b: InstanceResult) =>
  mergeInstanceResults([
    { name: 'a', partial: a },
    { name: 'b', partial: b },
  ]);
const tokensOf = (m: SummaryMetrics) => [0, 1, 2, 3, 4, 5].map((s) => m[key(s)].values.count);

test('a host whose clock is 3 s behind, started with the lead: its slices stay where they are, its offset is reported', () => {
  const m = merged(part('0:1/2', T, 0, [1, 2, 3, 4, 5, 6]), part('1/2:1', T - 3000, 3000, [10, 20, 30, 40, 50, 60]));
  assert.deepEqual(tokensOf(m.data.metrics), [11, 22, 33, 44, 55, 66]);
  assert.equal(m.data.metrics.llm_requests.values.count, 20);
  const rows = m.data.setup_data?.instances;
  assert.ok(rows);
  assert.deepEqual(
    rows.map((r) => [r.host, r.clock_offset_ms, r.round_trip_ms, r.start_after_lead_ms, r.shift_slices]),
    [
      ['host 0:1/2', 0, 0.4, 0, 0],
      ['host 1/2:1', 3000, 0.4, 0, 0],
    ],
  );
  assert.equal(m.data.setup_data?.instance, undefined);
});

test('the same host started 2 s after the lead: its slices land 2 slices later, the last two outside the window', () => {
  const m = merged(part('0:1/2', T, 0, [1, 2, 3, 4, 5, 6]), part('1/2:1', T + 2000 - 3000, 3000, [10, 20, 30, 40, 50, 60]));
  assert.deepEqual(tokensOf(m.data.metrics), [1, 2, 13, 24, 35, 46]);
  assert.equal(m.data.setup_data?.instances?.[1].shift_slices, 2);
  assert.ok(m.data.setup_data?.warnings?.some((w) => /moved 2 slice\(s\), and 2 of them fell outside/.test(w)));
  // Without its offset the same instance would have seemed to start 1 s before the lead: the
  // offset is what puts it right (a merge that ignored it would move the slices by −1).
});

test('an instance that did not measure its clock: added as it is, and said so', () => {
  const m = merged(part('0:1/2', T, 0, [1, 2, 3, 4, 5, 6]), part('1/2:1', T + 5000, null, [10, 20, 30, 40, 50, 60]));
  assert.deepEqual(tokensOf(m.data.metrics), [11, 22, 33, 44, 55, 66]);
  const row = m.data.setup_data?.instances?.[1];
  assert.equal(row?.clock_offset_ms, null);
  assert.match(row?.not_measured ?? '', /did not answer/);
  assert.ok(m.data.setup_data?.warnings?.some((w) => /not aligned.*did not answer/.test(w)));
});
