// A dataset row's own images: parsed as file names, read once each from beside the dataset file,
// typed by their first bytes, sent with the row's first request; bad lists and files stop the run
// with one line.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseDataset, DatasetError } from '../../../lib/dataset/format';
import { imagePath, readRowImages, sniffImage } from '../../../lib/dataset/row-images';
import { buildStore } from '../../../lib/dataset/store';
import { encodePng } from '../../../lib/workload/png';

const png = encodePng(40, 30, new Uint8Array(40 * 30 * 3));
const b64 = (b: Uint8Array) => Buffer.from(b).toString('base64');

test('rows name image files; each is read once, typed by its bytes, and kept base64 with the row', () => {
  const ds = parseDataset(
    ['{"prompt": "what is this", "images": ["a.png", "a.png"]}', '{"prompt": "plain"}', '{"prompt": "b", "images": ["/abs/b.jpg"]}'].join('\n'),
    {
      file: 'data/set.jsonl',
    },
  );
  const reads: string[] = [];
  const files: Record<string, Uint8Array> = { 'data/a.png': png, '/abs/b.jpg': new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 0, 0]) };
  const rows = readRowImages(ds, 'data/set.jsonl', (p) => (reads.push(p), files[p]), b64);
  assert.equal(rows, 2);
  assert.deepEqual(reads, ['data/a.png', '/abs/b.jpg'], 'each file once');
  const [a, plain, b] = ds.items;
  assert.deepEqual(
    a.images?.map((i) => [i.mediaType, i.width, i.height]),
    [
      ['image/png', 40, 30],
      ['image/png', 40, 30],
    ],
  );
  assert.equal(a.images?.[0].data, b64(png));
  assert.equal(plain.images, undefined);
  assert.equal(b.images?.[0].mediaType, 'image/jpeg');
  assert.equal(buildStore(ds, 1, false).meta.withImages, 2);
});

test('bad image lists and files: one line naming the row', () => {
  for (const bad of ['[]', '"a.png"', '[1]', '["a","b","c","d","e","f","g","h","i"]'])
    assert.throws(
      () => parseDataset(`{"prompt": "x", "images": ${bad}}`, { file: 'd.jsonl' }),
      (e: unknown) => e instanceof DatasetError && /images must be a list of 1 to 8/.test(e.message),
      bad,
    );
  const ds = parseDataset('{"id": "r1", "prompt": "x", "images": ["t.txt"]}', { file: 'd.jsonl' });
  assert.throws(() => readRowImages(ds, 'd.jsonl', () => new TextEncoder().encode('hello'), b64), /row r1: t.txt is not a PNG, JPEG, GIF or WebP/);
  assert.throws(
    () =>
      readRowImages(
        ds,
        'd.jsonl',
        () => {
          throw new Error('no such file');
        },
        b64,
      ),
    /row r1: cannot read image t.txt .*no such file/,
  );
});

test('media types by magic bytes; paths beside the dataset', () => {
  assert.equal(sniffImage(png), 'image/png');
  assert.equal(sniffImage(new TextEncoder().encode('GIF89a')), 'image/gif');
  assert.equal(sniffImage(new TextEncoder().encode('RIFF\0\0\0\0WEBPVP8 ')), 'image/webp');
  assert.equal(sniffImage(new Uint8Array([1, 2, 3])), null);
  assert.equal(imagePath('../data/set.jsonl', 'img/a.png'), '../data/img/a.png');
  assert.equal(imagePath('set.jsonl', 'a.png'), 'a.png');
  assert.equal(imagePath('/d/set.jsonl', '/x/a.png'), '/x/a.png');
});
