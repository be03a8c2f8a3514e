// A fair A/B: variants' serving configurations compared, confounders named, AB_DIFFERS declared,
// the speculative method never a confounder, what one side does not show not compared; and the
// serving section and the verdict lines of a report built from setup data that carries them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compareServing, confoundedNote } from '../../../lib/report/figures/confounding';
import { serving } from '../../../lib/report/sections/serving-section';
import { parseAbDiffers } from '../../../lib/config/ab-differs';
import { ConfigError } from '../../../lib/config/parse';
import { loadConfig } from '../../../lib/config/load';
import { BENCHMARKS } from '../../../lib/benchmarks';
import type { ServingConfig, ServingSetting, SettingValue } from '../../../lib/engines/serving-config';

function cfg(values: Partial<Record<ServingSetting, SettingValue>>): ServingConfig {
  const settings: ServingConfig['settings'] = {};
  for (const [k, v] of Object.entries(values)) settings[k as ServingSetting] = { value: v as SettingValue, source: `GET /get_server_info ${k}` };
  return { settings, read: ['GET /get_server_info → 200'] };
}

const base = { engine: 'SGLang 0.5.5', model: 'm', max_running_requests: 48, cuda_graphs: true, tensor_parallel: 1, speculative_method: 'none' };

test('equal settings but the speculative method: not confounded; the method is the intended difference', () => {
  const c = compareServing(
    [
      { variant: 'none', serving: cfg(base) },
      { variant: 'dflash', serving: cfg({ ...base, speculative_method: 'DFLASH', speculative_draft_tokens: 16 }) },
    ],
    'none',
    [],
  )!;
  assert.equal(c.pairs.length, 1);
  assert.deepEqual(c.pairs[0].confounders, []);
  assert.equal(c.rows.find((r) => r.setting === 'speculative_method')!.mark, 'intended');
  assert.equal(c.rows.find((r) => r.setting === 'max_running_requests')!.mark, 'same');
  assert.equal(confoundedNote(c, 'dflash', 'none'), '');
});

test('one scheduling setting differs: confounded, naming it with both values', () => {
  const c = compareServing(
    [
      { variant: 'none', serving: cfg(base) },
      { variant: 'dflash', serving: cfg({ ...base, cuda_graphs: false, speculative_method: 'DFLASH' }) },
    ],
    'none',
    [],
  )!;
  assert.deepEqual(
    c.pairs[0].confounders.map((d) => [d.setting, d.values]),
    [['cuda_graphs', ['true', 'false']]],
  );
  assert.equal(c.rows.find((r) => r.setting === 'cuda_graphs')!.mark, 'differs');
  assert.equal(confoundedNote(c, 'dflash', 'none'), '; confounded: cuda_graphs differs (none: true, dflash: false)');
  // The A/B's verdict asks for the pair in its own order (a, b): the same note.
  assert.equal(confoundedNote(c, 'none', 'dflash'), confoundedNote(c, 'dflash', 'none'));
});

test('AB_DIFFERS declares a difference: shown as declared, not a confounder; the others still confound', () => {
  const c = compareServing(
    [
      { variant: 'mtp', serving: cfg(base) },
      { variant: 'dflash', serving: cfg({ ...base, max_running_requests: 32, tensor_parallel: 2 }) },
    ],
    'mtp',
    ['max_running_requests'],
  )!;
  assert.deepEqual(
    c.pairs[0].declared.map((d) => d.setting),
    ['max_running_requests'],
  );
  assert.deepEqual(
    c.pairs[0].confounders.map((d) => d.setting),
    ['tensor_parallel'],
  );
  assert.equal(c.rows.find((r) => r.setting === 'max_running_requests')!.mark, 'declared');
  assert.match(confoundedNote(c, 'dflash', 'mtp'), /^; confounded: tensor_parallel differs \(mtp: 1, dflash: 2\)$/);
});

