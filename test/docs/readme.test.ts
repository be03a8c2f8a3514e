import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { FILES, render } from '../../scripts/docs';
import { VARIABLES } from '../../lib/config/variables';
import { METRICS } from '../../lib/metrics/catalog';

const root = join(__dirname, '..', '..');
const readme = readFileSync(join(root, 'README.md'), 'utf8');

test('the README tables match the code (npm run docs regenerates them)', () => {
  assert.equal(render(readme), readme, 'README.md is out of date: run `npm run docs`');
});

test('every variable and every metric is documented', () => {
  for (const v of VARIABLES) assert.ok(readme.includes(`| \`${v.name}\` |`), v.name);
  for (const m of Object.values(METRICS)) assert.ok(readme.includes(`| \`${m.name}\` |`), m.name);
});

test('the README names the setup-and-run command and the test command, and both scripts exist', () => {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
  assert.match(readme, /npm ci && npm start/);
  assert.match(readme, /npm ci && npm test/);
  assert.ok(pkg.scripts.start && pkg.scripts.test);
});

test('every scenario file has a bundle row', () => {
  for (const f of ['dflash-vs-mtp', 'concurrency-ramp', 'context-matrix', 'arrival-rate', 'smoke']) assert.ok(readme.includes(`dist/${f}.js`), f);
});

test('docs/faults.md holds the fault matrix the tests run (npm run docs regenerates it)', () => {
  const file = 'docs/faults.md';
  const text = readFileSync(join(root, file), 'utf8');
  assert.equal(render(text, FILES[file], file), text, `${file} is out of date: run \`npm run docs\``);
});
