// The chunks of one stream repeat one shape: the same keys, ids and constants, with only the
// generated text and a few numbers (running token counts, token ids) changing from event to event.
// A template learned from a fully parsed chunk reads the next ones with a few string comparisons
// instead of JSON.parse, which costs tens of µs per chunk in k6's JavaScript engine (sobek) —
// more than everything else the suite does per event.
//
// A template is a chunk cut into constant pieces and variable spans ("holes"):
//   prefix · text · pieces[0] · hole 0 · pieces[1] · … · hole n−1 · pieces[n]
// (without a text span, pieces[0] is empty). The holes are the plain JSON numbers and arrays of
// integers (token ids) after the text; those that keep their value from the first chunk matched
// to the second are folded into the pieces again. A chunk matches when its constant pieces are
// exactly the learned ones, its text is a plain JSON string body (no quote, backslash or control
// character) and each hole is a plain JSON number (the number's own shortest form) or integer
// array. Such a chunk is the learned JSON document with other values in those places, so reading
// it gives the learned update with those values put in. Which update field each hole feeds is
// found once, by reading a copy of the chunk whose holes hold other values and checking that
// nothing else changed; a field no hole feeds keeps the learned value. Anything else — another
// shape, an escape in the text, a malformed or reformatted number — does not match and is parsed
// in full, so the result is always the full parser's.
//
// Most chunks are read faster still: the running counts move by the same step from chunk to chunk,
// so the next chunk's tail is predicted and compared in one go (see `expect` and `fast`). And the
// next stream from the same server has the same shape with another id: its template is rebuilt
// from its first chunk and the previous template's skeleton (see `rebase`), without learning again.
import type { ChunkUpdate } from './chunk-update';
import { arrivals, type Arrivals } from './stream-arrivals';
import { EVENT_NONE, TOKENS_UNKNOWN } from '../dialects/types';
import { CONTINUES_VALUE, FIELDS, INT_ARRAY, OTHER_FIELDS, UNSAFE_TEXT, layout, prefixPattern, spanEnd, type Field } from './chunk-layout';
import type { Skeleton } from './template-skeletons';
export { remember, type Skeleton, type TemplateCache } from './template-skeletons';

/** A count-only template's per-event reader and its state: see ChunkTemplate.fast. */
export interface FastRead {
  /** What the accumulator would answer for the chunk; null when it does not match as predicted. */
  read: (s: string) => number | null;
  /**
   * Reads kept events from index `from` while they match as predicted, putting the token-carrying
   * ones in the arrivals' columns; returns the index of the first it did not read (`count` when
   * it read them all).
   */
  run: (k: Arrivals, from: number, count: number) => number;
  /** The state as it stands: the running count, the token-carrying events, the chunks read since `set` and the last of them. */
  get(): { completion: number | null; tokenEvents: number; matched: number; lastMatched: string };
  /** Hands the state over; the accumulator's state then holds this template's constants. */
  set(completion: number | null, tokenEvents: number): void;
}

/**
 * Where a dialect's template input sits in its events when it is the end of each: after the last
 * `lead`, before a final `trail` (SGLang: the meta_info object, the chunk's last field). The
 * per-event path then compares the event's end with the prediction, without cutting the input out.
 */
export interface TemplateSuffix {
  readonly lead: string;
  readonly trail: string;
  /** An event that starts so is left to the full parser, its end unread (SGLang: an error key first). */
  readonly refuse?: string;
}

/** A template's layout: a text span or not, the pieces around the holes, which holes hold token ids, the field each hole feeds. */
interface Layout {
  hasText: boolean;
  pieces: string[];
  isIds: boolean[];
  fields: Array<Field | null>;
}

export class ChunkTemplate {
  /**
   * The update of the chunk last matched: the learned one with the text and the hole-fed fields
   * replaced. One object, rewritten by every match: read it before the next.
   */
  readonly update: ChunkUpdate;
  /** No hole feeds a field other than completionTokens (the running count). */
  countOnly: boolean;
  /** Its holes are settled (steps known, constants folded): `fast` may read for it. */
  settled = false;
  readonly skeleton: Skeleton;
  // Per hole, in parallel arrays (fewer property reads per event on k6's engine).
  private pieces: string[];
  private isIds: boolean[];
  private fields: Array<Field | null>;
  /** Each number hole's last value and its last change; NaN for token-id holes. */
  private last: number[];
  private step: number[];
  /** Chunks matched by matchAny so far (the second one settles the holes). */
  private seen = 0;
  /**
   * What follows the text (with a text span) or the whole input (without one) if every number
   * hole moves by its last change again — a running count usually does: one comparison then
   * reads the chunk. null when there is nothing to predict (a token-id hole).
   */
  private expect: string | null = null;

