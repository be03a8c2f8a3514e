import { test } from 'node:test';
import assert from 'node:assert/strict';

test('toolchain runs TypeScript tests', () => {
  const xs: number[] = [1, 2, 3];
  assert.equal(xs.reduce((a, b) => a + b, 0), 6);
});
