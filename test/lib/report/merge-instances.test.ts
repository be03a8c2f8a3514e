import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  checkSegments,
  evalThreshold,
  mergeInstanceResults,
  parseFraction,
  INSTANCE_RESULT_FORMAT,
  readInstanceResult,
  type InstanceResult,
} from '../../../lib/report/merge-instances';

function partial(over: Partial<InstanceResult> = {}): InstanceResult {
  return {
    format: INSTANCE_RESULT_FORMAT,
    benchmark: 'smoke',
    runId: 'run-1',
    segment: null,
    sequence: null,
    variables: { TARGET_URL: 'http://x:1', ISL: '64', SEED: '1', RUN_ID: 'run-1' },
    setup: { runId: 'run-1', variants: [], warnings: ['w1'], failures: [], segment: null, sequence: null },
    metrics: {
      llm_output_tokens: { type: 'counter', contains: 'default', values: { count: 100, rate: 10 } },
      llm_success: { type: 'rate', contains: 'default', values: { rate: 0.9, passes: 9, fails: 1 }, thresholds: { 'rate>=0.95': { ok: false } } },
      llm_e2e: { type: 'trend', contains: 'time', values: { count: 0, avg: 0, min: 0, max: 0 } },
    },
    testRunDurationMs: 10_000,
    ...over,
  };
}

test('segment bounds in every k6 spelling; segments must tile 0 to 1', () => {
  assert.deepEqual(parseFraction('2/4'), [1, 2]);
  assert.deepEqual(parseFraction('0.25'), [1, 4]);
  assert.deepEqual(parseFraction('75%'), [3, 4]);
  assert.throws(() => parseFraction('x'), /not an execution-segment bound/);
  checkSegments([
    { name: 'b', segment: '1/2:1' },
    { name: 'a', segment: '0:50%' },
  ]);
  assert.throws(
    () =>
      checkSegments([
        { name: 'a', segment: '0:1/2' },
        { name: 'b', segment: '1/4:1' },
      ]),
    /a and b overlap/,
  );
  assert.throws(
    () =>
      checkSegments([
        { name: 'a', segment: '0:1/4' },
        { name: 'b', segment: '1/2:1' },
      ]),
    /no partial covers 1\/4:1\/2: an instance is missing/,
  );
  assert.throws(() => checkSegments([{ name: 'a', segment: '0:1/2' }]), /no partial covers 1\/2:1/);
  assert.throws(
    () =>
      checkSegments([
        { name: 'a', segment: null },
        { name: 'b', segment: '1/2:1' },
      ]),
    /overlap/,
  );
});

test('thresholds are evaluated again on merged figures', () => {
  assert.equal(evalThreshold('rate>=0.95', { rate: 0.96 }), true);
  assert.equal(evalThreshold('p(99)<=2000', { 'p(99)': 2500 }), false);
  assert.equal(evalThreshold('count==0', { count: 0 }), true);
  assert.equal(evalThreshold('weird', { rate: 1 }), null);
});

test('counters and rates add exactly; warnings are united; the merged threshold outcome is recomputed', () => {
  const a = partial({ segment: '0:1/2', runId: 'run-1' });
  const b = partial({
    segment: '1/2:1',
    runId: 'run-2',
    variables: { ...a.variables, RUN_ID: 'run-2' },
    metrics: {
      ...a.metrics,
      llm_success: { type: 'rate', contains: 'default', values: { rate: 1, passes: 30, fails: 0 }, thresholds: { 'rate>=0.95': { ok: true } } },
    },
    setup: { ...a.setup!, warnings: ['w2'] },
  });
  const m = mergeInstanceResults([
    { name: 'a.json', partial: a },
    { name: 'b.json', partial: b },
  ]);
  assert.equal(m.runId, 'run');
  assert.equal(m.data.metrics.llm_output_tokens.values.count, 200);
  assert.deepEqual(m.data.metrics.llm_success.values, { passes: 39, fails: 1, rate: 39 / 40 });
  assert.deepEqual(m.data.metrics.llm_success.thresholds, { 'rate>=0.95': { ok: true } });
  assert.deepEqual(m.data.setup_data?.warnings, ['w1', 'w2']);
  assert.equal(m.data.setup_data?.segment, null, 'the merged run is whole');
  // A whole metric sampled by one instance alone (a once-per-run figure) is kept, from that one.
  const once = { type: 'trend' as const, contains: 'default', values: { count: 1, avg: 2, min: 2, max: 2 } };
  const m2 = mergeInstanceResults([
    { name: 'a.json', partial: { ...a, metrics: { ...a.metrics, llm_gpu_hour_cost: once } } },
    { name: 'b.json', partial: b },
  ]);
  assert.deepEqual(m2.data.metrics.llm_gpu_hour_cost?.values, once.values);
});

test('refuses, in one line naming the difference, partials that are not one test', () => {
  const a = partial({ segment: '0:1/2' });
  const other = (over: Partial<InstanceResult>) => [
    { name: 'a.json', partial: a },
    { name: 'b.json', partial: partial({ segment: '1/2:1', ...over }) },
  ];
  assert.throws(
    () => mergeInstanceResults(other({ variables: { ...a.variables, ISL: '128' } })),
    /a\.json and b\.json differ in ISL \('64' vs '128'\): runs of different plans or settings cannot be merged/,
  );
  assert.throws(() => mergeInstanceResults(other({ variables: { ...a.variables, SEED: '2' } })), /differ in SEED/);
  assert.throws(() => mergeInstanceResults(other({ benchmark: 'context-matrix' })), /a\.json is smoke but b\.json is context-matrix: not one test/);
  assert.throws(() => mergeInstanceResults(other({ segment: '1/4:1' })), /overlap/);
  const sub = { type: 'counter' as const, contains: 'default', values: { count: 0, rate: 0 } };
  assert.throws(
    () => mergeInstanceResults(other({ metrics: { ...a.metrics, 'llm_errors{scenario:x}': sub } })),
    /a\.json and b\.json declare different metrics: not the same plan/,
  );
  assert.throws(() => readInstanceResult('x.json', '{"format":"other"}'), /x\.json: not a k6-llm-bench partial result/);
  assert.throws(() => readInstanceResult('x.json', 'nope'), /x\.json: not JSON/);
});