  private readonly hasText: boolean;

  private constructor(
    private prefix: string,
    layout: Layout,
    learned: ChunkUpdate,
    skeleton?: Skeleton,
  ) {
    const { hasText, pieces, isIds, fields } = layout;
    this.hasText = hasText;
    this.update = { ...learned };
    this.pieces = pieces;
    this.isIds = isIds;
    this.fields = fields;
    this.countOnly = fields.every((f) => f === null || f === 'completionTokens');
    this.last = fields.map(() => NaN);
    this.step = fields.map(() => NaN);
    this.skeleton = skeleton ?? { prefixPattern: prefixPattern(prefix), hasText, pieces: pieces.slice(), isIds: isIds.slice(), fields: fields.slice() };
  }

  /** True when `s` has the learned shape; then `update` holds what reading it gives. */
  match(s: string): boolean {
    // The predicted values first: one comparison (two with a text), then the next prediction.
    const e = this.expect;
    if (e === null) return this.matchAny(s);
    if (this.hasText) {
      const end = s.length - e.length;
      const pos = this.prefix.length;
      if (!(end > pos && s.slice(end) === e && s.slice(0, pos) === this.prefix)) return this.matchAny(s);
      const text = s.slice(pos, end);
      if (UNSAFE_TEXT.test(text)) return false;
      this.update.textDelta = text;
    } else if (s !== e) {
      return this.matchAny(s);
    }
    const last = this.last;
    const step = this.step;
    const fields = this.fields;
    const pieces = this.pieces;
    let next = this.hasText ? pieces[0] : this.prefix;
    for (let i = 0; i < last.length; i++) {
      const x = last[i] + step[i];
      last[i] = x;
      const f = fields[i];
      if (f !== null) this.update[f] = x;
      next += x + step[i] + pieces[i + 1];
    }
    this.expect = next;
    return true;
  }

  private predict(): void {
    const pieces = this.pieces;
    const last = this.last;
    let e = this.hasText ? pieces[0] : this.prefix;
    for (let i = 0; i < last.length; i++) {
      const x = last[i] + this.step[i];
      // Only whole, non-negative steps are predicted (a ratio's next value is not a sum).
      if (x !== Math.round(x) || !(x >= 0) || !(this.step[i] >= 0)) {
        this.expect = null;
        return;
      }
      e += x + pieces[i + 1];
    }
    this.expect = e;
  }

  /** Once the steps are known: holes that kept their value become constant pieces again. */
  private settle(): void {
    this.settled = true;
    const pieces = [this.pieces[0]];
    const isIds: boolean[] = [];
    const fields: Array<Field | null> = [];
    const last: number[] = [];
    const step: number[] = [];
    for (let i = 0; i < this.last.length; i++) {
      if (!this.isIds[i] && this.step[i] === 0) {
        pieces[pieces.length - 1] += this.last[i] + this.pieces[i + 1];
        continue;
      }
      pieces.push(this.pieces[i + 1]);
      isIds.push(this.isIds[i]);
      fields.push(this.fields[i]);
      last.push(this.last[i]);
      step.push(this.step[i]);
    }
    if (!this.hasText) {
      // Without a text span, the prefix runs to the first hole.
      this.prefix += pieces[0];
      pieces[0] = '';
    }
    this.pieces = pieces;
    this.isIds = isIds;
    this.fields = fields;
    this.last = last;
    this.step = step;
    this.countOnly = fields.every((f) => f === null || f === 'completionTokens');
  }

