// ADAPTERS: the variable's parsing, the seeded draw (deterministic, shared by every variant, in
// proportion to the weights) and each dialect's way of naming the adapter in its body.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { parseAdapters } from '../../../lib/config/adapters-config';
import { loadConfig } from '../../../lib/config/load';
import { BENCHMARKS } from '../../../lib/benchmarks';
import { AdapterPicker } from '../../../lib/workload/adapter-draw';
import { createDialect, type DialectName } from '../../../lib/dialects/index';
import type { GenerationRequest } from '../../../lib/dialects/types';
import { checkAdapters } from '../../../lib/preflight/adapters-loaded';
import { buildCells, buildPlan } from '../../../lib/plan/matrix';
import { subKey } from '../../../lib/plan/summary-keys';
import { adapterThresholds } from '../../../lib/plan/adapter-keys';
import { adapterReport } from '../../../lib/report/figures/adapter-figures';
import type { SummaryMetrics } from '../../../lib/report/figures/run-figures';
import { engineById, type EngineProfile } from '../../../lib/engines/index';

const PROFILES = {
  vllm: engineById('vllm') as EngineProfile,
  sglang: engineById('sglang') as EngineProfile,
  llamacpp: engineById('llamacpp') as EngineProfile,
};

describe('ADAPTERS', () => {
  test('name:weight lists, a weight left out is 1, empty is none', () => {
    assert.deepEqual(parseAdapters('sql:3, chat:1,base'), [
      { name: 'sql', weight: 3 },
      { name: 'chat', weight: 1 },
      { name: 'base', weight: 1 },
    ]);
    assert.deepEqual(parseAdapters('org/lora-v1.2:0.5'), [{ name: 'org/lora-v1.2', weight: 0.5 }]);
    assert.equal(parseAdapters(''), null);
  });
  test('bad names and weights stop the run with one message naming them', () => {
    assert.throws(() => parseAdapters('sql:0'), /ADAPTERS='sql:0' is not valid: the weight of sql, '0', is not a positive number/);
    assert.throws(() => parseAdapters('sql:x'), /weight of sql, 'x'/);
    assert.throws(() => parseAdapters('sql:'), /weight of sql, ''/);
    assert.throws(() => parseAdapters('a b:1'), /'a b' is not an adapter name/);
    assert.throws(() => parseAdapters('sql,,chat'), /an empty entry/);
    assert.throws(() => parseAdapters('sql,sql'), /sql is named twice/);
    assert.throws(() => parseAdapters(Array.from({ length: 17 }, (_, i) => `a${i}`).join(',')), /17 adapters, at most 16/);
  });
  test('loadConfig reads ADAPTERS', () => {
    const cfg = loadConfig(BENCHMARKS.smoke, { TARGET_URL: 'http://127.0.0.1:1', ADAPTERS: 'a:1,base:1' }, new Date());
    assert.deepEqual(cfg.adapters, [
      { name: 'a', weight: 1 },
      { name: 'base', weight: 1 },
    ]);
    assert.throws(() => loadConfig(BENCHMARKS.smoke, { TARGET_URL: 'http://127.0.0.1:1', ADAPTERS: 'a:-1' }, new Date()), /ADAPTERS='a:-1'/);
  });
});

describe('the seeded draw', () => {
  const mix = [
    { name: 'a', weight: 3 },
    { name: 'b', weight: 1 },
    { name: 'base', weight: 1 },
  ];
  const draw = (seed: number, slot: number, n: number) => {
    const p = new AdapterPicker(mix, seed, slot);
    return Array.from({ length: n }, () => p.next());
  };
  test('the same SEED and slot give the same sequence (every variant sees the same mix); another seed or slot another', () => {
    assert.deepEqual(draw(7, 2, 50), draw(7, 2, 50));
    assert.notDeepEqual(draw(7, 2, 50), draw(8, 2, 50));
    assert.notDeepEqual(draw(7, 2, 50), draw(7, 3, 50));
  });
  test('shares follow the weights', () => {
    const xs = draw(1, 0, 20_000);
    const share = (n: string) => xs.filter((x) => x === n).length / xs.length;
    assert.ok(Math.abs(share('a') - 0.6) < 0.02, `a: ${share('a')}`);
    assert.ok(Math.abs(share('b') - 0.2) < 0.02, `b: ${share('b')}`);
    assert.ok(Math.abs(share('base') - 0.2) < 0.02, `base: ${share('base')}`);
  });
});

