// THINK_TAGS: a model served without a reasoning parser writes <think>…</think> into the content.
// The splitter marks each chunk reasoning, answer or both, with the tag split across chunks; on
// the simulator's think profile (vLLM and SGLang chunk shapes, a speculative one with several
// tokens per chunk) the first answer event is the truth's, and without THINK_TAGS the same reply
// reads as all answer, as before.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { thinkPhases } from '../../../lib/dialects/think';
import { arrivals, tokenColumns } from '../../../lib/reading';
import { createDialect } from '../../../lib/dialects/index';
import type { Accumulator } from '../../../lib/reading';
import type { RequestRecord } from '../../../sim/ground-truth';
import { startSim, type SimHandle } from '../../../sim/index';
import { request } from '../../sim/helpers';

test('the close tag ends the reasoning, also when split across chunks; whitespace after it is no answer yet', () => {
  const p = thinkPhases();
  assert.deepEqual(['<think>', 'a b', ' c</th', 'ink>', '\n\n', 'The', ' answer'].map(p), [
    'reasoning',
    'reasoning',
    'reasoning',
    'reasoning',
    undefined,
    'answer',
    'answer',
  ]);
  const q = thinkPhases();
  assert.deepEqual(['no opening tag (in the template)', '</think>\n\nYes'].map(q), ['reasoning', 'both']);
  const r = thinkPhases();
  assert.deepEqual(['never closes', '<', '/think'].map(r), ['reasoning', 'reasoning', 'reasoning'], 'a reply without </think> never answers');
});

const chat = (thinkTags: boolean) => createDialect('openai-chat', { dialectVar: 'DIALECT', modelVar: 'MODEL', thinkTags });
const body = (stream: boolean) => ({
  messages: [{ role: 'user', content: 'hi' }],
  max_tokens: 40,
  ignore_eos: true,
  stream,
  stream_options: stream ? { include_usage: true, continuous_usage_stats: true } : undefined,
});

function read(data: string[], thinkTags: boolean) {
  const acc = chat(thinkTags).streamReader() as Accumulator;
  const kept = arrivals();
  data.forEach((d, j) => {
    kept.at[j] = 1000 + j;
    kept.data[j] = d;
  });
  acc.readKept(kept, data.length);
  const c = tokenColumns(kept);
  return { result: acc.finish(), n: c.n };
}

describe('think tags on the simulator', () => {
  const sims: Record<string, SimHandle> = {};
  before(async () => {
    sims.vllm = await startSim({ engine: 'vllm', timeScale: 50, seed: 21, reasoningFraction: 0.5, reasoningField: 'think' });
    sims.sglang = await startSim({ engine: 'sglang', timeScale: 50, seed: 22, reasoningFraction: 0.25, reasoningField: 'think' });
    sims.spec = await startSim({ engine: 'vllm', spec: 'mtp', timeScale: 50, seed: 23, reasoningFraction: 0.5, reasoningField: 'think' });
  });
  after(async () => {
    for (const s of Object.values(sims)) await s.stop();
  });
  for (const name of ['vllm', 'sglang', 'spec']) {
    test(`${name}: the first answer event is the truth's; no reasoning field or count is needed`, async () => {
      const r = await request(sims[name].url, '/v1/chat/completions', { body: body(true) });
      assert.equal(r.status, 200);
      assert.ok(
        !r.body.includes('reasoning_tokens') && r.body.includes('<think>') && r.body.includes('</think>'),
        'the profile: tags in the content, no parser',
      );
      const recs = JSON.parse((await request(sims[name].url, '/sim/requests')).body) as RequestRecord[];
      const truth = recs[recs.length - 1];
      const truthEvents = truth.events.filter((e) => e.tokens > 0);
      const answerAt = truthEvents.findIndex((e) => e.timeMs === truth.firstAnswerMs);
      const data = r.events.map((e) => e.data);
      const { result, n } = read(data, true);
      assert.ok(result.ok && result.reasoning, result.error?.message);
      assert.equal(n, truthEvents.length);
      assert.equal(result.reasoning.firstReasoningEvent, 0);
      assert.equal(result.reasoning.firstAnswerEvent, answerAt);
      // Counted from the stream's per-chunk usage where no chunk holds both kinds.
      if (name !== 'spec') assert.equal(result.reasoning.tokens, truth.reasoningTokens);
      assert.equal(read(data, false).result.reasoning, undefined, 'without THINK_TAGS the reply is all answer');
    });
  }
  test('a non-streamed reply says it reasoned, without times', async () => {
    const r = await request(sims.vllm.url, '/v1/chat/completions', { body: body(false) });
    const res = chat(true).parseBody(r.status, r.body, 'application/json');
    assert.ok(res.ok && res.reasoning);
    assert.equal(res.reasoning.firstAnswerEvent, null);
  });
});
