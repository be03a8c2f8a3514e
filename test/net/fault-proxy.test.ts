// The fault proxy itself, against a server that sends a known byte stream: each fault does to the
// bytes what it says, so that a scenario run through it tests the suite and not the proxy.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { startFaultProxy, type NetFaults } from './fault-proxy';

/** A server that sends `payload` in `pieces` writes, `gapMs` apart, then ends. */
async function source(payload: Buffer, pieces: number, gapMs: number): Promise<{ port: number; close: () => void }> {
  const server = net.createServer((s) => {
    s.setNoDelay(true);
    const size = Math.ceil(payload.length / pieces);
    let i = 0;
    const next = () => {
      if (i >= payload.length) return void s.end();
      s.write(payload.subarray(i, i + size));
      i += size;
      setTimeout(next, gapMs);
    };
    next();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return { port: (server.address() as net.AddressInfo).port, close: () => server.close() };
}

/** What a client reads through the proxy: each read with its time, and how the connection ended. */
async function read(faults: NetFaults, payload: Buffer, pieces = 10, gapMs = 20) {
  const src = await source(payload, pieces, gapMs);
  const proxy = await startFaultProxy(src.port, faults);
  try {
    return await new Promise<{ reads: Array<{ t: number; n: number }>; bytes: Buffer; ending: string }>((resolve) => {
      const reads: Array<{ t: number; n: number }> = [];
      const chunks: Buffer[] = [];
      const t0 = Date.now();
      const c = net.connect(proxy.port, '127.0.0.1');
      let ending = 'end';
      c.on('data', (d: Buffer) => {
        reads.push({ t: Date.now() - t0, n: d.length });
        chunks.push(d);
      });
      c.on('error', (e: NodeJS.ErrnoException) => (ending = e.code ?? 'error'));
      c.on('close', () => resolve({ reads, bytes: Buffer.concat(chunks), ending }));
    });
  } finally {
    await proxy.close();
    src.close();
  }
}

const payload = Buffer.from('data: {"token":"x"}\n\n'.repeat(40));

test('no fault: every byte, in order', async () => {
  const r = await read({}, payload);
  assert.deepEqual(r.bytes, payload);
  assert.equal(r.ending, 'end');
});

test('splitBytes: two writes of the server reach the client in many small reads', async () => {
  const r = await read({ splitBytes: 3 }, payload, 2, 5);
  assert.deepEqual(r.bytes, payload);
  // The server wrote twice; the client read many times (reads may join a few 3-byte segments).
  assert.ok(r.reads.length > 20, `${r.reads.length} reads`);
});

test('holdMs: what the server spread over 200 ms arrives in one or two bursts', async () => {
  const r = await read({ holdMs: 1000 }, payload, 10, 20);
  assert.deepEqual(r.bytes, payload);
  const spread = r.reads[r.reads.length - 1].t - r.reads[0].t;
  assert.ok(spread < 50, `reads spread over ${spread} ms`);
});

test('delayMs: the first byte comes that much later', async () => {
  const r = await read({ delayMs: 150 }, payload);
  assert.ok(r.reads[0].t >= 140, `first read at ${r.reads[0].t} ms`);
  assert.deepEqual(r.bytes, payload);
});

test('cutAfterBytes: exactly that many bytes, then a clean end', async () => {
  const r = await read({ cutAfterBytes: 100 }, payload);
  assert.equal(r.bytes.length, 100);
  assert.equal(r.ending, 'end');
});

test('resetAfterBytes: at most that many bytes, then a reset', async () => {
  const r = await read({ resetAfterBytes: 100 }, payload);
  assert.ok(r.bytes.length <= 100);
  assert.equal(r.ending, 'ECONNRESET');
});

test('bytesPerSec: the reply takes as long as the rate says', async () => {
  const r = await read({ bytesPerSec: 2000 }, payload, 1, 0);
  assert.deepEqual(r.bytes, payload);
  // 840 bytes at 2000 B/s: about 420 ms, the first second's budget paced evenly.
  assert.ok(r.reads[r.reads.length - 1].t >= 350, `done at ${r.reads[r.reads.length - 1].t} ms`);
});