describe('each dialect names the adapter its own way', () => {
  const req = (adapter: GenerationRequest['adapter']): GenerationRequest => ({
    prompt: { kind: 'text', text: 'hi' },
    maxTokens: 4,
    ignoreEos: true,
    temperature: 0,
    stream: false,
    model: 'base-model',
    adapter,
  });
  const body = (d: DialectName, a: GenerationRequest['adapter'], naming?: 'lora-list') =>
    JSON.parse(createDialect(d, { dialectVar: 'DIALECT', modelVar: 'MODEL', adapterNaming: naming }).build(req(a)).body) as Record<string, unknown>;
  test('OpenAI-style routes put it in model; the base keeps the base model', () => {
    for (const d of ['openai', 'openai-chat', 'anthropic', 'responses'] as const) {
      assert.equal(body(d, { name: 'sql', id: null }).model, 'sql', d);
      assert.equal(body(d, { name: null, id: null }).model, 'base-model', d);
      assert.equal(body(d, { name: 'sql', id: null }).lora_path, undefined, d);
    }
  });
  test("SGLang's /generate sends lora_path, none for the base", () => {
    assert.equal(body('sglang', { name: 'sql', id: null }).lora_path, 'sql');
    assert.equal('lora_path' in body('sglang', { name: null, id: null }), false);
  });
  test('llama.cpp sends lora: [{id, scale}], [] for the base (every adapter at scale 0)', () => {
    assert.deepEqual(body('llamacpp', { name: 'sql', id: 2 }).lora, [{ id: 2, scale: 1 }]);
    assert.deepEqual(body('llamacpp', { name: null, id: null }).lora, []);
    assert.equal(body('llamacpp', { name: 'sql', id: 2 }).model, 'base-model');
    assert.throws(() => body('llamacpp', { name: 'sql', id: null }), /adapter 'sql' has no id from GET \/lora-adapters/);
  });
  test("a server's own naming wins over the route's (llama.cpp's OpenAI routes take the lora list)", () => {
    const b = body('openai-chat', { name: 'sql', id: 0 }, 'lora-list');
    assert.deepEqual(b.lora, [{ id: 0, scale: 1 }]);
    assert.equal(b.model, 'base-model');
  });
  test('no adapter asked for: no adapter field at all', () => {
    for (const d of ['sglang', 'llamacpp', 'openai'] as const) {
      const b = body(d, undefined);
      assert.equal('lora' in b || 'lora_path' in b, false, d);
    }
  });
});

describe('the preflight: each adapter loaded', () => {
  const models = JSON.stringify({ object: 'list', data: [{ id: 'base-model' }, { id: 'sql', parent: 'base-model' }, { id: 'chat', parent: 'base-model' }] });
  const loras = JSON.stringify([
    { id: 0, path: '/models/sql.gguf', scale: 0 },
    { id: 1, path: '/models/chat-lora.gguf', scale: 0 },
  ]);
  const served = (routes: Record<string, string>) => (path: string) =>
    routes[path] === undefined ? { status: 404, body: '' } : { status: 200, body: routes[path] };
  const mix = (s: string) => parseAdapters(s)!;
  test('vLLM and SGLang: names listed in GET /v1/models; base needs none', () => {
    const r = checkAdapters('target', mix('sql,chat,base'), PROFILES.vllm, served({ '/v1/models': models }));
    assert.deepEqual(r, { binding: { ids: {} } });
  });
  test('a missing one stops the run naming it and what the server has', () => {
    const r = checkAdapters('target', mix('sql,nope'), PROFILES.sglang, served({ '/v1/models': models }));
    assert.ok('error' in r);
    assert.equal(
      r.error,
      'target: ADAPTERS names nope, which the server has not loaded (GET /v1/models lists: base-model, sql, ' +
        'chat); load it on the server or remove it from ADAPTERS (`base` is the base model).',
    );
  });
  test('llama.cpp: GET /lora-adapters, by file name (with or without .gguf) or id; its ids kept, and its own naming on every route', () => {
    const r = checkAdapters('target', mix('sql,chat-lora.gguf,1'), PROFILES.llamacpp, served({ '/lora-adapters': loras }));
    assert.deepEqual(r, { binding: { naming: 'lora-list', ids: { sql: 0, 'chat-lora.gguf': 1, '1': 1 } } });
    const miss = checkAdapters('target', mix('code'), PROFILES.llamacpp, served({ '/lora-adapters': '[]' }));
    assert.ok('error' in miss && /names code, which the server has not loaded \(GET \/lora-adapters lists: none\)/.test(miss.error));
  });
  test('a listing that is missing or not its shape is said, not guessed', () => {
    const r = checkAdapters('target', mix('sql'), PROFILES.llamacpp, served({}));
    assert.ok('error' in r && /GET \/lora-adapters → 404/.test(r.error), JSON.stringify(r));
    const odd = checkAdapters('target', mix('sql'), PROFILES.vllm, served({ '/v1/models': '{"models":[]}' }));
    assert.ok('error' in odd && /GET \/v1\/models → 200 \(not its shape\)/.test(odd.error), JSON.stringify(odd));
  });
});

