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

// IMAGES=0,1x336x336 over openai-chat, both transports: the image tokens per request and the prompt
// tokens the report gives equal the simulator's truth (Qwen2-VL's count: 12·12 + 2 for 336 px), and
// the TTFT cost is measured over sse, "not measured" over http. Two 1 s cells at 4× speed: ~8 s a
// transport, the image made once in init (about a second of k6's JavaScript); on v2 the sse half only.
const IMG_OSL = 8;
for (const runner of RUNNERS) {
  for (const transport of TRANSPORTS) {
    const skip = runner.skip ?? (transport === 'sse' ? runner.sseSkip : null) ?? undefined;
    test(`IMAGES=0,1x336x336 over ${transport} on ${runner.name}: image and prompt tokens equal the simulator's truth`, { skip }, async () => {
      const sim = await spawnSim({ engine: 'vllm', timeScale: 4, seed: 5 });
      try {
        const run = await runner.run(
          'context-matrix',
          {
            TARGET_URL: sim.url,
            DIALECT: 'openai-chat',
            TRANSPORT: transport,
            IMAGES: '0,1x336x336',
            // One text prompt: both cells send the same text, so the difference of their means is exact.
            PROMPT_POOL: '1',
            ISL: '64',
            OSL: String(IMG_OSL),
            CONCURRENCY: '2',
            DURATION: '1s',
            SLICES: '1',
            REQUEST_TIMEOUT: '5s',
            GRACEFUL_STOP: '1s',
            WARMUP_REQUESTS: '0',
          },
          60_000,
        );
        assert.equal(run.result.exitCode, 0, explain(run));
        const s = run.summary as NonNullable<typeof run.summary> & { images: Array<Record<string, unknown>> | null };
        assert.deepEqual(
          s.records.map((r) => r.cell),
          ['i64_o8_c2', 'i64_o8_img1x336x336_c2'],
        );
        const truth = (await sim.requests()).filter((r) => r.maxNewTokens === IMG_OSL && r.errorClass === null);
        const withImages = truth.filter((r) => r.imageTokens > 0);
        const without = truth.filter((r) => r.imageTokens === 0);
        assert.ok(withImages.length >= 2 && without.length >= 2, `${withImages.length} with images, ${without.length} without`);
        assert.ok(
          withImages.every((r) => r.imageTokens === 146),
          'the simulator counted 146 image tokens in each',
        );
        const mean = (rs: typeof truth) => rs.reduce((a, r) => a + r.promptTokens, 0) / rs.length;
        const [row] = s.images ?? [];
        assert.ok(row, 'an images row');
        assert.equal(row.cell, 'i64_o8_img1x336x336_c2');
        assert.equal(row.baseline_cell, 'i64_o8_c2');
        assert.equal(row.prompt_tokens_mean, mean(withImages), 'prompt tokens with images: the truth');
        assert.equal(row.baseline_prompt_tokens_mean, mean(without), 'prompt tokens without: the truth');
        assert.equal(row.image_tokens_per_request, mean(withImages) - mean(without));
        assert.equal(row.image_tokens_per_request, 146, "the truth's image tokens per request");
        if (transport === 'sse') assert.equal(typeof row.ttft_cost_p50_ms, 'number', JSON.stringify(row));
        else assert.match(String(row.ttft_cost_not_measured), /no TTFT was measured/);
      } finally {
        await sim.stop();
      }
    });
  }
}
