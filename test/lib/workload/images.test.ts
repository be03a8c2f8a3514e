// The PNG encoder read back by a PNG reader's steps (signature, IHDR, each chunk's CRC-32, the
// IDAT's zlib stream inflated by Node's zlib), the seeded images, and IMAGES's parsing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { inflateSync } from 'node:zlib';
import { adler32, base64, crc32, encodePng, zlibStored } from '../../../lib/workload/png';
import { ImageCache, imagePixels, makeImage, planImages } from '../../../lib/workload/seeded-images';
import { imagesConfig, parseImages } from '../../../lib/config/images-config';
import { ConfigError } from '../../../lib/config/parse';
import { buildCells } from '../../../lib/plan/matrix';

interface Chunk {
  type: string;
  data: Buffer;
  crc: number;
}

/** A PNG's chunks, as a reader walks them. */
function chunks(png: Buffer): Chunk[] {
  assert.deepEqual([...png.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], 'PNG signature');
  const out: Chunk[] = [];
  for (let o = 8; o < png.length;) {
    const len = png.readUInt32BE(o);
    out.push({ type: png.toString('latin1', o + 4, o + 8), data: png.subarray(o + 8, o + 8 + len), crc: png.readUInt32BE(o + 8 + len) });
    o += 12 + len;
  }
  return out;
}

test('CRC-32 and Adler-32 give the published check values', () => {
  const check = new TextEncoder().encode('123456789');
  assert.equal(crc32(check), 0xcbf43926);
  assert.equal(adler32(new TextEncoder().encode('Wikipedia')), 0x11e60398);
  // The IEND chunk's CRC every PNG ends with.
  assert.equal(crc32(new TextEncoder().encode('IEND')), 0xae426082);
});

test('a PNG reads back: IHDR, every CRC, and the IDAT inflates (Node zlib) to the filtered pixel rows', () => {
  const [w, h] = [37, 5];
  const px = imagePixels(3, 0, w, h);
  const png = Buffer.from(encodePng(w, h, px));
  const cs = chunks(png);
  assert.deepEqual(
    cs.map((c) => c.type),
    ['IHDR', 'IDAT', 'IEND'],
  );
  for (const c of cs) assert.equal(c.crc, crc32(Buffer.concat([Buffer.from(c.type, 'latin1'), c.data])), `${c.type} CRC`);
  const ihdr = cs[0].data;
  assert.equal(ihdr.readUInt32BE(0), w);
  assert.equal(ihdr.readUInt32BE(4), h);
  assert.deepEqual([...ihdr.subarray(8)], [8, 2, 0, 0, 0], 'bit depth 8, RGB, deflate, filter 0, no interlace');
  const raw = inflateSync(cs[1].data);
  assert.equal(raw.length, (w * 3 + 1) * h);
  for (let y = 0; y < h; y++) {
    assert.equal(raw[y * (w * 3 + 1)], 0, `row ${y} filter byte`);
    assert.deepEqual([...raw.subarray(y * (w * 3 + 1) + 1, (y + 1) * (w * 3 + 1))], [...px.subarray(y * w * 3, (y + 1) * w * 3)], `row ${y}`);
  }
});

test('stored blocks split at 65,535 bytes and the stream still inflates (a 336×336 image: 6 blocks)', () => {
  const raw = new Uint8Array(200_000).map((_, i) => (i * 7) & 0xff);
  assert.deepEqual([...inflateSync(Buffer.from(zlibStored(raw)))], [...raw]);
  assert.deepEqual([...inflateSync(Buffer.from(zlibStored(new Uint8Array(0))))], []);
  const png = Buffer.from(encodePng(336, 336, imagePixels(1, 0, 336, 336)));
  assert.equal(inflateSync(chunks(png)[1].data).length, (336 * 3 + 1) * 336);
});

test('base64 matches Node for every length remainder', () => {
  for (const n of [0, 1, 2, 3, 4, 5, 13000]) {
    const b = new Uint8Array(n).map((_, i) => (i * 31 + 7) & 0xff);
    assert.equal(base64(b), Buffer.from(b).toString('base64'), `${n} bytes`);
  }
});

