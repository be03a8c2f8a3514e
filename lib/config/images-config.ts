// IMAGES: the images each request carries, one matrix axis. `0` is a cell without images,
// `<count>x<width>x<height>` one with that many images of that size, e.g. IMAGES=0,1x336x336: the
// TTFT the images cost is then the difference between the two cells, measured, never assumed.
import { imagesRefusal } from '../dialects/index';
import type { ImageSpec } from '../plan/plan-types';
import { ConfigError, invalid } from './parse';
import type { BenchConfig } from './config-types';

/** Images per request at most, and pixels per side: each is made and base64-encoded in k6's JavaScript, once per VU. */
export const MAX_IMAGES = 8;
export const MAX_IMAGE_SIDE = 2048;

const EXPECTED = `a comma-separated list of 0 (no images) or <count>x<width>x<height> (count 1–${MAX_IMAGES}, sides 1–${MAX_IMAGE_SIDE} px), e.g. 0,1x336x336`;
const SPEC_RE = /^(\d+)x(\d+)x(\d+)$/;

/** IMAGES's values in order; a `0` is { count: 0 } (a cell without images). */
export function parseImages(raw: string): ImageSpec[] {
  const parts = raw.split(',').map((s) => s.trim().toLowerCase());
  if (parts.length === 0 || parts.some((s) => s === '')) throw invalid('IMAGES', raw, EXPECTED);
  const seen = new Set<string>();
  return parts.map((s) => {
    const spec = one(s, raw);
    const key = spec.count === 0 ? '0' : `${spec.count}x${spec.width}x${spec.height}`;
    if (seen.has(key)) throw invalid('IMAGES', raw, `${EXPECTED}; '${s}' is given twice`);
    seen.add(key);
    return spec;
  });
}

function one(s: string, raw: string): ImageSpec {
  if (s === '0') return { count: 0, width: 0, height: 0 };
  const m = SPEC_RE.exec(s);
  if (m === null) throw invalid('IMAGES', raw, `${EXPECTED}; '${s}' is neither`);
  const [count, width, height] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (count === 0) throw invalid('IMAGES', raw, `${EXPECTED}; write a cell without images as 0, not '${s}'`);
  if (count > MAX_IMAGES) throw invalid('IMAGES', raw, `${EXPECTED}; '${s}' asks for ${count} images`);
  if (width < 1 || height < 1 || width > MAX_IMAGE_SIDE || height > MAX_IMAGE_SIDE)
    throw invalid('IMAGES', raw, `${EXPECTED}; '${s}' is ${width}×${height} px`);
  return { count, width, height };
}

/** Whether any cell carries images. */
export const anyImages = (images: readonly ImageSpec[]): boolean => images.some((s) => s.count > 0);

/**
 * IMAGES for a configuration: null when no cell carries images. Refused where the images have no
 * place: a trace replay or a dataset (whose prompts bring their own lengths), or a variant whose
 * dialect carries no images (DIALECT=auto is checked in setup, once the dialect is known).
 */
export function imagesConfig(
  raw: string,
  cfg: Pick<BenchConfig, 'trace' | 'dataset' | 'variants'> & Partial<Pick<BenchConfig, 'pooling'>>,
): ImageSpec[] | null {
  const images = parseImages(raw.trim() === '' ? '0' : raw);
  if (!anyImages(images)) return null;
  if (cfg.trace !== null) throw new ConfigError(`IMAGES=${raw} applies to the ISL × OSL matrix, not to a trace replay (TRACE or ARRIVALS): unset one of them.`);
  if (cfg.pooling) throw new ConfigError(`IMAGES=${raw} applies to the generation benchmarks, not to ${cfg.pooling.task}: unset it.`);
  if (cfg.dataset !== null) throw new ConfigError(`IMAGES=${raw} adds generated images to the seeded prompts, not to DATASET's: unset one of them.`);
  for (const v of cfg.variants) {
    const why = v.dialect === 'auto' ? null : imagesRefusal(v.dialect, `${v.vars.dialect}=`);
    if (why !== null) throw new ConfigError(`IMAGES: ${why.slice(0, -1)}, or IMAGES=0.`);
  }
  return images;
}
