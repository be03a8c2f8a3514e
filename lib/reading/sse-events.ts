// Splits a whole text/event-stream body into the `data` payloads of its events.
// Used by the http transport, which receives the stream as one body. The sse transport gets
// events already framed by the extension and never calls this.

export interface SplitEvents {
  /** The data payload of each complete event, multi-line data joined with "\n". */
  data: string[];
  /** Bytes after the last complete event: non-empty means the body was cut mid-event. */
  partial: string;
}

/** Events end with a blank line; lines starting ":" are comments; `data:` fields and errors matter here. */
export function splitSseEvents(body: string): SplitEvents {
  const data: string[] = [];
  const text = body.indexOf('\r') === -1 ? body : body.replace(/\r\n?/g, '\n');
  let pos = 0;
  for (;;) {
    const end = text.indexOf('\n\n', pos);
    if (end === -1) break;
    const payload = eventData(text, pos, end);
    if (payload !== null) data.push(payload);
    pos = end + 2;
  }
  // An `error:` line counts once its line ends, though its event never did: xk6-sse reports such a
  // line as it reads it, and the sse transport keeps it (lib/k6/transport.ts).
  for (let at = pos, nl = text.indexOf('\n', at); nl !== -1; at = nl + 1, nl = text.indexOf('\n', at)) {
    if (text.startsWith('error:', at)) data.push(asErrorData(fieldValue(text, at + 6, nl)));
  }
  // Trailing newlines alone are not a partial event.
  const rest = text.slice(pos);
  return { data, partial: rest.trim() === '' ? '' : rest };
}

function eventData(text: string, start: number, end: number): string | null {
  let out: string | null = null;
  let errorLine: string | null = null;
  let errorEvent = false;
  let lineStart = start;
  while (lineStart < end) {
    let lineEnd = text.indexOf('\n', lineStart);
    if (lineEnd === -1 || lineEnd > end) lineEnd = end;
    if (text.startsWith('data:', lineStart)) {
      const value = fieldValue(text, lineStart + 5, lineEnd);
      out = out === null ? value : out + '\n' + value;
    } else if (text.startsWith('error:', lineStart)) {
      errorLine = fieldValue(text, lineStart + 6, lineEnd);
    } else if (text.startsWith('event:', lineStart) && fieldValue(text, lineStart + 6, lineEnd) === 'error') {
      errorEvent = true;
    }
    lineStart = lineEnd + 1;
  }
  if (errorLine !== null) return asErrorData(errorLine);
  return errorEvent && out !== null ? asErrorData(out) : out;
}

function fieldValue(text: string, from: number, to: number): string {
  return text.slice(text.charCodeAt(from) === 32 ? from + 1 : from, to);
}

/**
 * An error the server sent outside `data:` (llama.cpp before late 2025: an `error:` field line,
 * then `data: [DONE]`; others: `event: error`), as the data of an error chunk, so that every reader
 * records it as the request's error rather than a stream that simply ended.
 */
export function asErrorData(payload: string): string {
  const p = payload.trim();
  if (p.startsWith('{')) {
    try {
      const v = JSON.parse(p) as Record<string, unknown>;
      if (v !== null && typeof v === 'object' && !Array.isArray(v) && v.error !== undefined && v.error !== null) return p;
      return JSON.stringify({ error: v });
    } catch {
      // Not JSON: kept as the message below.
    }
  }
  return JSON.stringify({ error: { message: p } });
}

/** A body is an event stream when the server says so or it starts with an SSE field. */
export function looksLikeEventStream(body: string, contentType: string): boolean {
  if (contentType.toLowerCase().includes('text/event-stream')) return true;
  const head = body.trimStart().slice(0, 6);
  return head.startsWith('data:') || head.startsWith(':');
}
