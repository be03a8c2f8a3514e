// The k6 finder: version and xk6-sse read from `k6 version`, a warning for untested versions.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findK6, parseK6Version, versionWarning } from '../../scripts/k6-runtime';

const SSE_BUILD = 'k6-1.3.0-sse v1.3.0 (commit/devel, go1.23.5, linux/amd64)\nExtensions:\n  github.com/phymbert/xk6-sse v0.1.12, k6/x/sse [js]\n';

test('k6 version: version, major and minor; xk6-sse found by its module name, whatever the Go module is called', () => {
  const a = parseK6Version('/k6', SSE_BUILD);
  assert.deepEqual([a.version, a.major, a.minor, a.hasSse], ['v1.3.0', 1, 3, true]);
  const renamed = parseK6Version('/k6', 'k6 v2.2.0 (go1.27.3, linux/amd64)\nExtensions:\n  example.com/fork/sse-ext v0.0.1, k6/x/sse [js]\n');
  assert.deepEqual([renamed.version, renamed.hasSse], ['v2.2.0', true]);
  const stock = parseK6Version('/k6', 'k6 v2.2.0 (commit/devel, go1.27.3, linux/amd64)\n');
  assert.deepEqual([stock.major, stock.hasSse], [2, false]);
  // A repository named xk6-sse that registers another module is not the extension.
  const other = parseK6Version('/k6', 'k6 v1.3.0\nExtensions:\n  github.com/someone/xk6-sse-tools v1.0.0, k6/x/ssetools [js]\n');
  assert.equal(other.hasSse, false);
});

test('versions the suite is tested on pass quietly; others get one line saying which are', () => {
  assert.equal(versionWarning(parseK6Version('/k6', SSE_BUILD)), null);
  assert.equal(versionWarning(parseK6Version('/k6', 'k6 v2.2.1 (x)\n')), null);
  assert.match(versionWarning(parseK6Version('/k6', 'k6 v0.49.0 (x)\n')) ?? '', /older than the versions this suite is tested on \(v1\.3, v2\.2\)/);
  assert.match(versionWarning(parseK6Version('/k6', 'k6 v1.5.0 (x)\n')) ?? '', /k6 v1\.5\.0: the suite is tested on v1\.3 and v2\.2/);
  assert.match(versionWarning(parseK6Version('/k6', 'something else\n')) ?? '', /could not read k6's version/);
});

test('K6_BIN wins over PATH; a K6_BIN that is not executable finds nothing rather than another k6', () => {
  const dir = mkdtempSync(join(tmpdir(), 'k6-find-'));
  const onPath = join(dir, 'k6');
  writeFileSync(onPath, '#!/bin/sh\n');
  chmodSync(onPath, 0o755);
  assert.equal(findK6({ PATH: dir }), onPath);
  assert.equal(findK6({ PATH: dir, K6_BIN: onPath }), onPath);
  assert.equal(findK6({ PATH: dir, K6_BIN: join(dir, 'missing') }), null);
  assert.equal(findK6({ PATH: '' }), null);
});
