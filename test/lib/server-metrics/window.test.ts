import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parsePromText, total } from '../../../lib/server-metrics/promtext';
import { snapshot, windowFigures } from '../../../lib/server-metrics/window';
import { engineOfMetrics } from '../../../lib/engines/index';

const detectEngine = (text: string) => engineOfMetrics(text)?.id ?? null;

const page = (
  ttftSum: number,
  ttftCount: number,
  drafts: number,
  accepted: number,
  gen: number,
) => `# HELP vllm:time_to_first_token_seconds Histogram of time to first token in seconds.
# TYPE vllm:time_to_first_token_seconds histogram
vllm:time_to_first_token_seconds_bucket{engine="0",le="0.1",model_name="Qwen/Qwen3-32B"} 3.0
vllm:time_to_first_token_seconds_bucket{engine="0",le="+Inf",model_name="Qwen/Qwen3-32B"} ${ttftCount}
vllm:time_to_first_token_seconds_sum{engine="0",model_name="Qwen/Qwen3-32B"} ${ttftSum}
vllm:time_to_first_token_seconds_count{engine="0",model_name="Qwen/Qwen3-32B"} ${ttftCount}
vllm:spec_decode_num_drafts_total{engine="0",model_name="Qwen/Qwen3-32B"} ${drafts}
vllm:spec_decode_num_accepted_tokens_total{engine="0",model_name="Qwen/Qwen3-32B"} ${accepted}
vllm:spec_decode_num_accepted_tokens_per_pos_total{engine="0",model_name="Qwen/Qwen3-32B",position="0"} 7
vllm:generation_tokens_total{engine="0",model_name="Qwen/Qwen3-32B"} ${gen}
`;

test('parses labels with escapes, +Inf, exponents', () => {
  const s = parsePromText('a{x="1",y="q\\"uote"} 2.5e+03\nb 4 1700000000\n# c 1\nd{le="+Inf"} +Inf\n');
  assert.deepEqual(s[0], { name: 'a', labels: { x: '1', y: 'q"uote' }, value: 2500 });
  assert.equal(s[1].value, 4);
  assert.equal(s[2].value, Infinity);
  assert.equal(total(s, 'zzz'), null);
});

test('window figures come from differences, not lifetime values', () => {
  // Lifetime: 1000 drafts with 1000 accepted (AL 2). In the window: 100 drafts, 500 accepted (AL 6).
  const a = snapshot('vllm', page(50, 100, 1000, 1000, 10_000), 0);
  const b = snapshot('vllm', page(56, 120, 1100, 1500, 13_000), 10_000);
  const f = windowFigures(a, b);
  assert.equal(f.acceptanceLength, 6);
  assert.ok(Math.abs((f.ttftMeanMs ?? 0) - 300) < 1e-9, `ttft ${f.ttftMeanMs}`);
  assert.equal(f.outputTokensPerSecond, 300);
  assert.equal(f.itlMeanMs, null, 'absent histograms are null, not 0');
});

test('no observations in the window: means are null', () => {
  const a = snapshot('vllm', page(50, 100, 1000, 1000, 10_000), 0);
  assert.equal(windowFigures(a, a).ttftMeanMs, null);
  assert.equal(windowFigures(a, a).acceptanceLength, null);
});

test('engine detection', () => {
  assert.equal(detectEngine(page(1, 1, 1, 1, 1)), 'vllm');
  assert.equal(detectEngine('sglang:num_running_reqs 0'), 'sglang');
  assert.equal(detectEngine('go_goroutines 3'), null);
});

test('server ITL is per token, whether the server observes per step (vLLM) or per token (SGLang)', () => {
  const vllm = (itlSum: number, itlCount: number, ttftCount: number, gen: number) => `vllm:inter_token_latency_seconds_sum{model_name="m"} ${itlSum}
vllm:inter_token_latency_seconds_count{model_name="m"} ${itlCount}
vllm:time_to_first_token_seconds_sum{model_name="m"} 1
vllm:time_to_first_token_seconds_count{model_name="m"} ${ttftCount}
vllm:generation_tokens_total{model_name="m"} ${gen}
`;
  // 100 requests finished their first token, 1,100 tokens came, the gaps between the 1,000 later
  // tokens' steps add up to 2 s; vLLM counted 250 steps (4 tokens per speculative step).
  const f = windowFigures(snapshot('vllm', vllm(10, 50, 20, 500), 0), snapshot('vllm', vllm(12, 300, 120, 1600), 5000));
  assert.ok(Math.abs((f.itlMeanMs ?? 0) - 2) < 1e-9, `per-token ITL ${f.itlMeanMs} ms, not the per-step 8 ms`);
});
