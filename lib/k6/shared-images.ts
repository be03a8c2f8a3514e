// IMAGES on k6: the plan's images made once per k6 process, in the init of the first VU that asks
// (a SharedArray's maker runs once), base64 by k6's native encoder; each VU reads an image from the
// shared array once, on its first request that carries it. So no run's time goes to making images.
import { SharedArray } from 'k6/data';
import encoding from 'k6/encoding';
import type { ImageInput } from '../dialects/types';
import type { Plan } from '../plan/plan-types';
import { ImageCache, makeImage, planImages } from '../workload/seeded-images';

export const nativeBase64 = (png: Uint8Array): string =>
  encoding.b64encode(png.buffer.slice(png.byteOffset, png.byteOffset + png.byteLength) as ArrayBuffer, 'std');

/** The plan's images, or null when no cell carries any. */
export function sharedImages(plan: Plan, seed: number): ImageCache | null {
  const keys = planImages(plan.cells);
  if (keys.length === 0) return null;
  const shared = new SharedArray('k6-llm-bench:images', () =>
    keys.map((k) => makeImage(seed, k.index, k.width, k.height, nativeBase64)),
  ) as unknown as ArrayLike<ImageInput>;
  return new ImageCache(keys, (at) => shared[at]);
}
