// Acceptance per request from vLLM's metrics.speculative_decoding: the reader's counts, the
// samples a request leaves, the figures a run's counts give (length with its interval, and by
// draft position), each against the simulator's ground truth or a hand computation.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createDialect } from '../../../lib/dialects/index';
import type { Accumulator } from '../../../lib/reading';
import { readSpecSteps } from '../../../lib/dialects/openai';
import { recordRequest, SPEC_ACCEPTED_BINS, specAcceptedLabel } from '../../../lib/metrics/samples';
import type { MetricKey } from '../../../lib/metrics/catalog';
import { acceptanceByPosition, acceptanceOf, serverPositions } from '../../../lib/report/figures/draft-acceptance';
import { ratioEstimate, tQuantile } from '../../../lib/stats/t-interval';
import { acceptance } from '../../../lib/report/sections/acceptance-section';
import type { Report } from '../../../lib/report/report-types';
import type { RequestRecord } from '../../../sim/ground-truth';
import { startSim, type SimHandle } from '../../../sim/index';
import { request } from '../../sim/helpers';

const chat = () => createDialect('openai-chat', { dialectVar: 'DIALECT', modelVar: 'MODEL' });

test('readSpecSteps: steps and accepted are required; a histogram is kept only when its counts add up to the steps', () => {
  const m = { num_spec_steps: 43, num_accepted_draft_tokens: 10, num_draft_tokens: 129, acceptance_histogram: [39, 1, 0, 3] };
  assert.deepEqual(readSpecSteps(m), { steps: 43, accepted: 10, drafted: 129, histogram: [39, 1, 0, 3] });
  assert.equal(readSpecSteps({ ...m, num_spec_steps: undefined }), undefined);
  assert.equal(readSpecSteps({ ...m, num_accepted_draft_tokens: -1 }), undefined);
  assert.equal(readSpecSteps({ ...m, acceptance_histogram: [39, 1, 0, 2] })?.histogram, null, 'adds up to 42, not 43');
  assert.equal(readSpecSteps({ ...m, acceptance_histogram: [39, 1, 0, 2.5, 0.5] })?.histogram, null, 'not counts');
  assert.equal(readSpecSteps({ ...m, num_draft_tokens: 'x' })?.drafted, null);
});

test('acceptanceByPosition: position i is accepted by the steps that accepted i or more drafts', () => {
  const p = acceptanceByPosition([39, 1, 0, 3]);
  assert.ok(p);
  assert.equal(p.steps, 43);
  assert.deepEqual(p.byPosition, [4 / 43, 3 / 43, 3 / 43]);
  assert.deepEqual(acceptanceByPosition([5, 0, 0]), { source: 'vllm-metrics', steps: 5, histogram: [5, 0, 0], byPosition: [] }, 'no draft ever accepted');
  assert.equal(acceptanceByPosition([0, 0]), null);
  // The server's per-position counter: Δaccepted at each position ÷ Δsteps, up to the deepest accepted.
  assert.deepEqual(serverPositions(40, [30, 20, 10, 0, 0]), { source: 'server-metrics', steps: 40, histogram: null, byPosition: [0.75, 0.5, 0.25] });
  assert.equal(serverPositions(0, [1]), null);
});

test('ratioEstimate: Σnum ÷ Σden with the t interval of the batches’ residuals', () => {
  const r = ratioEstimate([10, 12, 11, 9, 0], [4, 4, 4, 4, 0], 0.95);
  assert.ok(r && r.ci);
  assert.equal(r.value, 42 / 16);
  // Residuals −0.5, 1.5, 0.5, −1.5: Σe² = 5, se = √(5 / 3 / 4) / 4; the empty batch is left out (df 3, not 4).
  const h = tQuantile(0.975, 3) * (Math.sqrt(5 / 3 / 4) / 4);
  assert.ok(Math.abs(r.ci.hi - r.value - h) < 1e-12 && Math.abs(r.value - r.ci.lo - h) < 1e-12, `half-width ${r.ci.hi - r.value} vs ${h}`);
  assert.deepEqual(ratioEstimate([3], [2], 0.95), { value: 1.5, ci: null });
  assert.equal(ratioEstimate([1, 2], [0, 0], 0.95), null);
});

test('acceptanceOf: per-request counts first (vLLM when histograms came, else SGLang), the server window else', () => {
  const base = { verifySteps: 100, committed: 300, sliceSteps: [50, 50], sliceCommitted: [140, 160], histogram: [0, 0], drafted: 0, serverValue: 2.2 };
  const sg = acceptanceOf(base);
  assert.equal(sg?.source, 'meta_info');
  assert.equal(sg?.value, 3);
  assert.ok(sg?.ci && sg.ci.lo < 3 && sg.ci.hi > 3 && Math.abs(sg.ci.hi - 3 - (3 - sg.ci.lo)) < 1e-12, 'centred on the run’s value');
  assert.equal(acceptanceOf({ ...base, histogram: [10, 90] })?.source, 'vllm-metrics');
  assert.equal(acceptanceOf({ ...base, drafted: 300 })?.source, 'vllm-metrics', 'vLLM counts whose histogram was dropped as malformed');
  assert.deepEqual(acceptanceOf({ ...base, verifySteps: 0, committed: 0 }), { value: 2.2, source: 'server-metrics', ci: null });
  assert.equal(acceptanceOf({ ...base, verifySteps: 0, committed: 0, serverValue: null }), null);
});

