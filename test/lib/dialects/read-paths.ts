// The paths a reply takes to a dialect's reader, shared by the corpus and fuzz tests: the http
// transport's whole body (Dialect.parseBody), and the sse transport's events, framed from the bytes
// as xk6-sse frames them and read one at a time or kept and read in batches (lib/k6/transport.ts).
import { createDialect, type DialectName, type GenerationResult, type RequestContext } from '../../../lib/dialects/index';
import { asErrorData } from '../../../lib/reading';
import { ARRIVAL_BATCH, arrivals, restart, tokenColumns } from '../../../lib/reading';
import { EVENT_DONE, EVENT_NONE } from '../../../lib/dialects/types';

export const CTX: Omit<RequestContext, 'route'> = { dialectVar: 'DIALECT', modelVar: 'MODEL', model: 'm' };

const DONE = '[DONE]';
const utf8 = new TextDecoder();

/**
 * The events of a stream as the sse transport hands them to its reader: lines are cut from the bytes
 * as they arrive (in pieces ending at `cuts`, byte offsets: a TCP read may end anywhere, inside a
 * UTF-8 character too) at LF, CRLF or CR as the SSE spec says (xk6-sse itself, at 01bdfbe, ends
 * lines at LF only and an event at a bare LF line: a CRLF stream gives it no event), an event is
 * dispatched at each blank line (with no data after a comment alone, as xk6-sse does), an `error:` line (not SSE, reported
 * by xk6-sse as an error) and `event: error` become error data as the transport makes them. Bytes
 * after the last blank line are an event never completed: dropped.
 */
export function sseEvents(body: Uint8Array | string, cuts: readonly number[] = []): string[] {
  const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
  const out: string[] = [];
  let data: string[] = [];
  let name = '';
  let pending: Uint8Array = new Uint8Array(0);
  const line = (raw: Uint8Array) => {
    const l = utf8.decode(raw);
    if (l === '') {
      // Every blank line, as xk6-sse does: one after a comment alone gives an event without data.
      const joined = data.join('\n');
      out.push(name === 'error' ? asErrorData(joined) : joined);
      data = [];
      name = '';
    } else if (l.startsWith('data:')) data.push(l.slice(l.startsWith('data: ') ? 6 : 5));
    else if (l.startsWith('event:')) name = l.slice(6).trim();
    else if (l.startsWith('error:')) out.push(asErrorData(l.slice(6)));
  };
  const ends = [...cuts.filter((c) => c > 0 && c < bytes.length), bytes.length].sort((a, b) => a - b);
  let from = 0;
  for (const end of ends) {
    // One read of the socket: appended to what is left of the last one, cut into whole lines.
    const piece = bytes.subarray(from, end);
    from = end;
    const buf = new Uint8Array(pending.length + piece.length);
    buf.set(pending);
    buf.set(piece, pending.length);
    let start = 0;
    for (let i = 0; i < buf.length; i++) {
      if (buf[i] === 0x0a) {
        line(buf.subarray(start, i));
        start = i + 1;
      } else if (buf[i] === 0x0d && (i + 1 < buf.length || end === bytes.length)) {
        // A CR ends a line, as the SSE spec and splitSseEvents have it (CRLF: one end); a CR last in
        // a read waits for the next byte.
        line(buf.subarray(start, i));
        if (buf[i + 1] === 0x0a) i++;
        start = i + 1;
      } else if (buf[i] === 0x0d) {
        break;
      }
    }
    pending = buf.slice(start);
  }
  return out;
}

export interface StreamRead {
  result: GenerationResult;
  /** The tokens of each token-carrying event, as the reader answered them (NaN: not said). */
  tokens: number[];
}

/** One event at a time (the per-event path), stopping at [DONE] as the transport does. */
export function oneByOne(dialect: DialectName, events: readonly string[], ctx = CTX): StreamRead {
  const r = createDialect(dialect, ctx).streamReader();
  const tokens: number[] = [];
  for (const d of events) {
    const c = r.onEvent(d);
    if (c === EVENT_DONE) break;
    if (c !== EVENT_NONE) tokens.push(c);
  }
  return { result: r.finish(), tokens };
}

/**
 * Kept and read in batches, as the sse transport keeps events and reads them ARRIVAL_BATCH at a
 * time; `sizes` (cycled) gives other batch ends, as a proxy that holds events and flushes them does.
 */
export function batched(
  dialect: DialectName,
  events: readonly string[],
  sizes: readonly number[] = [ARRIVAL_BATCH],
  warmWith?: readonly string[],
  ctx = CTX,
): StreamRead {
  const d = createDialect(dialect, ctx);
  // A stream read before by the same dialect leaves it its chunk template (lib/reading/chunk-template.ts).
  if (warmWith) oneByOneOn(d.streamReader(), warmWith);
  const r = d.streamReader();
  const log = arrivals();
  restart(log);
  let m = 0;
  let k = 0;
  for (let i = 0; i < events.length; i++) {
    log.at[m] = i + 1;
    log.data[m++] = events[i];
    if (m >= sizes[k % sizes.length]) {
      r.readKept(log, m);
      m = 0;
      k++;
    }
    if (events[i] === DONE) break;
  }
  r.readKept(log, m);
  const cols = tokenColumns(log);
  return { result: r.finish(), tokens: cols.tokens.slice(0, cols.n) };
}

function oneByOneOn(r: ReturnType<ReturnType<typeof createDialect>['streamReader']>, events: readonly string[]): GenerationResult {
  for (const e of events) if (r.onEvent(e) === EVENT_DONE) break;
  return r.finish();
}

/** The same stream twice through one dialect: the second read starts from the first one's template. */
export function warm(dialect: DialectName, events: readonly string[]): GenerationResult {
  const d = createDialect(dialect, CTX);
  oneByOneOn(d.streamReader(), events);
  return oneByOneOn(d.streamReader(), events);
}
