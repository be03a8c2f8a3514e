// A fake tokenizer with a documented, cheap rule, so a client can compute prompt_tokens itself:
//  - the special tokens <|im_start|>, <|im_end|> and <|endoftext|> are one token each;
//  - otherwise each match of /\s*[\p{L}\p{N}]{1,6}|\s*[^\s\p{L}\p{N}]|\s+/u is one token: a run of up
//    to 6 letters/digits with its leading whitespace, one other symbol with its leading whitespace, or
//    trailing whitespace.
// Output tokens are ids drawn by the scheduler; each id decodes to a fixed ASCII word piece, so text is
// a pure function of the ids and byte length equals character length.

import { imagePartText } from './vision';

type Special = '<|im_start|>' | '<|im_end|>' | '<|endoftext|>' | '<|vision_start|>' | '<|vision_end|>' | '<|image_pad|>';
const SPECIAL_RE = /<\|im_start\|>|<\|im_end\|>|<\|endoftext\|>|<\|vision_start\|>|<\|vision_end\|>|<\|image_pad\|>/g;
const PIECE_RE = /\s*[\p{L}\p{N}]{1,6}|\s*[^\s\p{L}\p{N}]|\s+/gu;
const SYLLABLES = 'ka ri to na me su lo ve di pa ne mo ta ki ru sa le po mi da no fe zu ba ro ti gu la se vo hi'.split(' ');

/** Ids below this are never drawn for output, so output never contains a special token by accident. */
export const FIRST_OUTPUT_ID = 1000;

export class Tokenizer {
  readonly eosId: number;
  private readonly specialIds: Record<Special, number>;
  private readonly pieceCache = new Map<number, string>();

  constructor(readonly vocabSize: number) {
    // Qwen's ids where they fit, else the top of the vocabulary.
    const fits = vocabSize > 151645;
    const vision = vocabSize > 151655;
    this.specialIds = {
      '<|endoftext|>': fits ? 151643 : vocabSize - 3,
      '<|im_start|>': fits ? 151644 : vocabSize - 2,
      '<|im_end|>': fits ? 151645 : vocabSize - 1,
      // Qwen2-VL's; in a smaller vocabulary below FIRST_OUTPUT_ID, which no text piece or output token takes.
      '<|vision_start|>': vision ? 151652 : FIRST_OUTPUT_ID - 3,
      '<|vision_end|>': vision ? 151653 : FIRST_OUTPUT_ID - 2,
      '<|image_pad|>': vision ? 151655 : FIRST_OUTPUT_ID - 1,
    };
    this.eosId = this.specialIds['<|im_end|>'];
  }

  /** Token ids of a text prompt (see the rule above). */
  encode(text: string): number[] {
    const ids: number[] = [];
    let last = 0;
    const pushPlain = (s: string): void => {
      for (const m of s.matchAll(PIECE_RE)) ids.push(this.pieceId(m[0]));
    };
    for (const m of text.matchAll(SPECIAL_RE)) {
      pushPlain(text.slice(last, m.index));
      ids.push(this.specialIds[m[0] as Special]);
      last = (m.index ?? 0) + m[0].length;
    }
    pushPlain(text.slice(last));
    return ids;
  }

  /** A prompt's image tokens: its vision start, pad and end tokens (vision.ts). */
  imageTokens(ids: readonly number[]): number {
    const s = this.specialIds;
    let n = 0;
    for (const id of ids) if (id === s['<|image_pad|>'] || id === s['<|vision_start|>'] || id === s['<|vision_end|>']) n++;
    return n;
  }

  private pieceId(piece: string): number {
    let h = 0x811c9dc5;
    for (let i = 0; i < piece.length; i++) h = Math.imul(h ^ piece.charCodeAt(i), 0x01000193) >>> 0;
    return FIRST_OUTPUT_ID + (h % (this.vocabSize - FIRST_OUTPUT_ID - 3));
  }

  /** The text of one output token id. */
  decodeOne(id: number): string {
    let s = this.pieceCache.get(id);
    if (s === undefined) {
      if (id === this.eosId) s = '';
      else {
        const a = SYLLABLES[id % SYLLABLES.length] as string;
        const b = Math.floor(id / SYLLABLES.length) % 3 === 0 ? '' : (SYLLABLES[Math.floor(id / 7) % SYLLABLES.length] as string);
        // About four pieces in five start a new word.
        s = (id % 5 === 0 ? '' : ' ') + a + b;
      }
      if (this.pieceCache.size < 200_000) this.pieceCache.set(id, s);
    }
    return s;
  }

  decode(ids: readonly number[]): string {
    let s = '';
    for (const id of ids) s += this.decodeOne(id);
    return s;
  }
}

export interface ChatMessage {
  role: string;
  content: unknown;
}

/** ChatML, as Qwen models use: each message framed by <|im_start|>role\n ... <|im_end|>\n, then the assistant prefix. */
export function applyChatTemplate(messages: readonly ChatMessage[]): string {
  let s = '';
  for (const m of messages) s += `<|im_start|>${m.role}\n${contentText(m.content)}<|im_end|>\n`;
  return s + '<|im_start|>assistant\n';
}

/** Message content is a string or a list of parts: text parts count as their text, images as their vision tokens (vision.ts), others not at all. */
function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content
      .map((p: unknown) => {
        if (!p || typeof p !== 'object') return '';
        const image = imagePartText(p as Record<string, unknown>);
        if (image !== null) return image;
        return typeof (p as { text?: unknown }).text === 'string' ? (p as { text: string }).text : '';
      })
      .join('');
  }
  return '';
}