  /**
   * The per-event reader of a count-only template (no hole feeds a field but the running count),
   * written as one closure over local variables: on k6's engine every property read is a map
   * lookup, and they were most of the cost per event. It reads a chunk whose numbers moved as
   * predicted (see `expect`), appends its text to `parts` and answers as the accumulator's update
   * would, from the state it was handed with `set` (the running count, the token-carrying events,
   * the state holding this template's constants); for any other chunk it answers null and changes
   * nothing, and the caller takes the state back with `get` and goes the general way. `run` does
   * the same over a batch of kept events in one loop (a JavaScript call costs k6's engine about as
   * much as reading a chunk); `inputOf` cuts each event's template input out, when the template
   * does not read whole events.
   */
  // One closure on purpose: split into functions, it would pay a call and property reads per event (see above).
  // eslint-disable-next-line max-lines-per-function, size/function-lines
  fast(parts: string[], wrap: TemplateSuffix | null = null, inputOf: ((data: string) => string | undefined) | null = null): FastRead {
    if (wrap !== null && this.hasText) throw new Error('a template read at the end of the event must not carry text');
    // With `wrap`, the closure is given whole events and predicts each one's end: lead · input · trail.
    const lead = wrap === null ? '' : wrap.lead;
    const trail = wrap === null ? '' : wrap.trail;
    const refuse = wrap?.refuse ?? null;
    const prefix = this.prefix;
    const plen = prefix.length;
    const pieces = this.pieces;
    const hasText = this.hasText;
    const last = this.last;
    const step = this.step;
    const nh = last.length;
    // Where each prediction starts, and the piece after each hole: the last with the end of the
    // event when the event is read whole.
    const head = (hasText ? pieces[0] : lead + prefix) + (nh === 0 ? trail : '');
    const after = pieces.slice(1);
    if (nh > 0) after[nh - 1] += trail;
    const countHole = this.fields.indexOf('completionTokens');
    // The pieces after the first two holes (the steps are read from `step` itself: the template's
    // own reading, between two runs of the closure, may change them).
    const after0 = after[0];
    const after1 = after[1];
    const u = this.update;
    // Not fed by a hole: the learned values hold for every match.
    const fixedCount = countHole < 0 ? u.completionTokens : undefined;
    const fixedText = hasText ? undefined : u.textDelta;
    const carriesToken = u.carriesToken;
    const noContent = u.noContent === true;
    let expect: string | null = null;
    let completion: number | null = null;
    let tokenEvents = 0;
    let matched = 0;
    let np = 0;
    let lastMatched = '';
    // The kept events from `from` on, while they match as predicted: one loop for a whole batch,
    // with no call per event (see Arrivals). The texts are checked for characters that need
    // unescaping once per batch, joined, unless `checkEach` (see run).
    const scan = (k: Arrivals, from: number, count: number, checkEach: boolean): number => {
      const data = k.data;
      const at = k.at;
      const times = k.times;
      const counts = k.tokens;
      let n = k.n;
      let i = from;
      for (; i < count; i++) {
        const e = expect;
        if (e === null) break;
        const raw = data[i];
        const s = inputOf === null ? raw : inputOf(raw);
        if (s === undefined) break;
        let text = fixedText;
        if (hasText) {
          const end = s.length - e.length;
          // Compared in place, no string made: on k6's engine startsWith cuts a copy first and
          // costs twice what lastIndexOf from 0 does (docs/fidelity.md, "One VU's JavaScript").
          if (!(end > plen && s.endsWith(e) && s.lastIndexOf(prefix, 0) === 0)) break;
          text = s.slice(plen, end);
          if (checkEach && UNSAFE_TEXT.test(text)) break;
        } else if (wrap === null ? s !== e : !s.endsWith(e) || (refuse !== null && s.lastIndexOf(refuse, 0) === 0)) {
          break;
        }
        // It matches: from here on, the chunk is taken. The next prediction is built in one
        // template literal for the usual one or two holes (one string made instead of two per hole).
        let c = fixedCount;
        if (nh === 1) {
          const s0 = step[0];
          const x = last[0] + s0;
          last[0] = x;
          if (countHole === 0) c = x;
          expect = `${head}${x + s0}${after0}`;
        } else if (nh === 2) {
          const s0 = step[0];
          const s1 = step[1];
          const x = last[0] + s0;
          const y = last[1] + s1;
          last[0] = x;
          last[1] = y;
          if (countHole === 0) c = x;
          else if (countHole === 1) c = y;
          expect = `${head}${x + s0}${after0}${y + s1}${after1}`;
        } else {
          let next = head;
          for (let h = 0; h < nh; h++) {
            const x = last[h] + step[h];
            last[h] = x;
            if (h === countHole) c = x;
            next += x + step[h] + after[h];
          }
          expect = next;
        }
        lastMatched = raw;
        matched++;
        if (text) parts[np++] = text;
        let tokens: number | null = null;
        // A count below the last one: see Accumulator.update.
        if (c !== undefined && (completion === null || c >= completion)) {
          if (completion !== null) tokens = c - completion;
          else if (tokenEvents === 0) tokens = c;
          completion = c;
        }
        if (!(carriesToken || (!noContent && tokens !== null && tokens > 0))) continue;
        tokenEvents++;
        times[n] = at[i];
        counts[n++] = tokens === null ? TOKENS_UNKNOWN : tokens;
      }
      k.n = n;
      return i;
    };
    // One test of the batch's texts joined costs k6's engine far less than one per event; when it
    // finds a character to unescape, the batch is read again from the same state, event by event,
    // and stops before the chunk that holds it (the full parser reads that one).
    const run = (k: Arrivals, from: number, count: number): number => {
      if (!hasText) return scan(k, from, count, false);
      const expect0 = expect;
      const last0 = last.slice();
      const completion0 = completion;
      const tokenEvents0 = tokenEvents;
      const matched0 = matched;
      const lastMatched0 = lastMatched;
      const n0 = k.n;
      const np0 = np;
      const i = scan(k, from, count, false);
      if (np === np0 || !UNSAFE_TEXT.test(parts.slice(np0, np).join(''))) return i;
      expect = expect0;
      for (let h = 0; h < nh; h++) last[h] = last0[h];
      completion = completion0;
      tokenEvents = tokenEvents0;
      matched = matched0;
      lastMatched = lastMatched0;
      k.n = n0;
      np = np0;
      parts.length = np0;
      return scan(k, from, count, true);
    };
    // One event on its own (a body read whole, tests): the same loop over one kept event.
    let one: Arrivals | null = null;
    const read = (s: string): number | null => {
      one ??= arrivals();
      one.data[0] = s;
      one.n = 0;
      if (run(one, 0, 1) === 0) return null;
      return one.n === 0 ? EVENT_NONE : one.tokens[0];
    };
    return {
      read,
      run,
      get: () => {
        // The template's own prediction follows the chunks read here.
        this.expect = expect === null || wrap === null ? expect : expect.slice(lead.length, expect.length - trail.length);
        return { completion, tokenEvents, matched, lastMatched };
      },
      set: (c, t) => {
        completion = c;
        tokenEvents = t;
        matched = 0;
        np = parts.length;
        const e = this.expect;
        expect = e === null || wrap === null ? e : lead + e + trail;
      },
    };
  }

