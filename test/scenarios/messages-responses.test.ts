// DIALECT=anthropic (/v1/messages) and DIALECT=responses (/v1/responses) end to end on real k6,
// over both transports, against the simulator with an API key and reasoning: every request reaches
// its route and completes with exactly OSL tokens, no error, TTFT and per-token ITL measured over
// sse. A simulator at 4× speed (the subject is the wiring, not timing): about 8 s per run.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSim } from './sim-process';
import { explain, RUNNERS } from './harness';

const OSL = 16;

interface Reasoning {
  requests: number;
  reasoning_tokens: number | null;
  ttft_answer_ms: { p50: number; count: number } | null;
}
const ROUTES = { anthropic: '/v1/messages', responses: '/v1/responses' } as const;

// On k6 v2 (TEST_SUBSET=v2) only the sse half: what can differ there is xk6-sse's reading of named events.
const TRANSPORTS = process.env.TEST_SUBSET === 'v2' ? (['sse'] as const) : (['http', 'sse'] as const);

for (const runner of RUNNERS) {
  for (const transport of TRANSPORTS) {
    const skip = runner.skip ?? (transport === 'sse' ? runner.sseSkip : null) ?? undefined;
    describe(`DIALECT=anthropic and responses over ${transport} on ${runner.name}`, { skip }, () => {
      for (const dialect of ['anthropic', 'responses'] as const) {
        test(`${dialect}: every request on ${ROUTES[dialect]}, OSL tokens each, nothing failed`, async () => {
          const sim = await spawnSim({ engine: 'vllm', timeScale: 4, seed: 11, apiKey: 'k-secret', reasoningFraction: 0.25 });
          try {
            const run = await runner.run(
              'context-matrix',
              {
                TARGET_URL: sim.url,
                DIALECT: dialect,
                API_KEY: 'k-secret',
                TRANSPORT: transport,
                ISL: '64',
                OSL: String(OSL),
                CONCURRENCY: '2',
                DURATION: '3s',
                SLICES: '1',
                REQUEST_TIMEOUT: '5s',
                GRACEFUL_STOP: '2s',
                WARMUP_REQUESTS: '1',
              },
              60_000,
            );
            assert.equal(run.result.exitCode, 0, explain(run));
            assert.ok(!`${run.result.stdout}${run.result.stderr}`.includes('k-secret'), 'the key is never printed');
            const s = run.summary!;
            assert.equal(s.variants[0].dialect, dialect);
            const rec = s.records[0];
            assert.ok(rec.requests_ok >= 4, `${rec.requests_ok} requests`);
            assert.equal(rec.requests_failed, 0, JSON.stringify(rec.errors_by_class));
            const measured = (await sim.requests()).filter((r) => r.maxNewTokens === OSL);
            assert.ok(measured.length >= rec.requests_ok, `${measured.length} recorded`);
            assert.ok(
              measured.every((r) => r.route === ROUTES[dialect] && r.completionTokens === OSL && r.errorClass === null),
              'each on its route, OSL tokens, no error',
            );
            assert.ok(rec.output_throughput_tokens_per_s !== null && rec.output_throughput_tokens_per_s > 0, 'tokens counted from the server');
            // A quarter of each reply is reasoning (thinking_delta, reasoning_text.delta). Responses
            // reports its count (output_tokens_details.reasoning_tokens); Messages says no count, per
            // event or in its usage, so its split is not measured, never guessed.
            const rs = (rec as typeof rec & { reasoning: Reasoning | null }).reasoning;
            assert.ok(rs !== null && rs.requests === rec.requests_ok, 'every reply reasoned');
            assert.equal(rs.reasoning_tokens, dialect === 'responses' ? (OSL / 4) * rec.requests_ok : null);
            if (transport === 'sse') {
              assert.equal(rec.ttft_ms?.count, rec.requests_ok, 'one TTFT per request');
              assert.ok(rec.itl_ms && rec.itl_ms.count >= rec.requests_ok * (OSL - 4), `${rec.itl_ms?.count} ITL samples`);
              assert.equal(rs.ttft_answer_ms?.count, rec.requests_ok, 'a time to first answer token per reply');
              assert.ok((rs.ttft_answer_ms?.p50 ?? 0) > (rec.ttft_ms?.p50 ?? Infinity), 'the answer starts after the reasoning');
            }
          } finally {
            await sim.stop();
          }
        });
      }
    });
  }
}
