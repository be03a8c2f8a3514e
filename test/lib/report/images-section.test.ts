// The Images section: image tokens and TTFT cost as differences against the same variant's cell
// without images, and "not measured" with the reason where a side is missing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { images } from '../../../lib/report/sections/images-section';
import { buildCells, buildPlan } from '../../../lib/plan/matrix';
import { subKey } from '../../../lib/plan/summary-keys';
import { parseImages } from '../../../lib/config/images-config';
import type { SectionInputs } from '../../../lib/report/sections/section';
import type { RunFigures } from '../../../lib/report/figures/run-figures';

function inputs(spec: string, prompts: Record<string, number | null>, ttft: Record<string, number | null>) {
  const cells = buildCells([64], [8], [{ kind: 'vus', vus: 2 }], parseImages(spec));
  const plan = buildPlan({ durationMs: 1000, gracefulStopMs: 0, slices: 1, requests: null, maxVus: 8 }, cells, ['a', 'b']);
  const runs = plan.runs.map(
    (r) =>
      ({
        scenario: r.scenario,
        variant: r.variant,
        cellId: r.cell.id,
        isl: 64,
        osl: 8,
        load: r.cell.load,
        ttft: ttft[r.scenario] == null ? null : { avg: (ttft[r.scenario] as number) + 1, p50: ttft[r.scenario], p90: 0, p99: 0, max: 0, count: 5 },
      }) as unknown as RunFigures,
  );
  const metrics: Record<string, { values: Record<string, number> }> = {};
  for (const [s, v] of Object.entries(prompts)) if (v !== null) metrics[subKey('promptLength', s)] = { values: { avg: v, count: 5 } };
  return { runs, plan, data: { metrics } } as unknown as SectionInputs;
}

test('image tokens and TTFT cost: with minus without, per variant', () => {
  const rows = images.build(
    inputs(
      '0,1x336x336',
      { a_i64_o8_c2: 80, b_i64_o8_c2: 81, a_i64_o8_img1x336x336_c2: 226, b_i64_o8_img1x336x336_c2: 227 },
      { a_i64_o8_c2: 10, b_i64_o8_c2: 12, a_i64_o8_img1x336x336_c2: 30, b_i64_o8_img1x336x336_c2: 50 },
    ),
  );
  assert.ok(rows);
  assert.deepEqual(rows.map((r) => [r.variant, r.baselineCell, r.imageTokens, r.ttftCostP50Ms, r.ttftCostMeanMs]).sort(), [
    ['a', 'i64_o8_c2', 146, 20, 20],
    ['b', 'i64_o8_c2', 146, 38, 38],
  ]);
  const json = images.json(rows, {} as never) as Array<Record<string, unknown>>;
  assert.equal(json[0].image_tokens_per_request, 146);
  assert.equal(json[0].image_tokens_not_measured, null);
});

test('not measured, with the reason: no cell without images, no prompt count, no TTFT', () => {
  const alone = images.build(inputs('1x336x336', { a_i64_o8_img1x336x336_c2: 226 }, { a_i64_o8_img1x336x336_c2: 30 }));
  assert.equal(alone?.[0].imageTokens, null);
  assert.match(String(alone?.[0].imageTokensWhy), /no run without images/);
  assert.match(String(alone?.[0].ttftWhy), /no run without images/);
  const counts = images.build(inputs('0,1x336x336', { a_i64_o8_c2: 80 }, {}));
  const a = counts?.find((r) => r.variant === 'a');
  assert.equal(a?.imageTokens, null);
  assert.match(String(a?.imageTokensWhy), /replies with images gave no prompt_tokens/);
  assert.match(String(a?.ttftWhy), /no TTFT was measured/);
  assert.ok(images.text(counts ?? [], {} as never).some((l) => l.includes('image tokens not measured')));
  assert.equal(images.build(inputs('0', {}, {})), null, 'no section without images');
});
