// The simulator's image tokens: Qwen2-VL's smart_resize and 28-px merged patches, the size read
// from the PNG in the request, counted in the prompt through the chat template.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { imageTokens, pngSize, smartResize } from '../../sim/vision';
import { Tokenizer, applyChatTemplate } from '../../sim/tokenizer';
import { makeImage } from '../../lib/workload/seeded-images';
import { HttpError } from '../../sim/api/common';

test('Qwen2-VL counts: sides rounded to 28 px (halves to even), min and max pixels, plus start and end', () => {
  assert.equal(imageTokens(336, 336), 12 * 12 + 2);
  assert.equal(imageTokens(512, 512), 18 * 18 + 2); // 512/28 = 18.3 → 18
  assert.equal(imageTokens(640, 480), 23 * 17 + 2); // 22.86 → 23, 17.14 → 17
  assert.deepEqual(smartResize(70, 98), { height: 56, width: 112 }); // 2.5 → 2, 3.5 → 4 (halves to even)
  assert.deepEqual(smartResize(1, 1), { height: 56, width: 56 }); // scaled up to min_pixels 56·56
  const big = smartResize(2048, 2048); // past max_pixels 28·28·1280: scaled down, floored to 28
  assert.ok(big.height * big.width <= 28 * 28 * 1280 && big.height % 28 === 0, JSON.stringify(big));
});

test('the size comes from the PNG header of the data; anything else is a 400', () => {
  assert.deepEqual(pngSize(makeImage(1, 0, 40, 30).data), { width: 40, height: 30 });
  assert.throws(
    () => pngSize(Buffer.from('GIF89a........................').toString('base64')),
    (e: unknown) => e instanceof HttpError && e.status === 400,
  );
});

test('chat parts in the three shapes count the same image tokens in the prompt', () => {
  const t = new Tokenizer(151936);
  const img = makeImage(2, 0, 336, 336);
  const url = `data:image/png;base64,${img.data}`;
  const text = { type: 'text', text: 'hello' };
  const shapes = [
    [text, { type: 'image_url', image_url: { url } }],
    [
      { type: 'input_text', text: 'hello' },
      { type: 'input_image', image_url: url },
    ],
    [text, { type: 'image', source: { type: 'base64', media_type: 'image/png', data: img.data } }],
  ];
  const plain = t.encode(applyChatTemplate([{ role: 'user', content: 'hello' }])).length;
  for (const content of shapes) {
    const ids = t.encode(applyChatTemplate([{ role: 'user', content }]));
    assert.equal(t.imageTokens(ids), 146, JSON.stringify(content[1]).slice(0, 40));
    assert.equal(ids.length, plain + 146);
  }
  assert.equal(t.imageTokens(t.encode(applyChatTemplate([{ role: 'user', content: 'hello' }]))), 0);
  // A small vocabulary keeps the vision tokens below the ids text and output take.
  const small = new Tokenizer(2000);
  assert.equal(small.imageTokens(small.encode(applyChatTemplate([{ role: 'user', content: shapes[0] }]))), 146);
});
