// A chunk cut into its constant pieces and variable spans (the "holes": plain JSON numbers and
// integer arrays after the generated text), and the fields of an update a hole may feed: what a
// chunk template (chunk-template.ts) is learned from.
import type { ChunkUpdate } from './chunk-update';

export type Field =
  'completionTokens' | 'promptTokens' | 'cachedTokens' | 'specVerifySteps' | 'acceptanceLength' | 'draftTokens' | 'draftAccepted' | 'reasoningTokens';
export const FIELDS: readonly Field[] = [
  'completionTokens',
  'promptTokens',
  'cachedTokens',
  'specVerifySteps',
  'acceptanceLength',
  'draftTokens',
  'draftAccepted',
  'reasoningTokens',
];
/** Fields no hole may feed: the altered copy must give them exactly as learned. */
// specSteps is an object, new at each read: a chunk that carries one is never learned, always parsed in full.
export const OTHER_FIELDS: ReadonlyArray<keyof ChunkUpdate> = [
  'textSoFar',
  'carriesToken',
  'noContent',
  'finishReason',
  'abortMessage',
  'error',
  'phase',
  'done',
  'specSteps',
  // An object, new at each read, as specSteps: a chunk with a tool call is always parsed in full.
  'tools',
];

/** A string body that needs no unescaping and cannot end the string early. */
// eslint-disable-next-line no-control-regex
export const UNSAFE_TEXT = /["\\\u0000-\u001f]/;
/** A JSON array of integers, as token ids are sent. */
export const INT_ARRAY = /^\[(?:-?(?:0|[1-9][0-9]*)(?:,-?(?:0|[1-9][0-9]*))*)?\]$/;
/** A piece that follows a hole must not start with what could continue the hole's value. */
export const CONTINUES_VALUE = /^[0-9.eE+\-\]]/;
/** A string or number value in a chunk's prefix (after its key's colon). */
const PREFIX_VALUE = /:"(?:[^"\\]|\\.)*"|:-?[0-9][0-9.eE+-]*/g;

/** A chunk cut at its text and at every plain number or integer array that follows it. */
export interface Layout {
  prefix: string;
  text: string | null;
  /** pieces[0] follows the text ('' without one); pieces[i + 1] follows span i. */
  pieces: string[];
  spans: Array<{ value: string; ids: boolean }>;
}

/**
 * A pattern for prefixes of the same layout as `prefix`: its keys, brackets and other values
 * exactly, any string or number where it has one (an id, a time). The JSON path of every value
 * after the prefix is the same in all of them, so the holes feed the same fields.
 */
export function prefixPattern(prefix: string): RegExp {
  let out = '^';
  let at = 0;
  for (const m of prefix.matchAll(PREFIX_VALUE)) {
    const i = m.index as number;
    out += escapeRegExp(prefix.slice(at, i)) + (m[0][1] === '"' ? ':"(?:[^"\\\\]|\\\\.)*"' : ':-?[0-9][0-9.eE+\\-]*');
    at = i + m[0].length;
  }
  return new RegExp(out + escapeRegExp(prefix.slice(at)));
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}

/**
 * Where a variable span starting at `pos` ends: before the constant `piece` that follows it (the
 * chunk's end when `last`), or −1 when the span would be empty or the piece is not there.
 */
export function spanEnd(s: string, piece: string, pos: number, last: boolean): number {
  if (last) {
    const end = s.length - piece.length;
    return end > pos && endsWith(s, piece, end) ? end : -1;
  }
  const end = s.indexOf(piece, pos);
  return end > pos ? end : -1;
}

/** s ends with `tail`, which starts at `at`: endsWith compares char by char on k6's engine, a slice compares at once. */
export function endsWith(s: string, tail: string, at: number): boolean {
  return tail.length < 12 ? s.endsWith(tail) : s.slice(at) === tail;
}

export function layout(s: string, u: ChunkUpdate, textKeys: readonly string[]): Layout | null {
  if (u.error !== undefined || u.abortMessage !== undefined) return null;
  let textStart = -1;
  let textEnd = -1;
  if (textKeys.length > 0) {
    const text = u.textDelta;
    if (text === undefined || text === '' || u.textSoFar !== undefined || UNSAFE_TEXT.test(text)) return null;
    for (const k of textKeys) {
      const key = `"${k}":"`;
      const i = s.indexOf(key);
      if (i < 0) continue;
      const start = i + key.length;
      const end = s.indexOf('"', start);
      if (end <= start || s.slice(start, end) !== text) continue;
      if (textStart >= 0 || s.indexOf(key, end) >= 0) return null; // two candidates: ambiguous
      textStart = start;
      textEnd = end;
    }
    if (textStart < 0) return null;
  }
  const from = textKeys.length > 0 ? textEnd : 0;
  const spans: Layout['spans'] = [];
  const pieces: string[] = [];
  let pieceStart = from;
  for (let i = s.indexOf('":', from); i >= 0; i = s.indexOf('":', i + 2)) {
    if (s[i - 1] === '\\') return null; // an escaped quote before a colon: leave such chunks alone
    const start = i + 2;
    let end = start;
    const c = s[start];
    let ids = false;
    if (c === '[') {
      end = s.indexOf(']', start) + 1;
      if (end <= 0 || !INT_ARRAY.test(s.slice(start, end))) continue;
      ids = true;
    } else if (c === '-' || (c >= '0' && c <= '9')) {
      // A number ends at the comma or brace after it (or it is not a plain number: left constant).
      const comma = s.indexOf(',', start);
      const brace = s.indexOf('}', start);
      end = comma < 0 ? brace : brace < 0 ? comma : Math.min(comma, brace);
      if (end < 0 || String(+s.slice(start, end)) !== s.slice(start, end)) continue;
    } else {
      continue;
    }
    pieces.push(s.slice(pieceStart, start));
    spans.push({ value: s.slice(start, end), ids });
    pieceStart = end;
  }
  pieces.push(s.slice(pieceStart));
  if (textKeys.length > 0) return { prefix: s.slice(0, textStart), text: s.slice(textStart, textEnd), pieces, spans };
  // No text: pieces[0] runs from the start to the first span; it joins the prefix.
  return { prefix: pieces[0], text: null, pieces: ['', ...pieces.slice(1)], spans };
}