test('images are the same for the same seed, index and size, and differ otherwise; a cache reads each once', () => {
  assert.equal(makeImage(5, 0, 16, 8).data, makeImage(5, 0, 16, 8).data);
  assert.notEqual(makeImage(5, 0, 16, 8).data, makeImage(6, 0, 16, 8).data);
  assert.notEqual(makeImage(5, 0, 16, 8).data, makeImage(5, 1, 16, 8).data);
  assert.equal(makeImage(5, 0, 16, 8, (b) => Buffer.from(b).toString('base64')).data, makeImage(5, 0, 16, 8).data, 'a native base64 gives the same');
  const cells = buildCells([64], [16], [{ kind: 'vus', vus: 2 }], parseImages('0,2x16x8,1x16x8'));
  const keys = planImages(cells);
  assert.deepEqual(keys, [
    { index: 0, width: 16, height: 8 },
    { index: 1, width: 16, height: 8 },
  ]);
  const reads: number[] = [];
  const cache = new ImageCache(keys, (at, k) => (reads.push(at), makeImage(5, k.index, k.width, k.height)));
  const a = cache.images({ count: 2, width: 16, height: 8 }) ?? [];
  const b = cache.images({ count: 1, width: 16, height: 8 }) ?? [];
  assert.equal(a.length, 2);
  assert.ok(a[0] === b[0], 'the same object: read once');
  assert.deepEqual(reads, [0, 1]);
  assert.equal(a[0].mediaType, 'image/png');
  assert.equal(cache.images({ count: 0, width: 0, height: 0 }), undefined);
  assert.equal(cache.images(undefined), undefined);
  assert.throws(() => cache.images({ count: 1, width: 9, height: 9 }), /not among the plan's images/);
});

test('IMAGES parses counts and sizes; 0 is a cell without images', () => {
  assert.deepEqual(parseImages('0, 1x336x336,2X64x32'), [
    { count: 0, width: 0, height: 0 },
    { count: 1, width: 336, height: 336 },
    { count: 2, width: 64, height: 32 },
  ]);
  const bad: Array<[string, RegExp]> = [
    ['', /IMAGES='' is not valid: expected a comma-separated list/],
    ['1x336', /'1x336' is neither/],
    ['0x336x336', /write a cell without images as 0/],
    ['9x10x10', /asks for 9 images/],
    ['1x0x10', /is 0×10 px/],
    ['1x4000x10', /is 4000×10 px/],
    ['0,0', /'0' is given twice/],
    ['1x8x8,1x8x8', /given twice/],
    ['abc', /'abc' is neither/],
  ];
  for (const [raw, re] of bad)
    assert.throws(
      () => parseImages(raw),
      (e: unknown) => e instanceof ConfigError && re.test(e.message),
      raw,
    );
});

const variant = (dialect: string) => ({
  variant: 'target',
  url: 'http://x',
  dialect,
  model: 'm',
  apiKey: '',
  vars: { url: 'TARGET_URL', dialect: 'DIALECT', model: 'MODEL', apiKey: 'API_KEY' },
});

test('IMAGES is refused where images have no place, with one message naming the dialects that carry them', () => {
  const cfg = { trace: null, dataset: null, variants: [variant('openai-chat')] } as unknown as Parameters<typeof imagesConfig>[1];
  assert.equal(imagesConfig('0', cfg), null);
  assert.equal(imagesConfig('', cfg), null);
  assert.equal(imagesConfig('0,1x8x8', cfg)?.length, 2);
  for (const d of ['sglang', 'openai', 'llamacpp']) {
    assert.throws(
      () => imagesConfig('1x8x8', { ...cfg, variants: [variant(d)] } as typeof cfg),
      (e: unknown) =>
        e instanceof ConfigError &&
        e.message ===
          `IMAGES: DIALECT=${d}, whose requests cannot carry images (a bare prompt or token ids); only openai-chat, ` +
            `anthropic, responses can: set one of them, or IMAGES=0.`,
      d,
    );
  }
  assert.equal(imagesConfig('1x8x8', { ...cfg, variants: [variant('auto')] } as typeof cfg)?.length, 1, 'auto: checked in preflight');
  assert.throws(() => imagesConfig('1x8x8', { ...cfg, trace: {} } as typeof cfg), /not to a trace replay/);
  assert.throws(() => imagesConfig('1x8x8', { ...cfg, dataset: {} } as typeof cfg), /not to DATASET's/);
  assert.throws(() => imagesConfig('1x8x8', { ...cfg, pooling: { task: 'embeddings' } } as typeof cfg), /not to embeddings/);
});

test('cells: the images axis inside OSL, the ids of cells without images unchanged', () => {
  const cells = buildCells([64], [16], [{ kind: 'vus', vus: 2 }], parseImages('0,1x336x336'));
  assert.deepEqual(
    cells.map((c) => c.id),
    ['i64_o16_c2', 'i64_o16_img1x336x336_c2'],
  );
  assert.equal(cells[0].images, undefined);
  assert.deepEqual(cells[1].images, { count: 1, width: 336, height: 336 });
  assert.deepEqual(
    buildCells([64], [16], [{ kind: 'vus', vus: 2 }]).map((c) => c.id),
    ['i64_o16_c2'],
  );
});
