import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigError } from '../../../lib/config/parse';
import { BUILTIN_DOMAINS, builtinDataset, builtinItems, isBuiltinSpec } from '../../../lib/dataset/builtin';
import { userTurns } from '../../../lib/dataset/format';

test('the built-in set: a few hundred prompts, every domain well represented, ids unique', () => {
  const items = builtinItems();
  assert.ok(items.length >= 300 && items.length <= 500, `${items.length} items`);
  const per = new Map<string, number>();
  for (const it of items) per.set(it.domain ?? '', (per.get(it.domain ?? '') ?? 0) + 1);
  assert.deepEqual([...per.keys()], [...BUILTIN_DOMAINS]);
  for (const d of BUILTIN_DOMAINS) assert.ok((per.get(d) ?? 0) >= 50, `${d}: ${per.get(d)}`);
  assert.equal(new Set(items.map((i) => i.id)).size, items.length);
  assert.match(items[0].id, /^code-001$/);
});

test('no empty prompt, no duplicate, no leftover template slot, every item ready to send', () => {
  const items = builtinItems();
  const seen = new Set<string>();
  for (const it of items) {
    assert.ok(it.turns.length >= 1, it.id);
    assert.equal(it.outputTokens, null);
    for (const t of it.turns) {
      assert.ok(t.content.trim().length >= 20, `${it.id}: short turn ${JSON.stringify(t.content)}`);
      assert.doesNotMatch(t.content, /\$\{|\bundefined\b(?! behaviour)(?!')|\bNaN\b|\[object /, `${it.id}: template leftover`);
      assert.equal(t.content, t.content.trim(), `${it.id}: stray whitespace`);
    }
    assert.equal(it.turns[0].role, 'user', it.id);
    assert.equal(it.turns[it.turns.length - 1].role, 'user', `${it.id} ends with a user turn to answer`);
    const key = JSON.stringify(it.turns);
    assert.ok(!seen.has(key), `${it.id} duplicates another item`);
    seen.add(key);
  }
});

test('chat has multi-turn conversations of 2–4 user turns, alternating roles; other domains are single-turn', () => {
  const items = builtinItems();
  const multi = items.filter((i) => userTurns(i) > 1);
  assert.ok(multi.length >= 15, `${multi.length} conversations`);
  for (const it of multi) {
    assert.equal(it.domain, 'chat', it.id);
    assert.ok(userTurns(it) >= 2 && userTurns(it) <= 4, `${it.id}: ${userTurns(it)} user turns`);
    it.turns.forEach((t, k) => assert.equal(t.role, k % 2 === 0 ? 'user' : 'assistant', `${it.id} turn ${k}`));
  }
  for (const d of ['code', 'math', 'summarization']) for (const it of items.filter((i) => i.domain === d)) assert.equal(it.turns.length, 1, it.id);
});

test('each domain reads as its kind of request', () => {
  const items = builtinItems();
  const share = (d: string, re: RegExp) => {
    const its = items.filter((i) => i.domain === d);
    return its.filter((i) => re.test(i.turns[0].content)).length / its.length;
  };
  assert.ok(share('code', /\b(function|code|Python|SQL|script|Dockerfile|regular expression|API|workflow|class|loop|process)\b/) > 0.95);
  assert.ok(share('math', /\b(prove|probability|solve|find|how (long|much|many|far|high)|what (is|are)|show|compute|explain)\b/i) > 0.95);
  assert.ok(share('summarization', /summar|key points|TL;DR/i) === 1);
  assert.ok(share('chat', /\?/) > 0.9);
});

test('deterministic: the same items on every call, in the same order', () => {
  assert.deepEqual(builtinItems(), builtinItems());
  assert.deepEqual(
    builtinItems(['math']),
    builtinItems().filter((i) => i.domain === 'math'),
  );
});

test('DATASET=builtin and builtin:DOMAINS; unknown domains and other values are refused', () => {
  assert.ok(isBuiltinSpec('builtin'));
  assert.ok(isBuiltinSpec(' builtin:code '));
  assert.ok(!isBuiltinSpec('builtins.jsonl'));
  assert.ok(!isBuiltinSpec('data/builtin.jsonl'));
  const all = builtinDataset('builtin');
  assert.equal(all.items.length, builtinItems().length);
  assert.equal(all.source, 'DATASET=builtin');
  const two = builtinDataset('builtin:math, code');
  assert.deepEqual([...new Set(two.items.map((i) => i.domain))], ['math', 'code'], 'in the order asked');
  assert.equal(two.source, 'DATASET=builtin:math, code');
  assert.throws(
    () => builtinDataset('builtin:poetry'),
    (e: Error) =>
      e instanceof ConfigError &&
      e.message ===
        "DATASET='builtin:poetry' is not valid: expected builtin, or builtin:DOMAINS with DOMAINS a " +
          "comma-separated list of code, math, chat, summarization; 'poetry' is not one.",
  );
  assert.throws(() => builtinDataset('builtin:'), /DATASET='builtin:' is not valid: expected builtin, or builtin:DOMAINS/);
  assert.throws(() => builtinDataset('data.jsonl', 'PROMPTS'), /^ConfigError: PROMPTS='data.jsonl' is not valid/);
});
