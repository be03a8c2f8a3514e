// The prefix cache, pure: each engine profile's counters and reset route, the window's hit-rate
// maths, which runs CACHE_RESET resets and where (setup or a scenario in the gap), the reset's
// decisions against a fake server, and the config error.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BENCHMARKS } from '../../../lib/benchmarks';
import { loadConfig } from '../../../lib/config/load';
import { engineById } from '../../../lib/engines/index';
import type { HttpPort, HttpReply } from '../../../lib/http-port';
import { resetDue, resetInSetup, resetScenario } from '../../../lib/plan/cache-reset-plan';
import { k6Options } from '../../../lib/plan/k6-options';
import { buildCells, buildPlan } from '../../../lib/plan/matrix';
import { hitRateOf, resetStateOf } from '../../../lib/report/sections/prefix-cache-section';
import { resetCache, slotIds } from '../../../lib/server-metrics/cache-reset';
import { snapshot, windowFigures } from '../../../lib/server-metrics/window';

test('engine profiles: prefix-cache counters and reset routes as data', () => {
  const v = engineById('vllm')?.prefixCache;
  assert.deepEqual(v?.counters, { hits: 'vllm:prefix_cache_hits_total', queries: ['vllm:prefix_cache_queries_total'] });
  assert.equal(v?.reset?.path, '/reset_prefix_cache');
  assert.deepEqual(v?.reset?.busy, [409]);
  const s = engineById('sglang')?.prefixCache;
  assert.deepEqual(s?.counters, { hits: 'sglang:cached_tokens_total', queries: ['sglang:prompt_tokens_total'] });
  assert.equal(s?.hitRateGauge, 'sglang:cache_hit_rate');
  assert.equal(s?.reset?.path, '/flush_cache');
  const l = engineById('llamacpp')?.prefixCache;
  assert.deepEqual(l?.counters?.queries, ['llamacpp:prompt_tokens_total', 'llamacpp:prompt_tokens_cached_total']);
  assert.equal(l?.reset?.slots, '/slots');
  assert.equal(l?.reset?.path, '/slots/{slot}?action=erase');
  assert.equal(engineById('tgi')?.prefixCache, undefined);
});

const NOW = new Date('2026-12-05T16:00:00Z');
const page = (lines: string[]) => lines.join('\n') + '\n';

test('window: hits over queries from the counter deltas, label sets summed; llama.cpp looks up computed + cached', () => {
  const sg = (cachedDevice: number, cachedHost: number, prompt: number) =>
    page([
      'sglang:generation_tokens_total{model_name="m"} 1',
      `sglang:cached_tokens_total{model_name="m",cache_source="device"} ${cachedDevice}`,
      `sglang:cached_tokens_total{model_name="m",cache_source="host"} ${cachedHost}`,
      `sglang:prompt_tokens_total{model_name="m"} ${prompt}`,
    ]);
  const f = windowFigures(snapshot('sglang', sg(100, 10, 1000), 0), snapshot('sglang', sg(400, 30, 2000), 10_000));
  assert.deepEqual(f.prefixCache, { hitTokens: 320, queryTokens: 1000 });
  const ll = (computed: number, cached: number) =>
    page(['llamacpp:tokens_predicted_total 1', `llamacpp:prompt_tokens_total ${computed}`, `llamacpp:prompt_tokens_cached_total ${cached}`]);
  const g = windowFigures(snapshot('llamacpp', ll(100, 0), 0), snapshot('llamacpp', ll(164, 192), 10_000));
  assert.deepEqual(g.prefixCache, { hitTokens: 192, queryTokens: 256 });
  // A page without the counters (an older server): none, not zero.
  const old = page(['vllm:generation_tokens_total{model_name="m"} 5']);
  assert.equal(windowFigures(snapshot('vllm', old, 0), snapshot('vllm', old, 10_000)).prefixCache, null);
});

