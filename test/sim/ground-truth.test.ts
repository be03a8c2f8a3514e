import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { RequestRecord, Summary } from '../../sim/index';
import { events, json, nowMs, request, sim } from './helpers';

const genBody = (maxNew: number, stream = true) => ({ input_ids: [1, 2, 3, 4], sampling_params: { max_new_tokens: maxNew, ignore_eos: true }, stream });

test('records carry every field; /sim routes are not recorded; since filter; reset', async () => {
  const s = await sim();
  const t0 = nowMs();
  await request(s.url, '/generate', { body: genBody(5) });
  await request(s.url, '/sim/summary');
  await request(s.url, '/health');
  const t1 = nowMs();
  await request(s.url, '/generate', { body: genBody(3, false) });
  const recs = json<RequestRecord[]>(await request(s.url, '/sim/requests'));
  assert.equal(recs.length, 2);
  const r = recs[0] as RequestRecord;
  assert.deepEqual(Object.keys(r).sort(), [
    'acceptedHistogram',
    'adapter',
    'arrivalMs',
    'behind',
    'cachedTokens',
    'completionTokens',
    'domain',
    'errorClass',
    'events',
    'faults',
    'finishMs',
    'finishReason',
    'firstAnswerMs',
    'firstTokenMs',
    'id',
    'imageTokens',
    'intakeLagMs',
    'lagMs',
    'maxNewTokens',
    'ordinal',
    'promptTokens',
    'queueExitMs',
    'reasoningTokens',
    'route',
    'status',
    'stream',
    'verifySteps',
    'verifyTokens',
  ]);
  assert.equal(r.route, '/generate');
  assert.equal(r.stream, true);
  assert.equal(typeof r.maxNewTokens, 'number', 'the output budget the request asked for');
  assert.equal(r.domain, null, 'a token-id prompt has no domain');
  assert.equal(r.promptTokens, 4);
  assert.equal(r.completionTokens, 5);
  assert.equal(r.finishReason, 'length');
  assert.equal(r.status, 200);
  assert.equal(r.events.length, 5);
  assert.ok(
    r.arrivalMs >= t0 && r.arrivalMs <= (r.queueExitMs ?? 0) && (r.queueExitMs ?? 0) <= (r.firstTokenMs ?? 0) && (r.firstTokenMs ?? 0) <= (r.finishMs ?? 0),
  );
  assert.ok(r.arrivalMs % 1 !== 0 || r.finishMs! % 1 !== 0, 'sub-millisecond precision');
  assert.equal(recs[1]?.stream, false);
  const since = json<RequestRecord[]>(await request(s.url, `/sim/requests?since=${t1}`));
  assert.equal(since.length, 1);
  assert.equal(s.groundTruth().requests.length, 2, 'in-process view is the same data');
  await request(s.url, '/sim/reset', { method: 'POST' });
  assert.equal(json<RequestRecord[]>(await request(s.url, '/sim/requests')).length, 0);
});

test('client-observed SSE times agree with the recorded event times (time-scale 1)', async () => {
  const s = await sim({ timeScale: 1 });
  const r = await request(s.url, '/generate', { body: genBody(12) });
  const rec = s.groundTruth().requests[0] as RequestRecord;
  assert.equal(r.events.length - 1, rec.events.length);
  const diffs = rec.events.map((e, i) => (r.events[i]?.t ?? 0) - e.timeMs);
  // Same clock, loopback: the client sees each event shortly after it was written, never before.
  assert.ok(
    diffs.every((d) => d > -0.5),
    `diffs ${diffs.map((d) => d.toFixed(2))}`,
  );
  const sorted = [...diffs].sort((a, b) => a - b);
  assert.ok((sorted[Math.floor(sorted.length / 2)] ?? 99) < 2, `median client lag ${sorted[Math.floor(sorted.length / 2)]} ms`);
  // Event gaps follow the model: one decode step (26.6 + 0.057 + context) ms apart, as scheduled
  // (the median, since a stalled process legitimately re-bases its schedule).
  const gaps = rec.events
    .slice(1)
    .map((e, i) => e.scheduledMs - (rec.events[i]?.scheduledMs ?? 0))
    .sort((a, b) => a - b);
  assert.ok(Math.abs((gaps[Math.floor(gaps.length / 2)] ?? 0) - 26.657) < 0.01, `scheduled gaps ${gaps}`);
});

