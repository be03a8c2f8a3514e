// Every script in examples/ bundled as a user would (esbuild, `k6-llm-bench` being the library's
// built ES module) and run on real k6 against the simulator; the tool, search and shop services
// they call are a small stub server here. Each run must pass its own thresholds, and its figures
// must agree with what the simulator recorded.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { bundleLibrary, K6_TARGET } from '../../scripts/build-lib';
import type { K6RunResult } from '../../scripts/k6-runtime';
import { spawnSim, type RemoteSim } from './sim-process';
import { explain, ROOT, RUNNERS, type Runner } from './harness';

const GENERATION = /^\/(generate|v1\/completions|v1\/chat\/completions|v1\/messages|v1\/responses)$/;

interface Stub {
  url: string;
  hits: Map<string, number>;
  close(): Promise<void>;
}

/** The user's own services the examples call: a shop, a search service, a weather tool. */
async function startStub(): Promise<Stub> {
  const hits = new Map<string, number>();
  const server: Server = createServer((req, res) => {
    const u = new URL(req.url ?? '/', 'http://stub');
    hits.set(u.pathname, (hits.get(u.pathname) ?? 0) + 1);
    const json = (v: unknown) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(v));
    };
    if (u.pathname === '/products') return json({ items: [{ name: 'the blue kettle' }, { name: 'a tea sampler' }, { name: 'a cast-iron teapot' }] });
    if (u.pathname === '/search') {
      const k = Number(u.searchParams.get('k') ?? 3);
      return json({
        passages: Array.from(
          { length: k },
          (_, i) =>
            `Passage ${i + 1} about "${u.searchParams.get('q')}": open Settings, choose Account, then follow the steps shown; refunds take five working days.`,
        ),
      });
    }
    if (u.pathname === '/weather') {
      res.writeHead(200, { 'content-type': 'text/plain' });
      return res.end(`${u.searchParams.get('city')}: light rain, 14 °C`);
    }
    res.writeHead(404);
    res.end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  return { url: `http://127.0.0.1:${port}`, hits, close: () => new Promise((r) => server.close(() => r())) };
}

/** Generation requests the simulator received (preflight's included), by route. */
async function generations(sim: RemoteSim) {
  return (await sim.requests()).filter((r) => GENERATION.test(r.route));
}

function summaryOf(run: K6RunResult): {
  records: Array<Record<string, unknown> & { variant: string; requests_ok: number; requests_failed: number }>;
  comparisons: Array<{ verdict: string; throughput_ratio_a_over_b: number | null }>;
  not_measured: string[];
} {
  const file = run.files.find((f) => f.endsWith('summary.json'));
  assert.ok(file, `no summary.json: ${run.files.join(', ')}`);
  return JSON.parse(readFileSync(file, 'utf8'));
}

function metricValues(run: K6RunResult, key: string): Record<string, number> {
  const m = run.summaryData?.metrics[key];
  assert.ok(m, `${key} is not in the summary`);
  return m.values;
}

