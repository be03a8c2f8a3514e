// Images in chat content, counted the way Qwen2-VL's processor counts them (as vLLM and SGLang
// serve it): the image is resized to multiples of 28 px by `smart_resize` (each side rounded to
// the nearest multiple of 28, then scaled into [min_pixels, max_pixels] keeping the aspect), cut
// into 14-px patches, and 2×2 patches are merged into one token, so an H×W image is
// (H'/28)·(W'/28) <|image_pad|> tokens between <|vision_start|> and <|vision_end|>. Source:
// transformers' image_processing_qwen2_vl.py (smart_resize; min_pixels 56·56, max_pixels
// 28·28·1280 in the model's preprocessor_config.json for Qwen2-VL-Instruct) and Qwen2-VL's model
// card ("each 28x28 pixel … one token"; "<|vision_start|><|image_pad|>…<|vision_end|>").
// The size is read from the PNG's IHDR in the data, so the count is the server's, not the client's.
import { HttpError } from './api/common';

export const VISION_START = '<|vision_start|>';
export const VISION_END = '<|vision_end|>';
export const IMAGE_PAD = '<|image_pad|>';

const FACTOR = 28;
const MIN_PIXELS = 56 * 56;
const MAX_PIXELS = 28 * 28 * 1280;

/** Python's round(): halves to even (smart_resize uses it). */
function roundHalfEven(x: number): number {
  const f = Math.floor(x);
  const d = x - f;
  if (d > 0.5) return f + 1;
  if (d < 0.5) return f;
  return f % 2 === 0 ? f : f + 1;
}

/** Qwen2-VL's smart_resize: the size the image is processed at. */
export function smartResize(height: number, width: number): { height: number; width: number } {
  let h = Math.max(FACTOR, roundHalfEven(height / FACTOR) * FACTOR);
  let w = Math.max(FACTOR, roundHalfEven(width / FACTOR) * FACTOR);
  if (h * w > MAX_PIXELS) {
    const beta = Math.sqrt((height * width) / MAX_PIXELS);
    h = Math.floor(height / beta / FACTOR) * FACTOR;
    w = Math.floor(width / beta / FACTOR) * FACTOR;
  } else if (h * w < MIN_PIXELS) {
    const beta = Math.sqrt(MIN_PIXELS / (height * width));
    h = Math.ceil((height * beta) / FACTOR) * FACTOR;
    w = Math.ceil((width * beta) / FACTOR) * FACTOR;
  }
  return { height: h, width: w };
}

/** Tokens an image of this size takes in the prompt, its start and end tokens included. */
export function imageTokens(width: number, height: number): number {
  const r = smartResize(height, width);
  return (r.height / FACTOR) * (r.width / FACTOR) + 2;
}

/** Width and height from a PNG's IHDR (the first 24 bytes); a 400 for anything else. */
export function pngSize(base64: string): { width: number; height: number } {
  const head = Buffer.from(base64.slice(0, 44), 'base64');
  const sig = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
  if (head.length < 24 || sig.some((b, i) => head[i] !== b) || head.toString('latin1', 12, 16) !== 'IHDR')
    throw new HttpError(400, 'Failed to load image: the simulator reads PNG images only (the data is not a PNG).', 'messages');
  const width = head.readUInt32BE(16);
  const height = head.readUInt32BE(20);
  if (width === 0 || height === 0) throw new HttpError(400, `Failed to load image: ${width}×${height} px.`, 'messages');
  return { width, height };
}

/** The base64 of an image content part in any of the three shapes, or null when the part is no image. */
function imageData(part: Record<string, unknown>): string | null {
  const url = (u: unknown): string => {
    if (typeof u !== 'string' || !u.startsWith('data:'))
      throw new HttpError(400, 'Failed to load image: the simulator takes data URLs only (data:image/png;base64,…).', 'messages');
    const comma = u.indexOf(',');
    if (comma < 0 || !u.slice(0, comma).endsWith(';base64')) throw new HttpError(400, 'Failed to load image: not a base64 data URL.', 'messages');
    return u.slice(comma + 1);
  };
  if (part.type === 'image_url') return url((part.image_url as { url?: unknown } | undefined)?.url); // chat
  if (part.type === 'input_image') return url(part.image_url); // Responses
  if (part.type === 'image') {
    const src = part.source as { type?: unknown; data?: unknown } | undefined; // Messages
    if (src?.type !== 'base64' || typeof src.data !== 'string')
      throw new HttpError(400, 'Failed to load image: source must be {type: base64, data}.', 'messages');
    return src.data;
  }
  return null;
}

/** An image part as the prompt text the template puts in its place; null when the part is no image. */
export function imagePartText(part: Record<string, unknown>): string | null {
  const data = imageData(part);
  if (data === null) return null;
  const { width, height } = pngSize(data);
  return VISION_START + IMAGE_PAD.repeat(imageTokens(width, height) - 2) + VISION_END;
}