test('hit rate: server counters first, the replies’ counts else, and why not otherwise (never 0 when unknown)', () => {
  assert.deepEqual(hitRateOf({ hits: 25, queries: 100 }, { cached: 1, queried: 2 }, true), {
    rate: 0.25,
    source: 'server-counters',
    hitTokens: 25,
    queryTokens: 100,
    notMeasured: null,
  });
  assert.equal(hitRateOf({ hits: 0, queries: 100 }, { cached: 0, queried: 0 }, true).rate, 0);
  assert.deepEqual(hitRateOf(null, { cached: 30, queried: 120 }, true), { rate: 0.25, source: 'requests', hitTokens: 30, queryTokens: 120, notMeasured: null });
  // No lookups in the window (llama.cpp counts at each request's end): the replies' counts.
  assert.equal(hitRateOf({ hits: 0, queries: 0 }, { cached: 5, queried: 10 }, true).source, 'requests');
  const none = hitRateOf(null, { cached: 0, queried: 0 }, false);
  assert.equal(none.rate, null);
  assert.match(none.notMeasured ?? '', /not scraped and its replies carry no cached-token counts/);
});

const plan = (variants: string[]) =>
  buildPlan(
    { durationMs: 2000, gracefulStopMs: 500, slices: 1, requests: null, maxVus: 8 },
    buildCells(
      [64],
      [8],
      [
        { kind: 'vus', vus: 1 },
        { kind: 'vus', vus: 2 },
      ],
    ),
    variants,
  );

test('CACHE_RESET: every run (cell), each variant first run (variant), none (never); the first in setup, the others in the gap', () => {
  const p = plan(['a', 'b']);
  assert.deepEqual(
    resetDue(p, 'cell').map((r) => r.scenario),
    p.runs.map((r) => r.scenario),
  );
  // Runs: a c1, b c1, b c2, a c2 (the Latin square): each variant's first is its c1.
  assert.deepEqual(
    resetDue(p, 'variant').map((r) => r.scenario),
    ['a_i64_o8_c1', 'b_i64_o8_c1'],
  );
  assert.deepEqual(resetDue(p, 'never'), []);
  assert.deepEqual(p.runs.map(resetInSetup), [true, false, false, false]);
  const cfg = { ...loadConfig(BENCHMARKS['dflash-vs-mtp'], { DFLASH_URL: 'http://a:1', MTP_URL: 'http://b:1', CACHE_RESET: 'variant' }, NOW), variants: [] };
  const sc = k6Options(p, cfg).scenarios as Record<string, { startTime: string; exec: string }>;
  const resets = Object.keys(sc).filter((k) => k.startsWith('reset_'));
  assert.deepEqual(resets, [resetScenario(p.runs[1])]);
  const b = p.runs[1];
  // After the previous run's graceful stop, before this run's load.
  assert.equal(sc[resets[0]].startTime, `${b.startMs - 1000}ms`);
  assert.ok(b.startMs - 1000 >= p.runs[0].startMs + p.runs[0].durationMs + p.runs[0].gracefulStopMs);
  assert.equal(sc[resets[0]].exec, 'probe');
});

test('CACHE_RESET: the default is cell; a bad value is one config error', () => {
  assert.equal(loadConfig(BENCHMARKS.smoke, { TARGET_URL: 'http://a:1' }, NOW).cacheReset, 'cell');
  assert.throws(() => loadConfig(BENCHMARKS.smoke, { TARGET_URL: 'http://a:1', CACHE_RESET: 'sometimes' }, NOW), /CACHE_RESET.*cell.*variant.*never/);
});

const reply = (status: number, body = ''): HttpReply => ({ status, body, contentType: '', error: status ? '' : 'refused', errorCode: 0 });

