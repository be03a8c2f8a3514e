// A Prometheus remote-write request (protocol 1.0: a protobuf WriteRequest, snappy-compressed),
// encoded by hand so that a Node program can publish a few series without dependencies. Only
// what a push of gauges needs: labels and one sample per series. The snappy stream is written as
// literals only (valid snappy, no compression), which Prometheus decodes like any other. Pure.

/** One sample to push: a series (its labels, __name__ among them) and its value at a time. */
export interface RemoteWriteSample {
  /** Must include __name__. */
  labels: Record<string, string>;
  value: number;
  /** ms since the epoch. */
  timestampMs: number;
}

function varint(n: number, out: number[]): void {
  // Non-negative integers up to 2^53: 7 bits per byte, low first.
  let v = n;
  while (v >= 0x80) {
    out.push((v % 0x80) | 0x80);
    v = Math.floor(v / 0x80);
  }
  out.push(v);
}

function bytesField(field: number, body: Uint8Array | number[], out: number[]): void {
  out.push((field << 3) | 2);
  varint(body.length, out);
  for (const b of body) out.push(b);
}

/** UTF-8 bytes (written out: this module is also type-checked for k6, which has no TextEncoder). */
function utf8(s: string): number[] {
  const out: number[] = [];
  for (const ch of s) {
    const c = ch.codePointAt(0) as number;
    if (c < 0x80) out.push(c);
    else if (c < 0x800) out.push(0xc0 | (c >> 6), 0x80 | (c & 63));
    else if (c < 0x10000) out.push(0xe0 | (c >> 12), 0x80 | ((c >> 6) & 63), 0x80 | (c & 63));
    else out.push(0xf0 | (c >> 18), 0x80 | ((c >> 12) & 63), 0x80 | ((c >> 6) & 63), 0x80 | (c & 63));
  }
  return out;
}

function label(name: string, value: string): number[] {
  const out: number[] = [];
  bytesField(1, utf8(name), out);
  bytesField(2, utf8(value), out);
  return out;
}

function sample(value: number, ts: number): number[] {
  const out: number[] = [(1 << 3) | 1];
  const b = new Uint8Array(8);
  new DataView(b.buffer).setFloat64(0, value, true);
  out.push(...b);
  out.push(2 << 3);
  varint(ts, out);
  return out;
}

/** The protobuf WriteRequest for the samples (labels sorted by name, as Prometheus requires). */
export function writeRequest(samples: readonly RemoteWriteSample[]): Uint8Array {
  const out: number[] = [];
  for (const s of samples) {
    if (!s.labels.__name__) throw new Error('a remote-write sample needs a __name__ label');
    const ts: number[] = [];
    for (const name of Object.keys(s.labels).sort()) bytesField(1, label(name, s.labels[name]), ts);
    bytesField(2, sample(s.value, Math.round(s.timestampMs)), ts);
    bytesField(1, ts, out);
  }
  return Uint8Array.from(out);
}

/** Snappy block format with literal elements only. */
export function snappyLiteral(data: Uint8Array): Uint8Array {
  const out: number[] = [];
  varint(data.length, out);
  for (let i = 0; i < data.length; i += 65536) {
    const chunk = data.subarray(i, Math.min(data.length, i + 65536));
    const n = chunk.length - 1;
    if (n < 60) out.push(n << 2);
    else if (n < 0x100) out.push(60 << 2, n);
    else out.push(61 << 2, n & 0xff, n >> 8);
    for (const b of chunk) out.push(b);
  }
  return Uint8Array.from(out);
}

/** The body and headers of one remote-write POST. */
export function remoteWriteBody(samples: readonly RemoteWriteSample[]): { body: Uint8Array; headers: Record<string, string> } {
  return {
    body: snappyLiteral(writeRequest(samples)),
    headers: { 'Content-Type': 'application/x-protobuf', 'Content-Encoding': 'snappy', 'X-Prometheus-Remote-Write-Version': '0.1.0' },
  };
}
