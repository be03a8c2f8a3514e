// How a dialect carries images (IMAGES): the content parts of a user turn with images, as data in
// its descriptor's traits (`images`). A dialect without the trait carries none, and a run that
// would send it images is refused before it starts (imageDialects names those that can).
import type { Turn } from './conversation';
import type { GenerationRequest, ImageInput } from './types';

export interface ImageTrait {
  /** The turn's text as a content part. */
  text(text: string): unknown;
  /** One image as a content part. */
  image(img: ImageInput): unknown;
  /** docs/dialects.md's column: the part an image travels in. */
  readonly docs: string;
}

export const dataUrl = (img: ImageInput): string => `data:${img.mediaType};base64,${img.data}`;

/** OpenAI Chat Completions (vLLM, SGLang, llama.cpp with a multimodal projector). */
export const CHAT_IMAGES: ImageTrait = {
  text: (text) => ({ type: 'text', text }),
  image: (img) => ({ type: 'image_url', image_url: { url: dataUrl(img) } }),
  docs: '`{"type": "image_url", "image_url": {"url": "data:image/png;base64,…"}}` parts after a `text` part',
};

/** OpenAI Responses. */
export const RESPONSES_IMAGES: ImageTrait = {
  text: (text) => ({ type: 'input_text', text }),
  image: (img) => ({ type: 'input_image', image_url: dataUrl(img) }),
  docs: '`{"type": "input_image", "image_url": "data:image/png;base64,…"}` parts after an `input_text` part',
};

/** Anthropic Messages. */
export const MESSAGES_IMAGES: ImageTrait = {
  text: (text) => ({ type: 'text', text }),
  image: (img) => ({ type: 'image', source: { type: 'base64', media_type: img.mediaType, data: img.data } }),
  docs: '`{"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": …}}` parts after a `text` part',
};

/**
 * The turns with the request's images in the last user turn, after its text: the text differs from
 * request to request, so a prefix cache cannot serve one request's images from another's prefix
 * unless their text is the same too. Turns unchanged when the request has no images.
 */
export function withImages(turns: ReadonlyArray<Turn>, req: GenerationRequest, trait: ImageTrait): ReadonlyArray<Turn | { role: string; content: unknown[] }> {
  const images = req.images;
  if (images === undefined || images.length === 0) return turns;
  let last = -1;
  turns.forEach((t, i) => {
    if (t.role === 'user') last = i;
  });
  if (last < 0) throw new Error('images need a user turn to go in; the prompt has none');
  return turns.map((t, i) => (i === last ? { role: t.role, content: [trait.text(t.content), ...images.map((img) => trait.image(img))] } : t));
}
