import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AcceptanceModel, expectedAcceptLength, solveAlpha } from '../../sim/scheduler/speculative';
import { Rng } from '../../sim/rng';
import type { SimHandle, SpecMode } from '../../sim/index';
import { events, request, sim } from './helpers';

const gen = (maxNew: number, seed = 1) => ({ input_ids: [seed, 2, 3], sampling_params: { max_new_tokens: maxNew, ignore_eos: true } });

test('acceptance model: α solves the mean, draws converge to it, each step commits 1..K+1', () => {
  for (const [al, k] of [
    [2.5, 3],
    [6, 15],
    [8, 15],
  ] as const) {
    const a = solveAlpha(al, k);
    assert.ok(Math.abs(expectedAcceptLength(a, k) - al) < 1e-9);
    const m = new AcceptanceModel(al, k);
    const rng = new Rng(99);
    let sum = 0;
    const n = 100_000;
    for (let i = 0; i < n; i++) {
      const x = m.drawAccepted(rng);
      assert.ok(x >= 0 && x <= k);
      sum += x + 1;
    }
    assert.ok(Math.abs(sum / n - al) / al < 0.01, `mean ${sum / n} vs ${al}`);
  }
});

/** Generated tokens per model-second over the recorded steps: free of wall-clock noise. */
function modelThroughput(s: SimHandle): number {
  let tokens = 0;
  let ms = 0;
  for (const st of s.groundTruth().steps) {
    tokens += st.tokens;
    ms += st.durationMs * s.options.timeScale;
  }
  return (tokens / ms) * 1000;
}

for (const [mode, al] of [
  ['mtp', 2.5],
  ['dflash', 6],
  ['ddtree', 8],
] as const) {
  test(`${mode}: measured acceptance length converges to ${al}; events carry several tokens`, async () => {
    const s = await sim({ spec: mode as SpecMode, timeScale: 50 });
    const rs = await Promise.all(Array.from({ length: 8 }, (_, i) => request(s.url, '/generate', { body: { ...gen(1500, i + 1), stream: true } })));
    const sum = s.groundTruth().summary();
    const measured = sum.acceptLength ?? 0;
    assert.ok(Math.abs(measured - al) / al < 0.05, `${mode} AL ${measured}`);
    // Tokens per event (after the prefill's single first token) average about AL.
    const ev = events<{ meta_info: { completion_tokens: number; spec_verify_ct: number; spec_accept_length: number } }>(rs[0] as never);
    const perEvent = (ev.at(-1)?.meta_info.completion_tokens ?? 0) / ev.length;
    assert.ok(perEvent > al * 0.8, `tokens per event ${perEvent}`);
    const last = ev.at(-1)?.meta_info;
    assert.equal(last?.spec_accept_length, (last?.completion_tokens ?? 0) / (last?.spec_verify_ct ?? 1), 'SGLang formula');
  });
}

test('speedup over plain decoding is large at batch 1 and small at batch 64', async () => {
  const run = async (spec: SpecMode, batch: number, tokens: number): Promise<number> => {
    const s = await sim({ spec, timeScale: 50, faults: { stall: true } });
    // Start all requests in the same step so the batch is what we asked for.
    const all = Promise.all(Array.from({ length: batch }, (_, i) => request(s.url, '/generate', { body: gen(tokens, i + 1) })));
    while (s.groundTruth().requests.length < batch) await new Promise((r) => setTimeout(r, 5));
    s.setFaults({ stall: false });
    await all;
    return modelThroughput(s);
  };
  const one = (await run('dflash', 1, 600)) / (await run('none', 1, 600));
  const many = (await run('dflash', 64, 120)) / (await run('none', 64, 120));
  assert.ok(one > 3 && one < 6, `batch-1 speedup ${one}`);
  assert.ok(many > 0.8 && many < 1.6, `batch-64 speedup ${many}`);
});

test('vLLM speculative counters: drafts, draft tokens, accepted, accepted per position', async () => {
  const s = await sim({ engine: 'vllm', spec: 'mtp', timeScale: 50 });
  await request(s.url, '/v1/completions', { body: { prompt: [1, 2], max_tokens: 800, ignore_eos: true } });
  const text = (await request(s.url, '/metrics')).body;
  const val = (name: string): number => Number(new RegExp(`^${name}\\{[^}]*\\} (\\S+)$`, 'm').exec(text)?.[1]);
  const drafts = val('vllm:spec_decode_num_drafts_total');
  const draftTokens = val('vllm:spec_decode_num_draft_tokens_total');
  const accepted = val('vllm:spec_decode_num_accepted_tokens_total');
  assert.equal(draftTokens, drafts * 3);
  const al = 1 + accepted / drafts;
  assert.ok(Math.abs(al - 2.5) < 0.2, `AL from counters ${al}`);
  const perPos = [0, 1, 2].map((p) => Number(new RegExp(`spec_decode_num_accepted_tokens_per_pos_total\\{[^}]*position="${p}"\\} (\\S+)`).exec(text)?.[1]));
  assert.equal(
    perPos.reduce((a, b) => a + b, 0),
    accepted,
  );
  assert.ok((perPos[0] ?? 0) > (perPos[1] ?? 0) && (perPos[1] ?? 0) > (perPos[2] ?? 0), 'acceptance falls with position');
});
