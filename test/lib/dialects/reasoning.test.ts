// A reply that reasons before it answers: the reader marks which token events are reasoning and
// which answer, read event by event and in batches (the template's closure takes whole runs), and
// the split is checked against the simulator's ground truth (its reasoning profile).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { arrivals, tokenColumns } from '../../../lib/reading';
import { createDialect } from '../../../lib/dialects/index';
import type { Accumulator } from '../../../lib/reading';
import { recordRequest } from '../../../lib/metrics/samples';
import type { MetricKey } from '../../../lib/metrics/catalog';
import type { RequestRecord } from '../../../sim/ground-truth';
import { startSim, type SimHandle } from '../../../sim/index';
import { request } from '../../sim/helpers';

const chat = () => createDialect('openai-chat', { dialectVar: 'DIALECT', modelVar: 'MODEL' });
const body = (stream: boolean) => ({
  messages: [{ role: 'user', content: 'hi' }],
  max_tokens: 40,
  ignore_eos: true,
  stream,
  stream_options: stream ? { include_usage: true, continuous_usage_stats: true } : undefined,
});

/** Reads a stream's events kept in batches of `size`; arrival time of event i is 1000 + i. */
function readBatched(data: string[], size: number) {
  const acc = chat().streamReader() as Accumulator;
  const kept = arrivals();
  for (let from = 0; from < data.length; from += size) {
    const count = Math.min(size, data.length - from);
    for (let j = 0; j < count; j++) {
      kept.at[j] = 1000 + from + j;
      kept.data[j] = data[from + j];
    }
    acc.readKept(kept, count);
  }
  const c = tokenColumns(kept);
  return { result: acc.finish(), columns: { t: c.t.slice(0, c.n), tokens: c.tokens.slice(0, c.n), n: c.n } };
}

async function lastRecord(s: SimHandle): Promise<RequestRecord> {
  const r = await request(s.url, '/sim/requests');
  const recs = JSON.parse(r.body) as RequestRecord[];
  return recs[recs.length - 1] as RequestRecord;
}

describe("reasoning split on the simulator's reasoning profile", () => {
  const sims: Record<string, SimHandle> = {};
  before(async () => {
    sims.vllm = await startSim({ engine: 'vllm', timeScale: 50, seed: 11, reasoningFraction: 0.5, reasoningField: 'reasoning' });
    sims.sglang = await startSim({ engine: 'sglang', timeScale: 50, seed: 12, reasoningFraction: 0.25 });
    sims.spec = await startSim({ engine: 'vllm', spec: 'mtp', timeScale: 50, seed: 13, reasoningFraction: 0.5 });
    sims.plain = await startSim({ engine: 'vllm', timeScale: 50, seed: 14 });
  });
  after(async () => {
    for (const s of Object.values(sims)) await s.stop();
  });

  for (const name of ['vllm', 'sglang', 'spec']) {
    test(`${name}: the first answer event is the one the truth says; reasoning tokens equal the truth`, async () => {
      const r = await request(sims[name].url, '/v1/chat/completions', { body: body(true) });
      assert.equal(r.status, 200);
      const truth = await lastRecord(sims[name]);
      assert.ok(truth.reasoningTokens > 0 && truth.firstAnswerMs !== null, 'the profile reasons, then answers');
      // The truth's token events (those carrying tokens), in order: the first answer one by its time.
      const truthEvents = truth.events.filter((e) => e.tokens > 0);
      const answerAt = truthEvents.findIndex((e) => e.timeMs === truth.firstAnswerMs);
      for (const size of [1, 3, 64]) {
        const { result, columns } = readBatched(
          r.events.map((e) => e.data),
          size,
        );
        assert.ok(result.ok, result.error?.message);
        assert.ok(result.reasoning, `batches of ${size}: the reply is seen to reason`);
        assert.equal(result.reasoning.tokens, truth.reasoningTokens, `batches of ${size}: reasoning tokens`);
        assert.equal(result.reasoning.firstReasoningEvent, 0);
        assert.equal(columns.n, truthEvents.length, 'one token event per truth event');
        assert.equal(result.reasoning.firstAnswerEvent, answerAt, `batches of ${size}: the first answer event`);
        // Without the server's count, the stream's per-event counts give it (the template's runs included).
        const bare = readBatched(
          r.events.map((e) => e.data.replace(/,"completion_tokens_details":\{[^}]*\}/, '')),
          size,
        ).result;
        const counted = bare.reasoning?.tokens;
        if (name === 'spec')
          assert.ok(counted === null || counted === truth.reasoningTokens, 'a chunk holding both phases leaves the count unsaid, never wrong');
        else assert.equal(counted, truth.reasoningTokens, `batches of ${size}: reasoning tokens counted from the stream`);
        // The metrics: answer TTFT is that event's arrival, the split adds up to the completion.
        const got: Partial<Record<MetricKey, number>> = {};
        const add = (m: MetricKey, v: number) => {
          got[m] = (got[m] ?? 0) + v;
        };
        recordRequest(
          { result, startMs: 900, endMs: 2000, events: columns },
          { cellStartMs: 0, sliceMs: 1e9, slices: 1, trackLastEnd: false, latencyFromMs: 0 },
          { ttftP99Ms: null, ttftOf: 'first', itlP99Ms: null, e2eP99Ms: null },
          add,
        );
        assert.equal(got.ttftAnswer, 1000 + r.events.findIndex((e) => /"content":"[^"]/.test(e.data)) - 900);
        assert.equal(got.ttftReasoning, got.ttft);
        assert.equal((got.reasoningTokens ?? 0) + (got.answerTokens ?? 0), result.completionTokens);
        assert.equal(got.reasoningRequests, 1);
      }
    });
  }

  test('a reply without reasoning records no reasoning figure; a non-streamed one says its split without times', async () => {
    const r = await request(sims.plain.url, '/v1/chat/completions', { body: body(true) });
    const { result } = readBatched(
      r.events.map((e) => e.data),
      64,
    );
    assert.ok(result.ok);
    assert.equal(result.reasoning, undefined);
    const whole = await request(sims.vllm.url, '/v1/chat/completions', { body: body(false) });
    const truth = await lastRecord(sims.vllm);
    const res = chat().parseBody(whole.status, whole.body, 'application/json');
    assert.deepEqual(res.reasoning, { tokens: truth.reasoningTokens, firstReasoningEvent: null, firstAnswerEvent: null });
  });

  test('a reply cut during its reasoning has no answer time', () => {
    const ev = (t: string) =>
      `{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"reasoning_content":"${t}"},"finish_reason":null}]}`;
    const data = [
      ev('a'),
      ev('b'),
      ev('c'),
      '{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{},"finish_reason":"length"}],' +
        '"usage":{"prompt_tokens":3,"completion_tokens":3,"total_tokens":6}}',
      '[DONE]',
    ];
    const { result } = readBatched(data, 64);
    assert.deepEqual(result.reasoning, { tokens: null, firstReasoningEvent: 0, firstAnswerEvent: null });
  });
});
