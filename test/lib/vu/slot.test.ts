// A VU's slot in its run: the first iterations' numbers when they are a slot each, else the VU id's residue.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runSlot } from '../../../lib/vu/slot';

test("a closed loop's VUs lent out of order (ids 2, 4, 6, 8 for 4 VUs) still get slots 0-3 once each", () => {
  const ids = [2, 4, 6, 8];
  const byModulo = ids.map((id) => (id - 1) % 4);
  assert.notDeepEqual([...new Set(byModulo)].sort(), [0, 1, 2, 3], 'the residues repeat: the case this guards');
  // Their first iterations start at once, numbered 0..3 in whatever order k6 starts them.
  const firsts = [2, 0, 3, 1];
  const slots = ids.map((id, i) => runSlot(firsts[i], id, 4));
  assert.deepEqual([...slots].sort(), [0, 1, 2, 3]);
});

test('a VU whose first iteration came after the first vus ones (open loop) keeps its id residue', () => {
  assert.equal(runSlot(7, 3, 4), 2);
  assert.equal(runSlot(4, 1, 4), 0);
  assert.equal(runSlot(0, 9, 1), 0);
  assert.equal(runSlot(Number.NaN, 6, 4), 1);
});
