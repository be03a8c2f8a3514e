// THINK_TAGS: a reasoning model served without a reasoning parser writes its reasoning into the
// content, as <think>…</think> before the answer. Everything before the first </think> is
// reasoning (the opening tag may sit in the prompt's chat template, as DeepSeek-R1's does, so it
// is not looked for); after it, answer. Stateful per reply: the tag may be split across chunks.
import type { Phase } from '../reading';

const CLOSE = '</think>';

/** A reader of one reply's content chunks, saying each chunk's phase (undefined: whitespace only after the tag, which shows the user nothing). */
export function thinkPhases(): (text: string) => Phase | undefined {
  let closed = false;
  let tail = '';
  return (text) => {
    if (closed) return text.trim() === '' ? undefined : 'answer';
    const s = tail + text;
    const i = s.indexOf(CLOSE);
    if (i < 0) {
      tail = s.slice(-(CLOSE.length - 1));
      return 'reasoning';
    }
    closed = true;
    // The tag's token ends the reasoning; what follows it in the same chunk is the answer's start.
    return s.slice(i + CLOSE.length).trim() === '' ? 'reasoning' : 'both';
  };
}