for (const runner of RUNNERS) {
  describe(`examples/ on ${runner.name}`, { skip: runner.skip ?? undefined }, () => {
    const dir = mkdtempSync(join(tmpdir(), 'llm-examples-'));
    const transport = runner.sseSkip === null ? 'sse' : 'http';
    const bundles = new Map<string, string>();
    let stub: Stub;

    before(async () => {
      const lib = join(dir, 'k6-llm-bench.js');
      await bundleLibrary(lib);
      for (const name of ['user-journey', 'multi-turn-chat', 'agent-loop', 'rag', 'compare-providers', 'preflight-hung', 'three-apis']) {
        const out = join(dir, `${name}.js`);
        await build({
          ...K6_TARGET,
          entryPoints: [join(ROOT, 'examples', `${name}.ts`)],
          outfile: out,
          bundle: true,
          format: 'cjs',
          alias: { 'k6-llm-bench': lib },
          logLevel: 'warning',
        });
        bundles.set(name, out);
      }
      stub = await startStub();
    });
    after(async () => {
      await stub?.close();
      rmSync(dir, { recursive: true, force: true });
    });

    const run = (r: Runner, name: string, env: Record<string, string>, timeoutMs = 90_000) => {
      const cwd = mkdtempSync(join(dir, `${name}-`));
      return r.exec(bundles.get(name) as string, { cwd, env: { TRANSPORT: transport, ...env }, timeoutMs, quiet: true });
    };

    test('user-journey: browse, then ask the assistant; thresholds on both', async () => {
      const sim = await spawnSim({ engine: 'sglang', spec: 'dflash', timeScale: 4, seed: 21 });
      try {
        const before = stub.hits.get('/products') ?? 0;
        const r = await run(runner, 'user-journey', { LLM_URL: sim.url, SHOP_URL: stub.url, DURATION: '5s', VUS: '2' });
        assert.equal(r.exitCode, 0, explain({ result: r, summary: null, wallMs: 0 }));
        const s = summaryOf(r);
        const rec = s.records[0];
        assert.equal(rec.variant, 'assistant');
        const gens = await generations(sim);
        // Preflight's generations ask for one token (its check, and the other API layer probed beside
        // it); every other one is the journey's.
        assert.equal(rec.requests_ok, gens.filter((g) => g.maxNewTokens !== 1).length, 'every LLM step is one request the server saw');
        assert.equal((stub.hits.get('/products') ?? 0) - before, rec.requests_ok, 'one browse per LLM step');
        assert.equal(metricValues(r, 'checks').rate, 1);
        if (transport === 'sse') assert.ok((rec.ttft_ms as { count: number }).count === rec.requests_ok, 'TTFT per request');
        for (const f of ['summary.json', 'report.md', 'report.html'])
          assert.ok(
            r.files.some((x) => x.endsWith(f)),
            f,
          );
      } finally {
        await sim.stop();
      }
    });

    test('three-apis: chat, Messages and Responses on one server, each tagged with its dialect, the key sent as each API expects', async () => {
      const sim = await spawnSim({ engine: 'vllm', timeScale: 4, seed: 25, apiKey: 'k-three' });
      try {
        const r = await run(runner, 'three-apis', { LLM_URL: sim.url, LLM_API_KEY: 'k-three', VUS: '2', ITERATIONS: '2' });
        assert.equal(r.exitCode, 0, explain({ result: r, summary: null, wallMs: 0 }));
        assert.equal(metricValues(r, 'checks').rate, 1);
        const gens = await generations(sim);
        for (const [dialect, route] of [
          ['openai-chat', '/v1/chat/completions'],
          ['anthropic', '/v1/messages'],
          ['responses', '/v1/responses'],
        ]) {
          const seen = gens.filter((x) => x.route === route);
          assert.equal(seen.length, 4, `${route}: two VUs × two iterations`);
          assert.ok(
            seen.every((x) => x.completionTokens === 48 && x.errorClass === null),
            `${route}: 48 tokens each`,
          );
          assert.equal(metricValues(r, `llm_success{dialect:${dialect}}`).passes, 4, `${dialect} tagged`);
        }
        assert.ok(!`${r.stdout}${r.stderr}`.includes('k-three'), 'the key is never printed');
      } finally {
        await sim.stop();
      }
    });

    test('multi-turn-chat: the history grows turn by turn, tagged turn', async () => {
      const sim = await spawnSim({ engine: 'vllm', timeScale: 4, seed: 22 });
      try {
        const r = await run(runner, 'multi-turn-chat', { LLM_URL: sim.url, VUS: '2', ITERATIONS: '2' });
        assert.equal(r.exitCode, 0, explain({ result: r, summary: null, wallMs: 0 }));
        const t1 = metricValues(r, 'llm_e2e{turn:1}').count;
        const t2 = metricValues(r, 'llm_e2e{turn:2}').count;
        assert.equal(t1, 4, 'two VUs × two conversations');
        assert.equal(t2, 4);
        const chats = (await generations(sim)).filter((x) => x.route === '/v1/chat/completions');
        assert.equal(chats.length, metricValues(r, 'llm_success').passes);
        // Each later turn carries the earlier turns and the server's replies.
        const prompts = chats.map((x) => x.promptTokens);
        assert.ok(Math.max(...prompts) > 2 * Math.min(...prompts), `prompt tokens ${prompts.join(', ')}`);
      } finally {
        await sim.stop();
      }
    });

    test('agent-loop: a tool call, its result fed back, then the answer', async () => {
      const sim = await spawnSim({ engine: 'vllm', timeScale: 4, seed: 23 });
      try {
        const before = stub.hits.get('/weather') ?? 0;
        const r = await run(runner, 'agent-loop', { LLM_URL: sim.url, TOOLS_URL: stub.url, VUS: '2', ITERATIONS: '4' });
        assert.equal(r.exitCode, 0, explain({ result: r, summary: null, wallMs: 0 }));
        // The simulator never asks for a tool: each task's first step falls back to the required one.
        assert.equal(metricValues(r, 'agent_tool_calls{chosen_by:required}').count, 4);
        assert.equal((stub.hits.get('/weather') ?? 0) - before, 4);
        const chats = (await generations(sim)).filter((x) => x.route === '/v1/chat/completions');
        assert.equal(chats.length, 8, 'two model calls per task');
        assert.equal(metricValues(r, 'llm_success').passes, 8);
        // The second call of a task carries the first reply and the tool's result.
        const byLength = chats.map((x) => x.promptTokens).sort((a, b) => a - b);
        assert.ok(byLength[7] > byLength[0] + 40, `prompt tokens ${byLength.join(', ')}`);
      } finally {
        await sim.stop();
      }
    });

    test('rag: retrieve from the stub service, then generate with the passages', async () => {
      const sim = await spawnSim({ engine: 'sglang', timeScale: 4, seed: 24 });
      try {
        const before = stub.hits.get('/search') ?? 0;
        const r = await run(runner, 'rag', { LLM_URL: sim.url, SEARCH_URL: stub.url, DURATION: '4s', VUS: '2' });
        assert.equal(r.exitCode, 0, explain({ result: r, summary: null, wallMs: 0 }));
        const ok = metricValues(r, 'llm_success').passes;
        assert.ok(ok >= 4, `${ok} answers`);
        assert.equal((stub.hits.get('/search') ?? 0) - before, ok, 'one retrieval per generation');
        const gens = (await generations(sim)).filter((x) => x.route === '/generate');
        assert.equal(gens.length, ok);
        // The server's prompt count, as the metric recorded it, is the simulator's.
        const truth = gens.reduce((n, x) => n + x.promptTokens, 0);
        assert.equal(metricValues(r, 'llm_input_tokens').count, truth);
        assert.ok(truth / gens.length > 60, `the passages reached the prompt: ${truth / gens.length} tokens each`);
      } finally {
        await sim.stop();
      }
    });

    test('compare-providers: two deployments side by side, the verdict and each throughput agree with the simulators', async (ctx) => {
      const DURATION_MS = 9000;
      const SLICES = 6;
      const [none, dflash] = await Promise.all([
        spawnSim({ engine: 'sglang', spec: 'none', timeScale: 4, seed: 25 }),
        spawnSim({ engine: 'sglang', spec: 'dflash', timeScale: 4, seed: 26 }),
      ]);
      try {
        const r = await run(
          runner,
          'compare-providers',
          { A_URL: none.url, B_URL: dflash.url, A_NAME: 'baseline', B_NAME: 'speculative', DURATION: `${DURATION_MS}ms`, VUS: '2' },
          120_000,
        );
        assert.equal(r.exitCode, 0, explain({ result: r, summary: null, wallMs: 0 }));
        const s = summaryOf(r);
        assert.equal(s.comparisons.length, 1, JSON.stringify(s.comparisons));
        assert.match(s.comparisons[0].verdict, /^speculative faster by/);
        assert.match(r.stdout, /speculative faster by/);
        for (const [name, sim] of [
          ['baseline', none],
          ['speculative', dflash],
        ] as const) {
          const rec = s.records.find((x) => x.variant === name);
          assert.ok(rec, name);
          const gens = await generations(sim);
          const start = Math.min(...gens.map((g) => g.arrivalMs));
          const truth = await sim.summary(start + DURATION_MS / SLICES, start + DURATION_MS);
          const measured = rec.output_throughput_tokens_per_s as number;
          ctx.diagnostic(`${name}: ${measured.toFixed(0)} tok/s, the simulator's ${truth.outputTokensPerSec.toFixed(0)}; verdict: ${s.comparisons[0].verdict}`);
          assert.ok(
            Math.abs(measured / truth.outputTokensPerSec - 1) < 0.1,
            `${name}: ${measured.toFixed(0)} tok/s vs the simulator's ${truth.outputTokensPerSec.toFixed(0)}`,
          );
        }
      } finally {
        await Promise.all([none.stop(), dflash.stop()]);
      }
    });

    test('preflight-hung: a healthy but hung server stops the test in setup, before any load', async () => {
      const sim = await spawnSim({ engine: 'vllm', timeScale: 1, stall: true });
      try {
        const r = await run(runner, 'preflight-hung', { LLM_URL: sim.url, PREFLIGHT_TIMEOUT: '2s' }, 60_000);
        assert.equal(r.exitCode, 108, explain({ result: r, summary: null, wallMs: 0 }));
        assert.match(r.stderr, /preflight failed, no load was sent/);
        assert.match(r.stderr, /no token within 2 s: the engine is stalled/);
        // Only preflight's one-token checks reached the server: no request of the load (16 tokens).
        const gens = await generations(sim);
        assert.ok(
          gens.every((g) => g.maxNewTokens === 1),
          `${gens.map((g) => g.maxNewTokens).join(', ')}`,
        );
        assert.equal(metricValues(r, 'llm_preflight_failed{variant:server,reason:stalled}').count, 1);
      } finally {
        await sim.stop();
      }
    });
  });
}
