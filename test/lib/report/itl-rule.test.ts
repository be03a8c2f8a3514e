// The report says, per variant, how ITL was measured (the rule of lib/metrics/timing), shows
// per-chunk gaps apart from per-token ITL, and the speculative draft acceptance rate.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadConfig } from '../../../lib/config/load';
import { BENCHMARKS } from '../../../lib/benchmarks';
import { buildCells, buildPlan } from '../../../lib/plan/matrix';
import { subKey, summaryThresholds } from '../../../lib/plan/summary-keys';
import { runFigures, type SummaryMetrics } from '../../../lib/report/figures/run-figures';
import { renderText } from '../../../lib/report/render/text-report';
import { renderMarkdown } from '../../../lib/report/render/markdown-report';
import { renderHtml } from '../../../lib/report/render/html-report';
import { summaryJson } from '../../../lib/report/render/summary-json';
import { dist, sseReport } from '../../fixtures/report/reports';

const NOW = new Date('2026-12-01T10:00:00Z');
const counter = (count: number) => ({ type: 'counter', values: { count, rate: 0 } });

function plan() {
  const cfg = loadConfig(
    BENCHMARKS['context-matrix'],
    { TARGET_URL: 'http://a:1', ISL: '128', OSL: '16', CONCURRENCY: '2', DURATION: '30s', TRANSPORT: 'sse' },
    NOW,
  );
  return { cfg, plan: buildPlan(cfg, buildCells(cfg.isl, cfg.osl, [{ kind: 'vus' as const, vus: 2 }]), ['target']) };
}

test('each run declares one sub-metric per ITL rule, so they reach handleSummary', () => {
  const { cfg, plan: p } = plan();
  const th = summaryThresholds(p, cfg, true);
  const s = p.runs[0].scenario;
  for (const rule of ['server-counts', 'one-token-per-event', 'per-chunk']) assert.deepEqual(th[`llm_itl_rule{scenario:${s},itl_rule:${rule}}`], ['count>=0']);
  assert.ok(th[subKey('itlPerChunk', s)]);
  assert.ok(th[subKey('draftTokens', s)] && th[subKey('draftAccepted', s)]);
});

test('the run figures read the rule, the per-chunk gaps and the draft counts back', () => {
  const { plan: p } = plan();
  const run = p.runs[0];
  const s = run.scenario;
  const m: SummaryMetrics = {
    [subKey('success', s)]: { type: 'rate', values: { rate: 1, passes: 10, fails: 0 } },
    [subKey('itlRule', s, { itl_rule: 'one-token-per-event' })]: counter(10),
    [subKey('draftTokens', s)]: counter(130),
    [subKey('draftAccepted', s)]: counter(80),
  };
  let f = runFigures(m, p, run, false);
  assert.deepEqual(f.itlRule, { rule: 'one-token-per-event', requests: { 'one-token-per-event': 10 } });
  assert.deepEqual(f.draftAcceptance, { rate: 80 / 130, drafted: 130, accepted: 80 });
  m[subKey('itlRule', s, { itl_rule: 'per-chunk' })] = counter(2);
  f = runFigures(m, p, run, false);
  assert.deepEqual(f.itlRule, { rule: 'mixed', requests: { 'one-token-per-event': 10, 'per-chunk': 2 } });
  const none = runFigures({ [subKey('success', s)]: { type: 'rate', values: { rate: 1, passes: 3, fails: 0 } } }, p, run, false);
  assert.deepEqual(none.itlRule, { rule: null, requests: {} });
  assert.equal(none.draftAcceptance, null);
  assert.equal(none.itlPerChunk, null);
});

function mixedReport() {
  const r = sseReport();
  r.variants.push({ ...r.variants[0], variant: 'llama', engineLabel: 'llama.cpp b11669', dialect: 'openai' });
  const perToken = r.runs.slice(0, 4).map((x) => ({
    ...x,
    itlRule: { rule: 'one-token-per-event' as const, requests: { 'one-token-per-event': 40 } },
    draftAcceptance: { rate: 0.5, drafted: 100, accepted: 50 },
  }));
  const perChunk = r.runs
    .slice(0, 4)
    .map((x) => ({ ...x, variant: 'sim', itl: null, itlPerChunk: dist(33), itlRule: { rule: 'per-chunk' as const, requests: { 'per-chunk': 40 } } }));
  r.runs = [...perToken.map((x) => ({ ...x, variant: 'llama', scenario: `llama_${x.cellId}` })), ...perChunk];
  return r;
}

test('text, markdown and html say how ITL was measured and mark per-chunk values', () => {
  const r = mixedReport();
  const text = renderText(r, []);
  assert.match(text, /llama: ITL per token, one token per event/);
  assert.match(text, /sim: ITL per chunk only/);
  assert.match(text, /33 ms†/);
  assert.match(text, /llama: 50\.0% of draft tokens accepted \(200 of 400/);
  const md = renderMarkdown(r);
  assert.match(md, /\*\*How ITL was measured:\*\*/);
  assert.match(md, /- sim: ITL per chunk only/);
  assert.match(md, /33 ms†/);
  assert.match(md, /\*\*Speculative drafts:\*\*/);
  const html = renderHtml(r);
  assert.match(html, /per chunk †/);
  assert.match(html, /llama: ITL per token, one token per event/);
});

test('summary.json: itl_rule, per-rule counts, per-chunk ITL, draft acceptance', () => {
  const j = JSON.parse(summaryJson(mixedReport()));
  const llama = j.records.find((x: { variant: string }) => x.variant === 'llama');
  const sim = j.records.find((x: { variant: string }) => x.variant === 'sim');
  assert.equal(llama.itl_rule, 'one-token-per-event');
  assert.deepEqual(llama.itl_rule_requests, { 'one-token-per-event': 40 });
  assert.equal(llama.itl_per_chunk_ms, null);
  assert.equal(llama.draft_acceptance_rate, 0.5);
  assert.equal(llama.draft_tokens, 100);
  assert.equal(sim.itl_rule, 'per-chunk');
  assert.equal(sim.itl_ms, null);
  assert.equal(sim.itl_per_chunk_ms.p50, 33);
  assert.equal(sim.draft_acceptance_rate, null);
});