  /** Any values in the holes: each is found and checked. */
  private matchAny(s: string): boolean {
    const prefix = this.prefix;
    let pos = prefix.length;
    if (s.slice(0, pos) !== prefix) return false;
    const pieces = this.pieces;
    const n = pieces.length - 1;
    const u = this.update;
    if (this.hasText) {
      // The text ends at the first quote: a text holding a quote (or a backslash) does not match.
      const tail = pieces[0];
      const end = spanEnd(s, tail, pos, n === 0);
      if (end < 0) return false;
      const text = s.slice(pos, end);
      if (UNSAFE_TEXT.test(text)) return false;
      u.textDelta = text;
      pos = end + tail.length;
    } else if (n === 0) {
      return s.length === pos;
    }
    let ids = false;
    const values: number[] = [];
    for (let i = 0; i < n;) {
      const next = pieces[++i];
      const end = spanEnd(s, next, pos, i === n);
      if (end < 0) return false;
      const v = s.slice(pos, end);
      if (this.isIds[i - 1]) {
        if (!INT_ARRAY.test(v)) return false;
        ids = true;
        values.push(NaN);
      } else {
        const x = +v;
        // The number's own shortest form: no spaces, signs, leading zeros, exponents or non-numbers.
        if (x - x !== 0 || '' + x !== v) return false;
        // A count below zero is no count (num): the full parser reads it.
        if (x < 0 && this.fields[i - 1] !== null) return false;
        values.push(x);
      }
      pos = end + next.length;
    }
    const fields = this.fields;
    for (let i = 0; i < n; i++) {
      const f = fields[i];
      if (f !== null) u[f] = values[i];
      this.step[i] = values[i] - this.last[i];
      this.last[i] = values[i];
    }
    if (++this.seen === 2) this.settle();
    if (ids) this.expect = null;
    else this.predict();
    return true;
  }

