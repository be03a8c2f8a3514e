// The hand-written remote-write encoding: decoded back here by a small protobuf and snappy reader,
// and, where Debian's prometheus is installed, pushed to a real Prometheus and queried.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { remoteWriteBody, snappyLiteral, writeRequest } from '../../../lib/prometheus/remote-write';
import { findBinaries, queryInstant, startPrometheus } from '../../deploy/prometheus';

function unsnappy(b: Uint8Array): Uint8Array {
  let i = 0;
  let len = 0;
  for (let shift = 0; ; shift += 7) {
    const x = b[i++];
    len += (x & 0x7f) * 2 ** shift;
    if (x < 0x80) break;
  }
  const out: number[] = [];
  while (i < b.length) {
    const tag = b[i++];
    assert.equal(tag & 3, 0, 'literal elements only');
    let n = tag >> 2;
    if (n === 60) n = b[i++];
    else if (n === 61) n = b[i++] | (b[i++] << 8);
    for (let k = 0; k <= n; k++) out.push(b[i++]);
  }
  assert.equal(out.length, len);
  return Uint8Array.from(out);
}

type Field = { no: number; wire: number; bytes?: Uint8Array; num?: number };
function fields(b: Uint8Array): Field[] {
  const out: Field[] = [];
  let i = 0;
  const varint = () => {
    let v = 0;
    for (let shift = 0; ; shift += 7) {
      const x = b[i++];
      v += (x & 0x7f) * 2 ** shift;
      if (x < 0x80) return v;
    }
  };
  while (i < b.length) {
    const key = varint();
    const wire = key & 7;
    if (wire === 2) {
      const n = varint();
      out.push({ no: key >> 3, wire, bytes: b.subarray(i, i + n) });
      i += n;
    } else if (wire === 1) {
      out.push({ no: key >> 3, wire, num: new DataView(b.buffer, b.byteOffset + i, 8).getFloat64(0, true) });
      i += 8;
    } else out.push({ no: key >> 3, wire, num: varint() });
  }
  return out;
}

test('WriteRequest: sorted labels (UTF-8), one float sample with its timestamp; snappy literals round-trip', () => {
  const req = writeRequest([
    { labels: { __name__: 'k6_llm_capacity', variant: 'dflash', slo: 'p99 TTFT ≤ 500 ms' }, value: 44.5, timestampMs: 1_764_000_000_123 },
  ]);
  const [series] = fields(req);
  assert.equal(series.no, 1);
  const parts = fields(series.bytes!);
  const labels = parts.filter((f) => f.no === 1).map((f) => fields(f.bytes!).map((x) => new TextDecoder().decode(x.bytes)));
  assert.deepEqual(labels, [
    ['__name__', 'k6_llm_capacity'],
    ['slo', 'p99 TTFT ≤ 500 ms'],
    ['variant', 'dflash'],
  ]);
  const sample = fields(parts.find((f) => f.no === 2)!.bytes!);
  assert.deepEqual(
    sample.map((f) => f.num),
    [44.5, 1_764_000_000_123],
  );
  const big = Uint8Array.from({ length: 70_000 }, (_, k) => k % 251);
  assert.deepEqual(unsnappy(snappyLiteral(big)), big);
  assert.throws(() => writeRequest([{ labels: { variant: 'x' }, value: 1, timestampMs: 0 }]), /__name__/);
});

const bins = findBinaries();
test('a real Prometheus accepts the push and answers the query', { skip: typeof bins === 'string' ? bins : undefined }, async () => {
  const prom = await startPrometheus(bins as Exclude<typeof bins, string>, mkdtempSync(join(tmpdir(), 'prom-rw-')), ['--web.enable-remote-write-receiver']);
  try {
    const now = Date.now();
    const { body, headers } = remoteWriteBody([
      { labels: { __name__: 'k6_llm_capacity', testid: 't1', variant: 'dflash' }, value: 44, timestampMs: now },
      { labels: { __name__: 'k6_llm_capacity', testid: 't1', variant: 'mtp' }, value: 25, timestampMs: now },
    ]);
    const res = await fetch(`${prom.base}/api/v1/write`, { method: 'POST', body, headers });
    assert.ok(res.status === 204 || res.status === 200, `${res.status} ${await res.text()}`);
    const got = await queryInstant(prom.base, 'k6_llm_capacity{testid="t1"}', now / 1000);
    const byVariant = Object.fromEntries(got.map((s) => [s.metric.variant, s.values[0][1]]));
    assert.deepEqual(byVariant, { dflash: 44, mtp: 25 });
  } finally {
    await prom.stop();
  }
});