test('summary: tokens by event time in the window, per-token ITL, TTFT/TPOT/e2e, accept length', async () => {
  const s = await sim({ spec: 'dflash', timeScale: 20 });
  const from = nowMs();
  const rs = await Promise.all([1, 2, 3].map(() => request(s.url, '/generate', { body: genBody(200) })));
  const to = nowMs();
  const sum = json<Summary>(await request(s.url, `/sim/summary?from=${from}&to=${to}`));
  assert.equal(sum.arrived, 3);
  assert.equal(sum.finished, 3);
  assert.equal(sum.errored, 0);
  assert.equal(sum.outputTokens, 600);
  assert.ok(Math.abs(sum.outputTokensPerSec - 600 / ((to - from) / 1000)) < 1e-6);
  // ITL is counted once per token after each request's first: 3 × 199 values.
  assert.equal(sum.itlMs.count, 597);
  assert.equal(sum.ttftMs.count, 3);
  assert.ok((sum.itlMs.p50 ?? 0) > 0 && (sum.tpotMs.mean ?? 0) > 0 && (sum.e2eMs.p99 ?? 0) >= (sum.e2eMs.p50 ?? 0));
  const recs = s.groundTruth().requests;
  assert.equal(sum.acceptLength, recs.reduce((a, r) => a + r.verifyTokens, 0) / recs.reduce((a, r) => a + r.verifySteps, 0));
  // Client-observed TTFT (first event) agrees with the recorded one. Client and server share this
  // process and its first milliseconds of JIT and GC, so the bound here is loose; the time-scale-1
  // test above checks the typical lag tightly.
  for (const [i, r] of rs.entries()) {
    const rec = recs.find((x) => x.id === (events<{ meta_info: { id: string } }>(r)[0]?.meta_info.id ?? ''));
    assert.ok(rec, `record for request ${i}`);
    const lag = (r.events[0]?.t ?? 0) - (rec.firstTokenMs ?? 0);
    assert.ok(lag > -0.5 && lag < 50, `client lag ${lag} ms`);
  }
  // A window that ends before anything happened counts nothing.
  const empty = s.groundTruth().summary(from - 1000, from);
  assert.equal(empty.outputTokens, 0);
  assert.equal(empty.finished, 0);
  assert.equal(empty.ttftMs.p50, null);
});

test('metrics: each engine exposes its names; counters match the ground truth', async () => {
  const v = await sim({ engine: 'vllm' });
  await request(v.url, '/v1/completions', { body: { prompt: [1, 2, 3], max_tokens: 7, stream: true } });
  const vm = (await request(v.url, '/metrics')).body;
  for (const n of [
    'vllm:time_to_first_token_seconds_bucket',
    'vllm:inter_token_latency_seconds_bucket',
    'vllm:e2e_request_latency_seconds_bucket',
    'vllm:request_queue_time_seconds_bucket',
    'vllm:num_requests_running',
    'vllm:num_requests_waiting',
    'vllm:kv_cache_usage_perc',
    'vllm:prompt_tokens_total',
    'vllm:generation_tokens_total',
  ])
    assert.match(vm, new RegExp(`^${n}\\{model_name="qwen3-32b-sim",engine="0"`, 'm'), n);
  assert.match(vm, /^vllm:generation_tokens_total\{[^}]*\} 7\.0$/m);
  assert.match(vm, /^vllm:prompt_tokens_total\{[^}]*\} 3\.0$/m);
  assert.match(vm, /^vllm:time_to_first_token_seconds_count\{[^}]*\} 1\.0$/m);
  assert.match(vm, /^vllm:inter_token_latency_seconds_count\{[^}]*\} 6\.0$/m);
  assert.match(vm, /^vllm:e2e_request_latency_seconds_bucket\{[^}]*le="\+Inf"\} 1\.0$/m);
  assert.match(vm, /^# TYPE vllm:e2e_request_latency_seconds histogram$/m);
  const g = await sim({ spec: 'mtp' });
  await request(g.url, '/generate', { body: genBody(50, false) });
  const gm = (await request(g.url, '/metrics')).body;
  for (const n of [
    'sglang:time_to_first_token_seconds_bucket',
    'sglang:inter_token_latency_seconds_bucket',
    'sglang:e2e_request_latency_seconds_bucket',
    'sglang:num_running_reqs',
    'sglang:num_queue_reqs',
    'sglang:gen_throughput',
    'sglang:prompt_tokens_total',
    'sglang:generation_tokens_total',
    'sglang:spec_accept_length',
  ])
    assert.match(gm, new RegExp(`^${n}\\{model_name="qwen3-32b-sim"`, 'm'), n);
  assert.match(gm, /^sglang:generation_tokens_total\{[^}]*\} 50\.0$/m);
  const al = Number(/^sglang:spec_accept_length\{[^}]*\} (\S+)$/m.exec(gm)?.[1]);
  assert.ok(al > 1.5 && al < 4, `spec_accept_length gauge ${al}`);
});

test('--record-limit keeps the newest records only', async () => {
  const s = await sim({ recordLimit: 10 });
  for (let i = 0; i < 15; i++) await request(s.url, '/generate', { body: genBody(1, false) });
  const recs = s.groundTruth().requests;
  assert.ok(recs.length >= 10 && recs.length <= 11);
  assert.equal(recs.at(-1)?.ordinal, 14);
});

test('refused generation requests are recorded with their status and error class', async () => {
  const s = await sim({ engine: 'vllm', maxModelLen: 20, apiKey: 'k' });
  const auth = { authorization: 'Bearer k' };
  await request(s.url, '/v1/completions', { body: { prompt: [1, 2, 3], max_tokens: 50 }, headers: auth });
  await request(s.url, '/v1/completions', { body: { model: 'other', prompt: 'x' }, headers: auth });
  await request(s.url, '/v1/chat/completions', { body: '{oops', headers: auth });
  await request(s.url, '/v1/completions', { body: { prompt: 'x' } });
  await request(s.url, '/v1/models', { headers: auth });
  const recs = s.groundTruth().requests;
  assert.deepEqual(
    recs.map((r) => [r.route, r.status, r.errorClass]),
    [
      ['/v1/completions', 400, 'context_length'],
      ['/v1/completions', 404, 'unknown_model'],
      ['/v1/chat/completions', 400, 'bad_json'],
      ['/v1/completions', 401, 'unauthorized'],
    ],
  );
  assert.equal(s.groundTruth().summary().errored, 4);
});
