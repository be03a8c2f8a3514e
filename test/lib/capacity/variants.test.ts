import { test } from 'node:test';
import assert from 'node:assert/strict';
import { capacitySlots, stepEnv } from '../../../lib/capacity/step-variants';
import { ConfigError } from '../../../lib/config/parse';
import { settings } from './fixtures';

const ENV = {
  DFLASH_URL: 'http://a:1',
  DFLASH_API_KEY: 'secret-a',
  MTP_URL: 'http://b:2',
  MTP_API_KEY: 'secret-b',
  MTP_DIALECT: 'openai',
  ISL: '512',
  CAPACITY_STEP: '10s',
  SLO_ATTAINMENT: '0.9',
  SLO_E2E_P99: '1s',
};

test('A/B slots when their URLs are set; one of the two alone is an error naming the other', () => {
  assert.deepEqual(
    capacitySlots(ENV, 'context-matrix').map((s) => s.variant),
    ['dflash', 'mtp'],
  );
  assert.deepEqual(
    capacitySlots({ TARGET_URL: 'http://x:1' }, 'context-matrix').map((s) => s.variant),
    ['target'],
  );
  assert.throws(
    () => capacitySlots({ DFLASH_URL: 'http://a:1' }, 'context-matrix'),
    (e: Error) => e instanceof ConfigError && /MTP_URL is not set/.test(e.message),
  );
});

test("a step's variables: its own target's as TARGET_URL & co., no other target's secret, the load and run settings", () => {
  const s = settings({ SLO_E2E_P99: '1s' });
  const [a, b] = capacitySlots(ENV, 'context-matrix');
  const ea = stepEnv(s, ENV, { slot: a, load: 8, durationMs: 10_000, first: true, runId: 'dflash-1', resultsDir: '/r' });
  assert.equal(ea.TARGET_URL, 'http://a:1');
  assert.equal(ea.API_KEY, 'secret-a');
  assert.equal(ea.CONCURRENCY, '8');
  assert.equal(ea.DURATION, '10000ms');
  assert.equal(ea.PARTIAL, 'true');
  assert.equal(ea.LATENCY_WINDOW, 'steady');
  assert.equal(ea.WARMUP_REQUESTS, undefined);
  assert.equal(ea.ITL_SAMPLES, 'every', 'a step of 10 min or more would otherwise count ITL in buckets, which the search cannot judge');
  assert.ok(!JSON.stringify(ea).includes('secret-b'), 'the other variant’s key must not reach this run');
  assert.ok(!('CAPACITY_STEP' in ea) && !('SLO_ATTAINMENT' in ea) && !('DFLASH_URL' in ea) && !('MTP_URL' in ea));
  const eb = stepEnv(s, ENV, { slot: b, load: 4, durationMs: 5000, first: false, runId: 'mtp-2', resultsDir: '/r' });
  assert.equal(eb.DIALECT, 'openai');
  assert.equal(eb.API_KEY, 'secret-b');
  assert.equal(eb.WARMUP_REQUESTS, '0');
  assert.ok(!JSON.stringify(eb).includes('secret-a'));
  const open = settings({ SLO_E2E_P99: '1s', CAPACITY_LOOP: 'open' });
  assert.equal(stepEnv(open, ENV, { slot: a, load: 2.5, durationMs: 5000, first: true, runId: 'x', resultsDir: '/r' }).RATE, '2.5');
});

test("a step's GPU exporter: the variant's own <PREFIX>_GPU_METRICS_URL as GPU_METRICS_URL, else the shared one", () => {
  const s = settings({ SLO_E2E_P99: '1s' });
  const [a, b] = capacitySlots(ENV, 'context-matrix');
  const env = { ...ENV, GPU_METRICS_URL: 'http://gpu:9400/metrics', DFLASH_GPU_METRICS_URL: 'http://gpu-a:9400/metrics' };
  const step = (slot: typeof a) => stepEnv(s, env, { slot, load: 8, durationMs: 10_000, first: true, runId: 'x', resultsDir: '/r' });
  assert.equal(step(a).GPU_METRICS_URL, 'http://gpu-a:9400/metrics');
  assert.equal(step(b).GPU_METRICS_URL, 'http://gpu:9400/metrics');
  assert.equal(stepEnv(s, ENV, { slot: a, load: 8, durationMs: 10_000, first: true, runId: 'x', resultsDir: '/r' }).GPU_METRICS_URL, undefined);
});
