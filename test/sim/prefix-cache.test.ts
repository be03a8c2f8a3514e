// The simulator's prefix-cache counters and reset routes, against its own record (/sim/prefix-cache):
// vLLM's prefix_cache_queries/hits, SGLang's cached_tokens and cache_hit_rate, SGLang's
// /flush_cache (refused while a request runs) and vLLM's /reset_prefix_cache (dev mode only).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { request, sim } from './helpers';

const PROMPT = Array.from({ length: 64 }, (_, i) => 100 + i);

function value(page: string, name: string): number {
  const m = new RegExp(`^${name}\\{[^}]*\\} (\\S+)$`, 'm').exec(page);
  assert.ok(m, `${name} in /metrics`);
  return Number(m[1]);
}

async function truth(url: string): Promise<{ queryTokens: number; hitTokens: number; resets: number }> {
  return JSON.parse((await request(url, '/sim/prefix-cache')).body) as { queryTokens: number; hitTokens: number; resets: number };
}

test('vllm: prefix_cache_queries/hits count the tokens looked up and found; /reset_prefix_cache only in dev mode', async () => {
  const s = await sim({ engine: 'vllm', devMode: true, blockSize: 16 });
  const send = () => request(s.url, '/v1/completions', { body: { model: 'qwen3-32b-sim', prompt: PROMPT, max_tokens: 2 } });
  await send();
  await send();
  let page = (await request(s.url, '/metrics')).body;
  // The second request finds its 64 tokens' blocks but one token is always computed: 63 cached.
  assert.deepEqual(await truth(s.url), { queryTokens: 128, hitTokens: 63, resets: 0 });
  assert.equal(value(page, 'vllm:prefix_cache_queries_total'), 128);
  assert.equal(value(page, 'vllm:prefix_cache_hits_total'), 63);
  const r = await request(s.url, '/reset_prefix_cache', { method: 'POST' });
  assert.equal(r.status, 200);
  assert.equal(r.body, '');
  await send();
  page = (await request(s.url, '/metrics')).body;
  assert.equal(value(page, 'vllm:prefix_cache_hits_total'), 63, 'nothing found after the reset');
  assert.equal((await truth(s.url)).resets, 1);

  const plain = await sim({ engine: 'vllm' });
  const nf = await request(plain.url, '/reset_prefix_cache', { method: 'POST' });
  assert.equal(nf.status, 404);
  assert.equal(nf.body, '{"detail":"Not Found"}');
});

test('sglang: cached_tokens and prompt_tokens; /flush_cache answers 400 while a request runs, 200 after', async () => {
  const s = await sim({ engine: 'sglang', blockSize: 16 });
  const gen = (n: number) => request(s.url, '/generate', { body: { input_ids: PROMPT, sampling_params: { max_new_tokens: n, ignore_eos: true } } });
  await gen(2);
  const running = gen(200);
  await new Promise((r) => setTimeout(r, 30));
  const busy = await request(s.url, '/flush_cache', { method: 'POST' });
  assert.equal(busy.status, 400);
  assert.match(busy.body, /^Cache not flushed because there are pending requests\. #queue-req: 0, #running-req: 1$/);
  const second = await running;
  assert.equal((JSON.parse(second.body) as { meta_info: { cached_tokens: number } }).meta_info.cached_tokens, 63);
  const page = (await request(s.url, '/metrics')).body;
  assert.deepEqual(await truth(s.url), { queryTokens: 128, hitTokens: 63, resets: 0 });
  assert.equal(value(page, 'sglang:cached_tokens_total'), 63);
  assert.match(page, /^sglang:cached_tokens_total\{[^}]*cache_source="device"\} /m);
  assert.equal(value(page, 'sglang:prompt_tokens_total'), 128);
  assert.ok(value(page, 'sglang:cache_hit_rate') >= 0);
  const done = await request(s.url, '/flush_cache', { method: 'POST' });
  assert.equal(done.status, 200);
  assert.match(done.body, /^Cache flushed\.\n/);
  await gen(2);
  assert.deepEqual(await truth(s.url), { queryTokens: 192, hitTokens: 63, resets: 1 });
});
