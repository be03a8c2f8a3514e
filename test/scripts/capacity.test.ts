// npm run capacity's front: bad settings stop before any k6 run with one line naming the variable;
// the reports render the answer, the path and where each SLO broke, from one model.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCapacity, type K6Exec } from '../../scripts/capacity';
import { buildCapacityReport, capacityJson, renderCapacityMarkdown, renderCapacityText } from '../../lib/capacity/capacity-report';
import { renderCapacityHtml } from '../../lib/capacity/html';
import { capacitySeries } from '../../lib/capacity/prometheus';
import type { VariantSearch } from '../../lib/capacity/runner';
import type { Measure } from '../../lib/capacity/observe';
import { settings } from '../lib/capacity/fixtures';

const neverRun: K6Exec = async () => {
  throw new Error('no k6 run may start on bad settings');
};

test('bad settings: exit 108 and one line naming the variable, before any load', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'cap-'));
  const base = { TARGET_URL: 'http://127.0.0.1:9', RESULTS_DIR: dir };
  const cases: Array<[Record<string, string>, RegExp]> = [
    [{ SLO_TTFT_P99: '500', TRANSPORT: 'http' }, /SLO_TTFT_P99 and SLO_ITL_P99 need TRANSPORT=sse/],
    [{ SLO_E2E_P99: 'soon' }, /SLO_E2E_P99='soon' is not valid/],
    [{ SLO_E2E_P99: '1s', OSL: 'lots' }, /OSL='lots' is not valid/],
    [{ SLO_E2E_P99: '1s', TARGET_URL: 'ftp://x' }, /TARGET_URL=.* is not valid/],
    [{ SLO_E2E_P99: '1s', RESULTS_DIR: join(dir, 'missing') }, /RESULTS_DIR=.*no such folder/],
    [{ SLO_E2E_P99: '1s', TARGET_URL: '', DFLASH_URL: 'http://a:1' }, /MTP_URL is not set/],
    [{ SLO_E2E_P99: '1s', CAPACITY_LOOP: 'open', CAPACITY_MAX_LOAD: '100', MAX_VUS: '0' }, /MAX_VUS='0'/],
  ];
  for (const [env, re] of cases) {
    const out = await runCapacity({ env: { ...base, ...env }, exec: neverRun, prometheus: false, log: () => undefined });
    assert.equal(out.code, 108, JSON.stringify(env));
    assert.match(out.message ?? '', re);
    assert.ok(!(out.message ?? '').includes('\n'), out.message);
    assert.equal(out.report, null);
  }
});

const m = (key: Measure['key'], value: number, limit: number): Measure => ({
  key,
  limit,
  n: 500,
  value,
  lo: value * 0.95,
  hi: value * 1.05,
  upperOpen: false,
  clear: true,
  pass: value <= limit,
});
const point = (step: number, load: number, e2e: number) => ({
  step,
  load,
  measures: [m('e2e', e2e, 500)],
  pass: e2e <= 500,
  runs: 1,
  loadMs: 10_000,
  requests: { ok: 100, failed: 0 },
  undecided: false,
  goodput: load * 2,
  throughput: null,
  dropped: 0,
  clientLimited: [],
  errors: {},
});

test('reports: the answer with its interval and ratio, the path, where each SLO broke; nothing secret, html escaped', () => {
  const s = settings({ SLO_E2E_P99: '500ms' });
  const a: VariantSearch = {
    variant: 'dflash',
    runs: 6,
    stop: { kind: 'converged', reason: 'converged' },
    points: [1, 2, 4, 8, 16, 12, 10, 11].map((x, i) => point(i + 1, x, 100 + 40 * x)),
  };
  const b: VariantSearch = {
    variant: 'mtp',
    runs: 5,
    stop: { kind: 'converged', reason: 'converged' },
    points: [1, 2, 4, 8, 6, 5].map((x, i) => point(i + 1, x, 100 + 80 * x)),
  };
  const r = buildCapacityReport(s, [a, b], { runId: 'cap<1>', now: new Date(0), durationMs: 1000, transport: 'http', workload: { ISL: '512' } });
  assert.match(r.headline, /^At p99 e2e ≤ 500 ms: DFlash 10 \[\d+, \d+\] concurrent streams, MTP 5 \[\d+, \d+\] concurrent streams: DFlash ÷ MTP = 2\.\d+× \[/);
  const text = renderCapacityText(s, r);
  assert.match(text, /DFlash: p99 e2e \(SLO_E2E_P99\) first broke at 11 streams \(step 8\)/);
  assert.match(text, /MTP: p99 e2e \(SLO_E2E_P99\) first broke at 6 streams \(step 5\)/);
  const md = renderCapacityMarkdown(s, r);
  assert.match(md, /\| DFlash \| 5 \| 16 \| no \|/);
  const html = renderCapacityHtml(s, r);
  assert.ok(html.includes('cap&lt;1&gt;') && !html.includes('cap<1>'));
  assert.match(html, /<svg/);
  assert.match(html, /data-series="SLO 500 ms"/);
  const series = capacitySeries(s, r, 0);
  assert.deepEqual(
    series.filter((x) => x.labels.__name__ === 'k6_llm_capacity').map((x) => [x.labels.variant, Math.round(x.value * 10) / 10]),
    [
      ['dflash', r.variants[0].capacity.crossing && Math.round(r.variants[0].capacity.crossing * 10) / 10],
      ['mtp', r.variants[1].capacity.crossing && Math.round(r.variants[1].capacity.crossing * 10) / 10],
    ],
  );
  assert.ok(series.some((x) => x.labels.__name__ === 'k6_llm_capacity_ratio' && x.labels.a === 'dflash'));
});

test('summary.json: variants, and the old targets keys one release more beside them, said in renamed_keys', () => {
  const s = settings({ SLO_E2E_P99: '500ms' });
  const a: VariantSearch = { variant: 'dflash', runs: 2, stop: { kind: 'converged', reason: 'converged' }, points: [point(1, 1, 140), point(2, 2, 180)] };
  const r = buildCapacityReport(s, [a], { runId: 'cap', now: new Date(0), durationMs: 1000, transport: 'http', workload: { variants: 'dflash', ISL: '512' } });
  const j = JSON.parse(capacityJson(r)) as Record<string, unknown> & { workload: Record<string, string>; renamed_keys: Record<string, string> };
  assert.deepEqual(j.variants, JSON.parse(JSON.stringify(r.variants)));
  assert.deepEqual(j.targets, j.variants);
  assert.deepEqual(j.workload, { variants: 'dflash', targets: 'dflash', ISL: '512' });
  assert.deepEqual(Object.keys(j).slice(0, 11), [
    'format',
    'runId',
    'generatedAt',
    'durationMs',
    'transport',
    'loop',
    'workload',
    'criteria',
    'settings',
    'variants',
    'targets',
  ]);
  assert.match(j.renamed_keys.targets, /^renamed variants;/);
  assert.match(j.renamed_keys['workload.targets'], /^renamed workload\.variants;/);
});
