import { test } from 'node:test';
import assert from 'node:assert/strict';
import { resultsDirProbePath, resultsDirState } from '../../../lib/config/results-dir';

test('RESULTS_DIR is probed where the run writes: absolute as is, relative under the working folder, unknown without one', () => {
  assert.equal(resultsDirProbePath('/tmp/out', undefined), '/tmp/out');
  assert.equal(resultsDirProbePath('results', '/home/me/bench/'), '/home/me/bench/results');
  assert.equal(resultsDirProbePath('results', undefined), null);
  assert.equal(resultsDirProbePath('results', 'C:relative'), null);
});

test("open()'s failure tells a folder from nothing; anything else decides nothing", () => {
  assert.equal(resultsDirState('GoError: open() can\'t be used with directories, path: "/tmp/x"'), 'folder');
  assert.equal(resultsDirState('GoError: open /tmp/x: no such file or directory'), 'missing');
  assert.equal(resultsDirState(null), 'file');
  assert.equal(resultsDirState("open() can't be used with files that weren't previously opened during initialization (__VU==0)"), 'unknown');
});
