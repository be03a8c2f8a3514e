// Splits a whole text/event-stream body into the `data` payloads of its events.
// Used by the http transport, which receives the stream as one body. The sse transport gets
// events already framed by the extension and never calls this.

export interface SplitEvents {
  /** The data payload of each complete event, multi-line data joined with "\n". */
  data: string[];
  /** Bytes after the last complete event: non-empty means the body was cut mid-event. */
  partial: string;
}

/** Events end with a blank line; lines starting ":" are comments; only `data:` fields matter here. */
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
  // Trailing newlines alone are not a partial event.
  const rest = text.slice(pos);
  return { data, partial: rest.trim() === '' ? '' : rest };
}

function eventData(text: string, start: number, end: number): string | null {
  let out: string | null = null;
  let lineStart = start;
  while (lineStart < end) {
    let lineEnd = text.indexOf('\n', lineStart);
    if (lineEnd === -1 || lineEnd > end) lineEnd = end;
    if (text.startsWith('data:', lineStart)) {
      let valueStart = lineStart + 5;
      if (text.charCodeAt(valueStart) === 32) valueStart++;
      const value = text.slice(valueStart, lineEnd);
      out = out === null ? value : out + '\n' + value;
    }
    lineStart = lineEnd + 1;
  }
  return out;
}

/** A body is an event stream when the server says so or it starts with an SSE field. */
export function looksLikeEventStream(body: string, contentType: string): boolean {
  if (contentType.toLowerCase().includes('text/event-stream')) return true;
  const head = body.trimStart().slice(0, 6);
  return head.startsWith('data:') || head.startsWith(':');
}
