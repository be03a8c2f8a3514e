// SLO_TTFT_OF: SLO_TTFT_P99 holds the first token of either kind (the default) or the first answer
// token. Every reply with an answer records its time to it (a reply that did not reason: its
// first token), so the threshold and goodput judge every reply, not only the ones that reasoned.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { recordRequest, type SloLimits, type Window } from '../../../lib/metrics/samples';
import type { MetricKey } from '../../../lib/metrics/catalog';
import type { GenerationResult } from '../../../lib/dialects/types';
import { loadConfig } from '../../../lib/config/load';
import { BENCHMARKS } from '../../../lib/benchmarks';
import { summaryThresholds } from '../../../lib/plan/summary-keys';
import { planOf } from '../../../lib/plan/matrix';

const base: GenerationResult = {
  ok: true,
  status: 200,
  text: '',
  promptTokens: 4,
  completionTokens: 4,
  cachedTokens: null,
  finishReason: 'length',
  tokenEvents: 4,
  specVerifySteps: null,
  acceptanceLength: null,
  error: null,
};
const w: Window = { cellStartMs: 0, sliceMs: 1e9, slices: 1, trackLastEnd: false, latencyFromMs: 0 };
// Tokens at 50, 100 (reasoning), 700, 750 ms (answer) after sending at 1000.
const events = [50, 100, 700, 750].map((t) => ({ t: 1000 + t, tokens: 1 }));

function record(result: GenerationResult, slo: SloLimits): Partial<Record<MetricKey, number>> {
  const got: Partial<Record<MetricKey, number>> = {};
  recordRequest({ result, startMs: 1000, endMs: 1800, events }, w, slo, (m, v) => (got[m] = (got[m] ?? 0) + v));
  return got;
}

const slo = (ttftOf: SloLimits['ttftOf']): SloLimits => ({ ttftP99Ms: 500, ttftOf, itlP99Ms: null, e2eP99Ms: null });
const reasoned: GenerationResult = { ...base, reasoning: { tokens: 2, firstReasoningEvent: 0, firstAnswerEvent: 2 } };

test('a reasoning reply: good by its first token, not by its answer, against a 500 ms TTFT SLO', () => {
  const first = record(reasoned, slo('first'));
  assert.equal(first.ttft, 50);
  assert.equal(first.ttftAnswer, 700);
  assert.equal(first.good, 1);
  assert.equal(record(reasoned, slo('answer')).good, undefined, 'the answer came at 700 ms');
});

test('a reply that did not reason: its answer is its first token, recorded and judged alike', () => {
  const got = record(base, slo('answer'));
  assert.equal(got.ttftAnswer, 50);
  assert.equal(got.good, 1);
  assert.equal(got.reasoningRequests, undefined, 'still not counted as reasoning');
});

test('a reply cut during its reasoning has no answer time and is never good under SLO_TTFT_OF=answer', () => {
  const cut: GenerationResult = { ...base, reasoning: { tokens: 4, firstReasoningEvent: 0, firstAnswerEvent: null } };
  const got = record(cut, slo('answer'));
  assert.equal(got.ttftAnswer, undefined);
  assert.equal(got.good, undefined);
  assert.equal(record(cut, slo('first')).good, 1);
});

test('the threshold goes on the metric SLO_TTFT_OF names; SLO_TTFT_OF alone is an error', () => {
  const env = { TARGET_URL: 'http://a:1', TRANSPORT: 'sse', SLO_TTFT_P99: '500ms' };
  const now = new Date('2026-12-04T00:00:00Z');
  const spec = BENCHMARKS['context-matrix'];
  const th = (e: Record<string, string>) => {
    const cfg = loadConfig(spec, e, now);
    return summaryThresholds(planOf(spec.load, cfg), cfg, false);
  };
  assert.deepEqual(th(env).llm_ttft, ['p(99)<=500']);
  assert.equal(th(env).llm_ttft_answer, undefined);
  const answer = th({ ...env, SLO_TTFT_OF: 'answer' });
  assert.deepEqual(answer.llm_ttft_answer, ['p(99)<=500']);
  assert.equal(answer.llm_ttft, undefined);
  assert.throws(
    () => loadConfig(spec, { TARGET_URL: 'http://a:1', TRANSPORT: 'sse', SLO_TTFT_OF: 'answer' }, now),
    /SLO_TTFT_OF=answer says which first token SLO_TTFT_P99 holds: set SLO_TTFT_P99 too/,
  );
  assert.throws(() => loadConfig(spec, { ...env, SLO_TTFT_OF: 'reasoning' }, now), /SLO_TTFT_OF='reasoning' is not valid/);
});
