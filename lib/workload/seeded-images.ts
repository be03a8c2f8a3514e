// The images a request carries (IMAGES): made here from the seed, never downloaded, as PNG data
// URLs. An image is a function of (seed, its index in the request, its size) alone, so every
// variant, VU and run gets the same bytes. Encoding is slow on k6's JavaScript (a 336×336 RGB PNG
// is 340 KB, each byte through CRC-32 and Adler-32), so the k6 layer makes each distinct image once
// per k6 process, in init (lib/k6/shared-images.ts), and a VU reads each once (ImageCache).
import type { ImageInput } from '../dialects/types';
import type { Cell, ImageSpec } from '../plan/plan-types';
import { rngFor } from '../stats/rng';
import { base64 as base64Ts, encodePng } from './png';

export type { ImageSpec } from '../plan/plan-types';

/** "1x336x336": count × width × height, as IMAGES and cell ids write it. */
export function imageLabel(s: ImageSpec): string {
  return `${s.count}x${s.width}x${s.height}`;
}

/**
 * RGB noise from the seed: one seeded row of random bytes, each further row that row rotated by a
 * seeded offset (a native copy, not a loop per byte: a 1-megapixel image in a few ms on k6).
 */
export function imagePixels(seed: number, index: number, width: number, height: number): Uint8Array {
  const rng = rngFor(seed, `image:${index}:${width}x${height}`);
  const stride = width * 3;
  const row = new Uint8Array(stride * 2);
  for (let i = 0; i < stride; i++) row[i] = Math.floor(rng() * 256);
  row.copyWithin(stride, 0, stride);
  const px = new Uint8Array(stride * height);
  for (let y = 0; y < height; y++) {
    const off = Math.floor(rng() * stride);
    px.set(row.subarray(off, off + stride), y * stride);
  }
  return px;
}

/** One image; `base64` may be a native encoder (k6/encoding's), the same bytes either way. */
export function makeImage(seed: number, index: number, width: number, height: number, base64: (png: Uint8Array) => string = base64Ts): ImageInput {
  const data = base64(encodePng(width, height, imagePixels(seed, index, width, height)));
  return { mediaType: 'image/png', data, width, height };
}

/** An image as it is made and shared: its place in a request and its size. */
export interface ImageKey {
  index: number;
  width: number;
  height: number;
}

/** The distinct images the cells' requests carry, in a fixed order (their index in the shared list). */
export function planImages(cells: readonly Cell[]): ImageKey[] {
  const keys = new Map<string, ImageKey>();
  for (const c of cells) {
    const s = c.images;
    if (s !== undefined) for (let index = 0; index < s.count; index++) keys.set(`${index}:${s.width}x${s.height}`, { index, width: s.width, height: s.height });
  }
  return [...keys.values()];
}

/** A request's images, each fetched from `source` (by its planImages position) once and kept. */
export class ImageCache {
  private readonly made = new Map<string, ImageInput>();
  private readonly at: Map<string, number>;

  constructor(
    keys: readonly ImageKey[],
    private readonly source: (position: number, key: ImageKey) => ImageInput,
  ) {
    this.at = new Map(keys.map((k, i) => [`${k.index}:${k.width}x${k.height}`, i]));
  }

  images(spec: ImageSpec | undefined): ImageInput[] | undefined {
    if (spec === undefined || spec.count === 0) return undefined;
    const out: ImageInput[] = [];
    for (let index = 0; index < spec.count; index++) {
      const key = `${index}:${spec.width}x${spec.height}`;
      let img = this.made.get(key);
      if (img === undefined) {
        const at = this.at.get(key);
        if (at === undefined) throw new Error(`k6-llm-bench: image ${key} is not among the plan's images.`);
        this.made.set(key, (img = this.source(at, { index, width: spec.width, height: spec.height })));
      }
      out.push(img);
    }
    return out;
  }
}