describe('the per-adapter report', () => {
  const cfg = loadConfig(
    BENCHMARKS['dflash-vs-mtp'],
    { DFLASH_URL: 'http://a:1', MTP_URL: 'http://b:2', ISL: '24', OSL: '16', CONCURRENCY: '1', DURATION: '12s', SLICES: '4', ADAPTERS: 'sql:1,base:1' },
    new Date('2026-12-01T00:00:00Z'),
  );
  const plan = buildPlan(cfg, buildCells(cfg.isl, cfg.osl, [{ kind: 'vus', vus: 1 }]), ['dflash', 'mtp']);
  /** dflash answers sql in 100 ms and base in 200 ms, mtp both in 200 ms (a little noise per slice). */
  const metrics = (): SummaryMetrics => {
    const m: SummaryMetrics = {};
    for (const run of plan.runs) {
      for (const adapter of ['sql', 'base']) {
        const ms = run.variant === 'dflash' && adapter === 'sql' ? 100 : 200;
        const t = { adapter };
        m[subKey('success', run.scenario, t)] = { type: 'rate', values: { rate: 1, passes: 40, fails: 1 } };
        m[subKey('e2e', run.scenario, t)] = { type: 'trend', values: { avg: ms, med: ms, 'p(90)': ms, 'p(99)': ms, max: ms, min: ms, count: 40 } };
        m[subKey('outputTokens', run.scenario, t)] = { type: 'counter', values: { count: 640, rate: 0 } };
        for (let k = 0; k < 4; k++) {
          const n = 10 + (k % 2);
          m[subKey('windowE2e', run.scenario, { slice: String(k), adapter })] = { type: 'counter', values: { count: n * ms * (1 + 0.01 * k), rate: 0 } };
          m[subKey('windowRequests', run.scenario, { slice: String(k), adapter })] = { type: 'counter', values: { count: n, rate: 0 } };
        }
      }
    }
    return m;
  };
  test('rows per run and adapter from the declared sub-metrics, and a verdict per adapter', () => {
    const r = adapterReport(cfg, plan, metrics(), 'ab', () => 'at c=1')!;
    assert.deepEqual(
      r.runs.map((x) => [x.variant, x.adapters.map((a) => [a.domain, a.ok, a.failed, a.outputTokens])]),
      [
        [
          'dflash',
          [
            ['sql', 40, 1, 640],
            ['base', 40, 1, 640],
          ],
        ],
        [
          'mtp',
          [
            ['sql', 40, 1, 640],
            ['base', 40, 1, 640],
          ],
        ],
      ],
    );
    const v = r.comparisons[0];
    assert.match(v.verdict, /^by adapter at c=1: DFlash 2\.00× \[\d\.\d\d, \d\.\d\d\] faster on sql; 1\.00× \[0\.\d\d, 1\.\d\d\] on base: not significant$/);
  });
  test('the sub-metrics declared: per run × adapter, and per slice; none without ADAPTERS', () => {
    const th = adapterThresholds(plan, cfg.adapters!);
    assert.ok(th[subKey('e2e', plan.runs[0].scenario, { adapter: 'sql' })]);
    assert.ok(th[subKey('windowRequests', plan.runs[1].scenario, { slice: '3', adapter: 'base' })]);
    assert.equal(Object.keys(th).length, plan.runs.length * 2 * (7 + plan.slices * 2));
    assert.equal(
      adapterReport({ ...cfg, adapters: null }, plan, metrics(), 'ab', () => ''),
      null,
    );
  });
});