function fake(answers: (method: string, url: string) => HttpReply): HttpPort & { clock: number; calls: string[] } {
  const p = {
    clock: 0,
    calls: [] as string[],
    now: () => p.clock,
    sleep: (ms: number) => void (p.clock += ms),
    get: (url: string) => (p.calls.push(`GET ${url}`), answers('GET', url)),
    post: (url: string) => (p.calls.push(`POST ${url}`), (p.clock += 5), answers('POST', url)),
  };
  return p;
}

test('reset: done, retried while busy then refused, absent (404), no route, llama.cpp slot by slot', () => {
  const t = (engine: string | null) => ({ url: 'http://s', engine, headers: {} });
  assert.deepEqual(
    resetCache(
      fake(() => reply(200)),
      t('sglang'),
      800,
    ),
    { outcome: 'reset', detail: 'POST /flush_cache' },
  );
  let n = 0;
  const twice = fake(() => reply(n++ < 2 ? 400 : 200, 'Cache not flushed because there are pending requests.'));
  assert.equal(resetCache(twice, t('sglang'), 800).outcome, 'reset');
  assert.equal(twice.calls.length, 3);
  const busy = fake(() => reply(409, '{"detail":"Prefix cache reset failed."}'));
  const r = resetCache(busy, t('vllm'), 800);
  assert.equal(r.outcome, 'refused');
  assert.ok(busy.clock <= 900, `stopped within the budget (${busy.clock} ms)`);
  const nf = resetCache(
    fake(() => reply(404, '{"detail":"Not Found"}')),
    t('vllm'),
    800,
  );
  assert.equal(nf.outcome, 'missing');
  assert.match(nf.detail, /404: vLLM registers POST \/reset_prefix_cache only when started with VLLM_SERVER_DEV_MODE=1/);
  assert.equal(
    resetCache(
      fake(() => reply(200)),
      t('tgi'),
      800,
    ).outcome,
    'no_route',
  );
  assert.equal(
    resetCache(
      fake(() => reply(200)),
      t(null),
      800,
    ).outcome,
    'no_route',
  );
  assert.equal(
    resetCache(
      fake(() => reply(500, 'boom')),
      t('sglang'),
      800,
    ).outcome,
    'failed',
  );
  const slots = fake((m, url) => (m === 'GET' ? reply(200, '[{"id":0},{"id":1}]') : reply(200, `{"id_slot":${url.slice(-14, -13)}}`)));
  assert.deepEqual(resetCache(slots, t('llamacpp'), 800), { outcome: 'reset', detail: 'POST /slots/{slot}?action=erase on 2 slot(s)' });
  assert.deepEqual(slots.calls, ['GET http://s/slots', 'POST http://s/slots/0?action=erase', 'POST http://s/slots/1?action=erase']);
  const noSave = resetCache(
    fake((m) => (m === 'GET' ? reply(200, '[{"id":0}]') : reply(501, 'This server does not support slots action.'))),
    t('llamacpp'),
    800,
  );
  assert.equal(noSave.outcome, 'missing');
  assert.match(noSave.detail, /--slot-save-path/);
  assert.equal(slotIds('{"id":0}'), null);
});

test('the report says what was reset before each run, or why not', () => {
  assert.equal(resetStateOf('never', false, null, null).text, 'not reset (CACHE_RESET=never)');
  assert.match(resetStateOf('variant', false, null, null).text, /after the variant's first run/);
  assert.equal(resetStateOf('cell', true, 'reset', null).text, 'reset');
  assert.match(resetStateOf('cell', true, 'missing', { missing: 'vLLM registers … VLLM_SERVER_DEV_MODE=1' }).text, /absent \(vLLM registers/);
  assert.match(
    resetStateOf('cell', true, 'reset', engineById('llamacpp')?.prefixCache?.reset ?? null).text,
    /^reset, but prompts kept in host memory .*--cache-ram 0/,
  );
  assert.match(resetStateOf('cell', true, 'refused', null).text, /refused/);
  assert.match(resetStateOf('cell', true, null, null).text, /no outcome recorded \(another instance/);
});