test('a setting one side does not expose is not compared, never assumed equal; one no side exposes is listed apart', () => {
  const noLimit: Partial<Record<ServingSetting, SettingValue>> = { ...base };
  delete noLimit.max_running_requests;
  const c = compareServing(
    [
      { variant: 'a', serving: cfg(base) },
      { variant: 'b', serving: cfg(noLimit) },
    ],
    'a',
    [],
  )!;
  assert.deepEqual(c.pairs[0].notCompared, ['max_running_requests']);
  assert.deepEqual(c.pairs[0].confounders, []);
  assert.equal(c.rows.find((r) => r.setting === 'max_running_requests')!.mark, 'not_compared');
  assert.ok(c.exposedByNone.includes('dtype'));
  assert.ok(!c.rows.some((r) => r.setting === 'dtype'));
});

test('N variants: each against the baseline', () => {
  const c = compareServing(
    [
      { variant: 'none', serving: cfg(base) },
      { variant: 'mtp', serving: cfg(base) },
      { variant: 'dflash', serving: cfg({ ...base, model: 'other' }) },
    ],
    'none',
    [],
  )!;
  assert.deepEqual(
    c.pairs.map((p) => [p.variant, p.baseline, p.confounders.map((d) => d.setting)]),
    [
      ['mtp', 'none', []],
      ['dflash', 'none', ['model']],
    ],
  );
});

test('a record without configurations (an older release): no comparison', () => {
  assert.equal(compareServing([{ variant: 'a' }, { variant: 'b' }], 'a', []), null);
});

test('AB_DIFFERS: known names, trimmed; an unknown or a speculative name is refused with the list', () => {
  assert.deepEqual(parseAbDiffers(' max_running_requests , context_length,'), ['max_running_requests', 'context_length']);
  assert.deepEqual(parseAbDiffers(''), []);
  assert.throws(
    () => parseAbDiffers('np'),
    (e: Error) => e instanceof ConfigError && /unknown setting 'np'; known settings: engine, engine_version, model/.test(e.message),
  );
  assert.throws(() => parseAbDiffers('speculative_method'), /the difference an A\/B is about/);
});

test('the serving section: the variants side by side, the differing row marked, each pair said, what was read', () => {
  const c = compareServing(
    [
      { variant: 'dflash', serving: cfg(base) },
      { variant: 'mtp', serving: cfg({ ...base, max_running_requests: 8 }) },
    ],
    'dflash',
    [],
  )!;
  const text = serving.text(c, {} as never).join('\n');
  assert.match(text, /max_running_requests\s+48\s+8\s+≠ confounder/);
  assert.match(text, /MTP vs DFlash: confounded: max_running_requests differs \(DFlash: 48, MTP: 8\)/);
  assert.match(text, /DFlash read: GET \/get_server_info → 200/);
  assert.match(serving.markdown(c, {} as never).join('\n'), /\| max_running_requests \| 48 \| 8 \| ≠ confounder \|/);
  assert.match(serving.html(c, {} as never), /<tr class="confounder" data-mark="differs"><td>max_running_requests<\/td>/);
  const json = serving.json(c, {} as never) as { pairs: Array<{ confounded: boolean; confounders: Array<{ setting: string }> }> };
  assert.equal(json.pairs[0].confounded, true);
  assert.equal(json.pairs[0].confounders[0].setting, 'max_running_requests');
  assert.deepEqual(serving.warnings!(c), ['MTP vs DFlash is confounded: max_running_requests differs (DFlash: 48, MTP: 8)']);
});

test('AB_DIFFERS in the configuration: read by the A/B and compare benchmarks, a bad name stops the run with the list', () => {
  const spec = BENCHMARKS['dflash-vs-mtp'];
  const env = { DFLASH_URL: 'http://a:1', MTP_URL: 'http://b:2' };
  assert.deepEqual(loadConfig(spec, { ...env, AB_DIFFERS: 'max_running_requests' }, new Date(0)).abDiffers, ['max_running_requests']);
  assert.deepEqual(loadConfig(spec, env, new Date(0)).abDiffers, []);
  assert.throws(() => loadConfig(spec, { ...env, AB_DIFFERS: 'parallel' }, new Date(0)), /AB_DIFFERS: unknown setting 'parallel'/);
});