describe("vLLM's per-request speculative counts against the simulator's truth", () => {
  let sim: SimHandle;
  before(async () => {
    sim = await startSim({ engine: 'vllm', spec: 'dflash', timeScale: 50, seed: 21, perRequestSpecDecodeMetrics: 'summary' });
  });
  after(async () => sim.stop());

  for (const stream of [true, false]) {
    test(`${stream ? 'streamed (final usage chunk)' : 'not streamed'}: each request's histogram is the truth's, and the samples add up to it`, async () => {
      const got: Partial<Record<string, number>> = {};
      const add = (m: MetricKey, v: number, tags?: Record<string, string>) => {
        const k = tags?.accepted !== undefined ? `${m}:${tags.accepted}` : tags?.slice !== undefined ? `${m}@${tags.slice}` : m;
        got[k] = (got[k] ?? 0) + v;
      };
      const truthHist = new Array<number>(SPEC_ACCEPTED_BINS).fill(0);
      let truthSteps = 0;
      let truthTokens = 0;
      for (let i = 0; i < 6; i++) {
        const body = {
          messages: [{ role: 'user', content: `question ${i}` }],
          max_tokens: 60 + 7 * i,
          ignore_eos: true,
          stream,
          stream_options: stream ? { include_usage: true, continuous_usage_stats: true } : undefined,
        };
        const r = await request(sim.url, '/v1/chat/completions', { body });
        assert.equal(r.status, 200);
        const result = stream ? (chat().streamReader() as Accumulator).feedBody(r.body).finish() : chat().parseBody(r.status, r.body, 'application/json');
        const recs = JSON.parse((await request(sim.url, '/sim/requests')).body) as RequestRecord[];
        const truth = recs[recs.length - 1] as RequestRecord;
        assert.ok(result.ok, result.error?.message);
        assert.ok(result.specSteps, 'the reply carried its counts');
        assert.deepEqual(result.specSteps.histogram, truth.acceptedHistogram, `request ${i}: steps by accepted drafts`);
        assert.equal(result.specSteps.steps, truth.verifySteps);
        const al = truth.verifyTokens / truth.verifySteps;
        assert.ok(
          Math.abs((result.acceptanceLength as number) - al) < 1e-12,
          `the request’s acceptance length ${result.acceptanceLength} is the truth’s ${al}`,
        );
        truth.acceptedHistogram!.forEach((n, j) => (truthHist[Math.min(j, SPEC_ACCEPTED_BINS - 1)] += n));
        truthSteps += truth.verifySteps;
        truthTokens += truth.verifyTokens;
        recordRequest(
          { result, startMs: 0, endMs: 10, events: null },
          { cellStartMs: 0, sliceMs: 1e9, slices: 1, trackLastEnd: false, latencyFromMs: 0 },
          { ttftP99Ms: null, ttftOf: 'first', itlP99Ms: null, e2eP99Ms: null },
          add,
          { maxTokens: body.max_tokens },
        );
      }
      const counted = Array.from({ length: SPEC_ACCEPTED_BINS }, (_, j) => got[`specStepsByAccepted:${specAcceptedLabel(j)}`] ?? 0);
      assert.deepEqual(counted, truthHist, 'llm_spec_steps_by_accepted adds up to the truth');
      assert.equal(got.specVerifySteps, truthSteps);
      assert.equal(got.specTokens, truthTokens, 'committed tokens: steps + accepted drafts, as the truth counts them');
      assert.equal(got['specWindowSteps@0'], truthSteps);
      assert.equal(got['specWindowTokens@0'], truthTokens);
    });
  }
});

test('the section: one line per run in the terminal, aligned markdown columns, one chart per cell, the sources named', () => {
  const vllm = acceptanceByPosition([39, 1, 0, 3])!;
  const server = serverPositions(40, [30, 20, 10])!;
  const rows = [
    { variant: 'dflash', cellId: 'c1', where: 'at c=1', length: { value: 1.23, source: 'vllm-metrics' as const, ci: { lo: 1.1, hi: 1.36 } }, positions: vllm },
    { variant: 'mtp', cellId: 'c1', where: 'at c=1', length: { value: 2.5, source: 'server-metrics' as const, ci: null }, positions: server },
  ];
  const report = { variants: [], runs: [] } as unknown as Report;
  const text = acceptance.text(rows, report);
  assert.match(
    text[2] as string,
    /^ {2}dflash at c=1: 1: 9 %, 2: 7 %, 3: 7 % — 43 steps \(vllm-metrics\), acceptance length 1\.23 \[1\.10, 1\.36\] \(vllm-metrics\)$/,
  );
  assert.match(text[3] as string, /mtp at c=1: 1: 75 %, 2: 50 %, 3: 25 % — 40 steps \(server-metrics\)/);
  const md = acceptance.markdown(rows, report).filter((l) => l.startsWith('|'));
  const columns = (l: string) => l.split('|').length;
  assert.ok(md.length === 4 && md.every((l) => columns(l) === columns(md[0] as string)), md.join('\n'));
  const html = acceptance.html(rows, report);
  assert.equal((html.match(/<svg/g) ?? []).length, 1, 'one chart for the one cell');
  assert.match(html, /<b>vllm-metrics<\/b>.*<b>server-metrics<\/b>/);
  const json = acceptance.json(rows, report) as Array<Record<string, unknown>>;
  assert.deepEqual(json[0]?.steps_by_accepted_drafts, [39, 1, 0, 3]);
  assert.equal(json[1]?.steps_by_accepted_drafts, null, 'the server counts positions, not steps');
  assert.deepEqual(json[0]?.acceptance_length_ci95, [1.1, 1.36]);
});
