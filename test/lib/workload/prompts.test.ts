import { test } from 'node:test';
import assert from 'node:assert/strict';
import { poolLengths, promptIndex, textPromptPool, tokenPromptPool, type PromptSpec } from '../../../lib/workload/seeded-prompts';

const spec: PromptSpec = { isl: 100, poolSize: 16, seed: 7, vocabSize: 32000, idFloor: 1000, sharedPrefix: 0, spread: 0 };

test('token prompts have exactly ISL ids inside [floor, vocab)', () => {
  const pool = tokenPromptPool(spec);
  assert.equal(pool.length, 16);
  for (const p of pool) {
    const ids = JSON.parse(p) as number[];
    assert.equal(ids.length, 100);
    for (const id of ids) assert.ok(Number.isInteger(id) && id >= 1000 && id < 32000, `id ${id}`);
  }
  assert.notEqual(pool[0], pool[1], 'prompts differ');
});
test('the same seed gives the same pool; another seed another', () => {
  assert.deepEqual(tokenPromptPool(spec), tokenPromptPool(spec));
  assert.notDeepEqual(tokenPromptPool(spec), tokenPromptPool({ ...spec, seed: 8 }));
});
test('a shared prefix is identical across prompts', () => {
  const pool = tokenPromptPool({ ...spec, sharedPrefix: 30 }).map((p) => JSON.parse(p) as number[]);
  for (const ids of pool) assert.deepEqual(ids.slice(0, 30), pool[0].slice(0, 30));
  assert.notDeepEqual(pool[0].slice(30), pool[1].slice(30));
});
test('spread: lengths cover [isl(1-s), isl(1+s)] with mean isl', () => {
  const lengths = poolLengths({ ...spec, poolSize: 11, spread: 0.5 });
  assert.equal(Math.min(...lengths), 50);
  assert.equal(Math.max(...lengths), 150);
  assert.equal(lengths.reduce((a, b) => a + b, 0) / lengths.length, 100);
  const pool = tokenPromptPool({ ...spec, poolSize: 11, spread: 0.5 });
  assert.deepEqual(
    pool.map((p) => (JSON.parse(p) as number[]).length),
    lengths,
  );
});
test('text prompts have ISL words', () => {
  for (const t of textPromptPool({ ...spec, sharedPrefix: 10 })) assert.equal(t.split(' ').length, 100);
});

test('promptIndex: VUs together cover the pool evenly, each within its own block', () => {
  for (const [slots, pool] of [
    [1, 64],
    [3, 64],
    [8, 64],
    [64, 64],
    [1000, 64],
    [5, 7],
  ]) {
    const uses = new Map<number, number>();
    for (let s = 0; s < slots; s++) {
      const mine = new Set<number>();
      for (let k = 0; k < 200; k++) {
        const i = promptIndex(s, k, slots, pool);
        assert.ok(i >= 0 && i < pool);
        mine.add(i);
        uses.set(i, (uses.get(i) ?? 0) + 1);
      }
      assert.ok(mine.size <= Math.ceil(pool / slots), `slot ${s} of ${slots} touched ${mine.size} prompts`);
    }
    assert.equal(uses.size, Math.min(pool, slots * Math.ceil(pool / slots)), `slots ${slots} pool ${pool}`);
  }
});
