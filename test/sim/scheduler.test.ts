import { test } from 'node:test';
import assert from 'node:assert/strict';
import { events, json, nowMs, request, sim, sleep } from './helpers';

const gen = (maxNew: number, prompt: number[] = [1, 2, 3]) => ({ input_ids: prompt, sampling_params: { max_new_tokens: maxNew, ignore_eos: true } });

test('step time follows the formula: base + per-seq + context (+ prefill tokens)', async () => {
  const s = await sim({ timeScale: 10 });
  await request(s.url, '/generate', {
    body: gen(
      5,
      Array.from({ length: 1000 }, (_, i) => i + 1),
    ),
  });
  const steps = s.groundTruth().steps;
  const o = s.options;
  // Step 1: prefill of 1000 tokens, no decoding sequence.
  assert.ok(Math.abs((steps[0]?.durationMs ?? 0) - (o.stepBaseMs + 1000 * o.prefillTokenMs) / 10) < 1e-9);
  assert.equal(steps[0]?.prefillTokens, 1000);
  // Later steps: one decoding sequence with 1000 + k context tokens.
  const d = steps[1]?.durationMs ?? 0;
  assert.ok(Math.abs(d - (o.stepBaseMs + o.decodeSeqMs + (o.ctxMsPer1k * 1001) / 1000) / 10) < 1e-9, `decode step ${d}`);
  assert.equal(steps.length, 5);
});

test('chunked prefill: a long prompt takes several steps of at most the token budget', async () => {
  const s = await sim({ timeScale: 50, maxBatchedTokens: 4096 });
  const r = await request(s.url, '/generate', {
    body: gen(
      2,
      Array.from({ length: 10000 }, (_, i) => (i % 5000) + 1),
    ),
  });
  assert.equal(r.status, 200);
  assert.deepEqual(
    s.groundTruth().steps.map((x) => x.prefillTokens),
    [4096, 4096, 1808, 0],
  );
});

test('continuous batching: beyond --max-running, requests queue and TTFT rises', async () => {
  // Hold the engine so all twelve requests are waiting together, then release it.
  const s = await sim({ timeScale: 20, maxRunning: 4, faults: { stall: true } });
  const all = Promise.all(Array.from({ length: 12 }, () => request(s.url, '/generate', { body: gen(20) })));
  while (s.groundTruth().requests.length < 12) await sleep(5);
  const t0 = nowMs();
  s.setFaults({ stall: false });
  await all;
  const stepWall = s.options.stepBaseMs / 20;
  const ttft = s
    .groundTruth()
    .requests.map((r) => ((r.firstTokenMs ?? 0) - t0) / stepWall)
    .sort((a, b) => a - b);
  // Lower bounds only (model time is the least the wall clock can take): the second four wait for a
  // whole 20-token generation (prefill + 19 decode steps), the last four for two.
  assert.ok(
    ttft.slice(4).every((x) => x >= 20),
    `TTFT in steps ${ttft.map((x) => x.toFixed(1))}`,
  );
  assert.ok(
    ttft.slice(8).every((x) => x >= 40),
    `TTFT in steps ${ttft.map((x) => x.toFixed(1))}`,
  );
  assert.ok(s.groundTruth().steps.every((x) => x.batch <= 4));
});

test('KV capacity: requests wait until reserved prompt + output tokens fit', async () => {
  const s = await sim({ timeScale: 20, kvCapacity: 1000, maxModelLen: 500 });
  const prompt = Array.from({ length: 100 }, (_, i) => i + 1);
  await Promise.all(Array.from({ length: 3 }, () => request(s.url, '/generate', { body: gen(300, prompt) })));
  const recs = s.groundTruth().requests;
  const ordered = [...recs].sort((a, b) => (a.queueExitMs ?? 0) - (b.queueExitMs ?? 0));
  const firstFinish = Math.min(...recs.map((r) => r.finishMs ?? Infinity));
  assert.ok((ordered[2]?.queueExitMs ?? 0) >= firstFinish, 'the third request starts only after one finishes');
});

test('queue full: vLLM answers 503; SGLang streams an abort finish_reason with status_code 503', async () => {
  const v = await sim({ engine: 'vllm', timeScale: 20, maxRunning: 1, maxQueue: 1 });
  const rs = await Promise.all(Array.from({ length: 4 }, () => request(v.url, '/v1/completions', { body: { prompt: [1], max_tokens: 30 } })));
  const statuses = rs.map((r) => r.status).sort();
  assert.deepEqual(statuses, [200, 200, 503, 503]);
  const rej = rs.find((r) => r.status === 503);
  assert.deepEqual(json(rej as never), { error: { message: 'The request queue is full.', type: 'ServiceUnavailableError', param: null, code: 503 } });
  assert.equal(v.groundTruth().requests.filter((r) => r.errorClass === 'queue_full').length, 2);

  const g = await sim({ timeScale: 20, maxRunning: 1, maxQueue: 1 });
  const gs = await Promise.all(Array.from({ length: 3 }, () => request(g.url, '/generate', { body: { ...gen(30), stream: true } })));
  const aborted = gs.filter((r) =>
    events<{ meta_info: { finish_reason: { type: string } | null } }>(r).some((e) => e.meta_info.finish_reason?.type === 'abort'),
  );
  assert.equal(aborted.length, 1);
  const ev = events<{ meta_info: { finish_reason: unknown } }>(aborted[0] as never);
  assert.deepEqual(ev[0]?.meta_info.finish_reason, { type: 'abort', message: 'The request queue is full.', status_code: 503 });
  assert.equal(aborted[0]?.status, 200);
});

test('prefix cache: a repeated prompt reports cached_tokens in whole blocks and prefills less', async () => {
  const s = await sim({ timeScale: 20 });
  const prompt = Array.from({ length: 100 }, (_, i) => i + 7);
  const a = json<{ meta_info: { cached_tokens: number } }>(await request(s.url, '/generate', { body: gen(2, prompt) }));
  const b = json<{ meta_info: { cached_tokens: number } }>(await request(s.url, '/generate', { body: gen(2, [...prompt, 5, 5]) }));
  assert.equal(a.meta_info.cached_tokens, 0);
  assert.equal(b.meta_info.cached_tokens, 96);
  const prefills = s
    .groundTruth()
    .steps.filter((x) => x.prefillTokens > 0)
    .map((x) => x.prefillTokens);
  assert.deepEqual(prefills, [100, 6]);
  const off = await sim({ timeScale: 20, prefixCaching: false });
  await request(off.url, '/generate', { body: gen(2, prompt) });
  const c = json<{ meta_info: { cached_tokens: number } }>(await request(off.url, '/generate', { body: gen(2, prompt) }));
  assert.equal(c.meta_info.cached_tokens, 0);
});

test('determinism: the same seed and request order give the same ids, text and acceptance', async () => {
  const run = async (seed: number) => {
    const s = await sim({ timeScale: 50, seed, spec: 'dflash' });
    const out: string[] = [];
    for (let i = 0; i < 3; i++) {
      const r = await request(s.url, '/generate', { body: { ...gen(40), stream: true } });
      out.push(
        JSON.stringify(
          events<{ output_ids: number[]; meta_info: { completion_tokens: number } }>(r).map((e) => [e.output_ids.length, e.meta_info.completion_tokens]),
        ),
      );
      out.push(json<{ text: string }>({ ...r, body: r.events.at(-2)?.data ?? '' }).text);
    }
    return out;
  };
  const a = await run(7);
  const b = await run(7);
  const c = await run(8);
  assert.deepEqual(a, b);
  assert.notDeepEqual(a, c);
});
