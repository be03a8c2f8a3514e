// The images a request carries (IMAGES): made here from the seed, never downloaded, as PNG data
// URLs. An image is a function of (seed, its index in the request, its size) alone, so every
// variant, VU and run gets the same bytes; a VU makes each distinct image once (ImageCache), since
// encoding a few hundred kilobytes is slow on k6's JavaScript.
import type { ImageInput } from '../dialects/types';
import type { ImageSpec } from '../plan/types';
import { rngFor } from '../stats/rng';
import { base64, encodePng } from './png';

export type { ImageSpec } from '../plan/types';

/** "1x336x336": count × width × height, as IMAGES and cell ids write it. */
export function imageLabel(s: ImageSpec): string {
  return `${s.count}x${s.width}x${s.height}`;
}

/** RGB noise from the seed (a 32-bit xorshift: one call per 4 bytes keeps a 1-megapixel image under a second on k6). */
export function imagePixels(seed: number, index: number, width: number, height: number): Uint8Array {
  let x = Math.floor(rngFor(seed, `image:${index}:${width}x${height}`)() * 0xffffffff) | 1;
  const px = new Uint8Array(width * height * 3);
  for (let i = 0; i < px.length; i += 4) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    px[i] = x & 0xff;
    if (i + 1 < px.length) px[i + 1] = (x >>> 8) & 0xff;
    if (i + 2 < px.length) px[i + 2] = (x >>> 16) & 0xff;
    if (i + 3 < px.length) px[i + 3] = x >>> 24;
  }
  return px;
}

export function makeImage(seed: number, index: number, width: number, height: number): ImageInput {
  const data = base64(encodePng(width, height, imagePixels(seed, index, width, height)));
  return { mediaType: 'image/png', data, width, height };
}

/** The images of a request of a cell, each made once per cache (one per VU). */
export class ImageCache {
  private readonly made = new Map<string, ImageInput>();
  constructor(private readonly seed: number) {}

  images(spec: ImageSpec | undefined): ImageInput[] | undefined {
    if (spec === undefined || spec.count === 0) return undefined;
    const out: ImageInput[] = [];
    for (let i = 0; i < spec.count; i++) {
      const key = `${i}:${spec.width}x${spec.height}`;
      let img = this.made.get(key);
      if (img === undefined) this.made.set(key, (img = makeImage(this.seed, i, spec.width, spec.height)));
      out.push(img);
    }
    return out;
  }
}
