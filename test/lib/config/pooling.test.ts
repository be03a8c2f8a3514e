// The pooling benchmarks' configuration, plan and samples (embeddings, rerank): BATCH as the
// matrix axis in place of OSL, a dialect without the route refused before any load, the cells and
// the per-run keys a summary must keep, and what one reply records (never a token count it lacks).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { loadConfig } from '../../../lib/config/load';
import { benchmarkEnv } from '../../../lib/config/environment';
import { BENCHMARKS } from '../../../lib/benchmarks';
import { planOf } from '../../../lib/plan/matrix';
import { summaryThresholds, subKey } from '../../../lib/plan/summary-keys';
import { recordPooling } from '../../../lib/metrics/pooling-samples';
import type { PoolingResult } from '../../../lib/dialects/pooling';

const NOW = new Date('2026-12-07T17:00:00Z');
const cfgOf = (name: string, env: Record<string, string>) =>
  loadConfig(
    BENCHMARKS[name],
    benchmarkEnv({ TARGET_URL: 'http://127.0.0.1:8000', ...env }, () => '', BENCHMARKS[name].defaults, null),
    NOW,
  );

describe('pooling configuration and plan', () => {
  test('BATCH is the axis: ISL × BATCH × CONCURRENCY cells, ids i<isl>_b<batch>_c<n>', () => {
    const cfg = cfgOf('embeddings', { ISL: '64,256', BATCH: '1,16', CONCURRENCY: '2' });
    assert.deepEqual(cfg.pooling, { task: 'embeddings', batch: [1, 16] });
    const plan = planOf('vus', cfg);
    assert.deepEqual(
      plan.cells.map((c) => c.id),
      ['i64_b1_c2', 'i64_b16_c2', 'i256_b1_c2', 'i256_b16_c2'],
    );
    assert.ok(plan.cells.every((c) => c.osl === 0 && c.batch !== undefined));
    // The defaults: BATCH=1,8,32 at one concurrency.
    assert.deepEqual(cfgOf('rerank', {}).pooling, { task: 'rerank', batch: [1, 8, 32] });
    // A generation benchmark has no batch, and its cells none.
    const gen = cfgOf('context-matrix', { BATCH: '4' });
    assert.equal(gen.pooling, undefined);
    assert.ok(planOf('vus', gen).cells.every((c) => c.batch === undefined));
  });
  test('bad BATCH values and dialects without the route end in one message', () => {
    assert.throws(() => cfgOf('embeddings', { BATCH: '0' }), /BATCH='0' is not valid/);
    assert.throws(() => cfgOf('embeddings', { BATCH: '8,8' }), /BATCH='8,8'.*repeated/);
    assert.throws(() => cfgOf('embeddings', { BATCH: '5000' }), /BATCH='5000' is not valid/);
    assert.throws(
      () => cfgOf('embeddings', { DIALECT: 'anthropic' }),
      /DIALECT=anthropic: the servers that speak it have no embeddings route; use one of sglang, openai/,
    );
    assert.throws(() => cfgOf('rerank', { DIALECT: 'responses' }), /no rerank route/);
    assert.equal(cfgOf('embeddings', { DIALECT: 'responses' }).pooling?.task, 'embeddings');
  });
  test('the summary keeps each pooling run its items, dimension, usage replies and per-slice items and tokens; generation runs none', () => {
    const cfg = cfgOf('embeddings', { ISL: '64', BATCH: '4', CONCURRENCY: '1', SLICES: '3' });
    const plan = planOf('vus', cfg);
    const th = summaryThresholds(plan, cfg, false);
    const s = plan.runs[0].scenario;
    for (const m of ['poolItems', 'poolDimension', 'poolUsageReplies'] as const) assert.ok(subKey(m, s) in th, m);
    for (let k = 0; k < 3; k++) assert.ok(subKey('windowItems', s, { slice: String(k) }) in th && subKey('windowPoolTokens', s, { slice: String(k) }) in th);
    const gen = cfgOf('context-matrix', { ISL: '64', OSL: '8', CONCURRENCY: '1' });
    const genTh = summaryThresholds(planOf('vus', gen), gen, false);
    assert.ok(!Object.keys(genTh).some((k) => k.includes('llm_pool_') || k.includes('llm_window_pool_')));
  });
});

describe('one pooling reply as samples', () => {
  const window = { cellStartMs: 0, sliceMs: 1000, slices: 3, trackLastEnd: false, latencyFromMs: -Infinity };
  const slo = { ttftP99Ms: null, ttftOf: 'first' as const, itlP99Ms: null, e2eP99Ms: null };
  const run = (r: PoolingResult, endMs = 1500) => {
    const got: Array<[string, number, string]> = [];
    recordPooling(r, 1000, endMs, { window, slo, add: (m, v, tags) => got.push([m, v, tags?.slice ?? tags?.error_class ?? '']) });
    return got;
  };
  test('a success: items, dimension, the server tokens, in the slice it ended in; e2e as any request', () => {
    const got = run({ ok: true, status: 200, items: 8, dimension: 384, promptTokens: 512, error: null });
    for (const want of [
      ['success', 1, ''],
      ['e2e', 500, ''],
      ['inputTokens', 512, ''],
      ['poolItems', 8, ''],
      ['poolDimension', 384, ''],
      ['poolUsageReplies', 1, ''],
      ['windowItems', 8, '1'],
      ['windowPoolTokens', 512, '1'],
      ['windowRequests', 1, '1'],
    ])
      assert.ok(
        got.some((g) => g[0] === want[0] && g[1] === want[1] && g[2] === want[2]),
        `${want.join(' ')} in ${JSON.stringify(got)}`,
      );
    assert.ok(!got.some((g) => g[0] === 'outputTokens' || g[0] === 'windowTokens'), 'a pooling request generates nothing');
  });
  test('no usage: items counted, tokens not (never a guess); a failure: its class, no items', () => {
    const noUsage = run({ ok: true, status: 200, items: 2, dimension: 8, promptTokens: null, error: null });
    assert.ok(noUsage.some((g) => g[0] === 'poolItems' && g[1] === 2));
    assert.ok(!noUsage.some((g) => ['inputTokens', 'poolUsageReplies', 'windowPoolTokens'].includes(g[0])));
    const failed = run({
      ok: false,
      status: 501,
      items: 0,
      dimension: null,
      promptTokens: null,
      error: { class: 'wrong_dialect', message: 'start it with --embeddings' },
    });
    assert.deepEqual(failed, [
      ['success', 0, ''],
      ['errors', 1, 'wrong_dialect'],
    ]);
    // Ended after the last slice: counted, in no slice.
    assert.ok(!run({ ok: true, status: 200, items: 1, dimension: 8, promptTokens: 3, error: null }, 5000).some((g) => g[0] === 'windowItems'));
  });
});
