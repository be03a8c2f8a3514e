import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Tokenizer, applyChatTemplate } from '../../sim/tokenizer';

test('tokenizer: the documented counting rule', () => {
  const t = new Tokenizer(151936);
  const n = (s: string) => t.encode(s).length;
  assert.equal(n(''), 0);
  assert.equal(n('hello'), 1);
  assert.equal(n('hello world'), 2);
  assert.equal(n('extraordinary'), 3); // extrao rdinar y: runs of at most 6 letters
  assert.equal(n('a, b.'), 4);
  assert.equal(n('  spaced  '), 2); // leading whitespace joins the word; trailing whitespace is one token
  assert.equal(n('<|im_start|>user\nhi<|im_end|>'), 4);
  assert.deepEqual(t.encode('<|im_start|><|im_end|><|endoftext|>'), [151644, 151645, 151643]);
  assert.deepEqual(t.encode('same text'), t.encode('same text'));
});

test('tokenizer: ids stay inside a small vocabulary; decoding is a pure function of the ids', () => {
  const t = new Tokenizer(2000);
  for (const id of t.encode('The quick brown fox jumps over the lazy dog, 1234567890 times!')) assert.ok(id >= 0 && id < 2000);
  assert.equal(t.eosId, 1999);
  assert.equal(t.decodeOne(1234), new Tokenizer(2000).decodeOne(1234));
  assert.match(t.decode([1001, 1002, 1003]), /^[ a-z]+$/);
  assert.equal(t.decodeOne(t.eosId), '');
});

test('chat template: ChatML with text parts, then the assistant prefix', () => {
  const s = applyChatTemplate([
    { role: 'system', content: 'Be brief.' },
    {
      role: 'user',
      content: [
        { type: 'text', text: 'Hi' },
        { type: 'input_audio', input_audio: {} },
      ],
    },
  ]);
  assert.equal(s, '<|im_start|>system\nBe brief.<|im_end|>\n<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n');
  // An image part must carry its image (vision.ts counts it): one without is refused, as a vision engine refuses it.
  assert.throws(() => applyChatTemplate([{ role: 'user', content: [{ type: 'image_url', image_url: {} }] }]), /Failed to load image/);
});