  /**
   * Learns the shape shared by `prev` and `cur`, consecutive chunks of one stream, each with the
   * update `parse` gave for it; null when there is none to learn (no plain text where `textKeys`
   * say, an ambiguous layout, the chunks' layouts differing, a check failing).
   * @param textKeys keys whose string value is the generated text (none: a template without text).
   * @param parse the full reading of a chunk of this kind; undefined when it is not valid.
   */
  static learn(
    prev: { s: string; u: ChunkUpdate },
    cur: { s: string; u: ChunkUpdate },
    textKeys: readonly string[],
    parse: (s: string) => ChunkUpdate | undefined,
  ): ChunkTemplate | null {
    const b = layout(cur.s, cur.u, textKeys);
    if (b === null) return null;
    const pieces = b.pieces;
    for (let i = 1; i < pieces.length; i++) if (pieces[i] === '' || CONTINUES_VALUE.test(pieces[i])) return null;
    if (b.text !== null && !pieces[0].startsWith('"')) return null;

    // What each hole feeds: read a copy of `cur` with other values in the holes (and the text).
    const u = cur.u;
    const spans = b.spans;
    const altText = b.text === null ? undefined : `${b.text}x`;
    const marks = spans.map((_, i) => 7_000_003 + 1_009 * i);
    let altered = b.prefix + (altText === undefined ? '' : altText + pieces[0]);
    for (let i = 0; i < spans.length; i++) altered += (spans[i].ids ? `[${marks[i]}]` : String(marks[i])) + pieces[i + 1];
    const alt = parse(altered);
    if (alt === undefined || alt.textDelta !== (altText ?? u.textDelta)) return null;
    for (const f of OTHER_FIELDS) if (alt[f] !== u[f]) return null;
    const fields: Array<Field | null> = spans.map(() => null);
    for (const f of FIELDS) {
      if (alt[f] === u[f]) continue;
      const i = marks.indexOf(alt[f] as number);
      if (i < 0 || spans[i].ids || fields[i] !== null) return null;
      fields[i] = f;
    }
    const t = new ChunkTemplate(b.prefix, { hasText: b.text !== null, pieces, isIds: spans.map((sp) => sp.ids), fields }, u);
    // Both chunks must match and give back their own updates; the second settles the holes.
    return t.verify(prev) && t.verify(cur) ? t : null;
  }

  /**
   * The template of a new stream whose chunk `s` (read in full as `u`) has the layout of
   * `skeleton`, the template of an earlier stream: same pieces after the text, a prefix that
   * differs only in its values (an id, a time). Null when it does not.
   */
  static rebase(skeletons: readonly Skeleton[], s: string, u: ChunkUpdate): ChunkTemplate | null {
    for (let k = 0; k < skeletons.length; k++) {
      const sk = skeletons[k];
      // The prefix: as long as the pattern says; what follows it is checked by matching.
      const m = sk.prefixPattern.exec(s);
      if (m === null) continue;
      const t = new ChunkTemplate(m[0], { hasText: sk.hasText, pieces: sk.pieces.slice(), isIds: sk.isIds.slice(), fields: sk.fields.slice() }, u, sk);
      if (t.verify({ s, u })) return t;
    }
    return null;
  }

  /** Matches a chunk read in full and gives back its update. */
  private verify(c: { s: string; u: ChunkUpdate }): boolean {
    if (!this.matchAny(c.s) || (this.hasText && this.update.textDelta !== c.u.textDelta)) return false;
    // Indexed, as in every loop that runs per stream: a for-of costs k6's engine an object per step.
    for (let i = 0; i < FIELDS.length; i++) if (this.update[FIELDS[i]] !== c.u[FIELDS[i]]) return false;
    return true;
  }
}
