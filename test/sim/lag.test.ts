// The ground truth as a ruler: arrivals are taken when the headers are read, and the records say
// when the simulator itself fell behind (late intake, late steps), so a client is never blamed for
// the simulator's lag. The lag here is forced by blocking the event loop the simulator shares with
// this test; nothing asserts how fast the machine is.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import type { RequestRecord, SimHandle } from '../../sim/index';
import { nowMs, request, sim, sleep } from './helpers';

const genBody = (maxNew: number, extra: Record<string, unknown> = {}) => ({
  input_ids: [1, 2, 3, 4],
  sampling_params: { max_new_tokens: maxNew, ignore_eos: true },
  stream: true,
  ...extra,
});

/** Blocks this process's event loop (and so the in-process simulator) for `ms`. */
function blockLoop(ms: number): void {
  const until = nowMs() + ms;
  while (nowMs() < until) {
    // busy-wait
  }
}

function connect(url: string): Promise<net.Socket> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const s = net.connect({ host: hostname, port: Number(port) }, () => resolve(s));
    s.on('error', reject);
  });
}

/** Reads a raw HTTP response until the socket closes (the request asks for `connection: close`). */
function readAll(s: net.Socket): Promise<string> {
  return new Promise((resolve) => {
    let out = '';
    s.setEncoding('utf8');
    s.on('data', (d: string) => (out += d));
    s.on('close', () => resolve(out));
  });
}

async function recordFor(s: SimHandle, rid: string): Promise<RequestRecord> {
  for (let i = 0; i < 400; i++) {
    const r = s.groundTruth().requests.find((x) => x.id === rid);
    if (r && r.finishMs !== null) return r;
    await sleep(5);
  }
  throw new Error(`no finished record for ${rid}`);
}

test('arrival is when the headers are read, before the body has even been sent', async () => {
  const s = await sim();
  const sock = await connect(s.url);
  const reply = readAll(sock);
  const body = JSON.stringify(genBody(3, { rid: 'split', stream: false }));
  const tHeaders = nowMs();
  sock.write(
    `POST /generate HTTP/1.1\r\nhost: sim\r\nconnection: close\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n`,
  );
  await sleep(80);
  const tBody = nowMs();
  sock.write(body);
  assert.match(await reply, /^HTTP\/1\.1 200 /);
  const rec = await recordFor(s, 'split');
  assert.ok(
    rec.arrivalMs >= tHeaders && rec.arrivalMs < tBody,
    `arrival ${rec.arrivalMs - tHeaders} ms after the headers, body sent ${tBody - tHeaders} ms after them`,
  );
  assert.equal(typeof rec.intakeLagMs, 'number');
  assert.ok(rec.intakeLagMs >= 0 && rec.lagMs >= rec.intakeLagMs);
  assert.equal(rec.behind, rec.lagMs > s.options.lagThresholdMs);
});

test('requests read together are all timestamped before any of them is worked on', async () => {
  const s = await sim();
  const [a, b] = await Promise.all([connect(s.url), connect(s.url)]);
  // One request on each connection first, so the simulator has accepted both and reads both.
  await Promise.all(
    [a, b].map(
      (c) =>
        new Promise<void>((resolve) => {
          c.once('data', () => resolve());
          c.write('GET /health HTTP/1.1\r\nhost: sim\r\n\r\n');
        }),
    ),
  );
  const replies = [readAll(a), readAll(b)];
  // A's prompt takes a while to parse and tokenize; B must not wait for it to get its arrival time.
  const heavy = JSON.stringify(genBody(2, { rid: 'A', stream: false, input_ids: undefined, text: 'lorem ipsum dolor '.repeat(8_000) }));
  const light = JSON.stringify(genBody(2, { rid: 'B', stream: false }));
  const raw = (body: string) =>
    `POST /generate HTTP/1.1\r\nhost: sim\r\nconnection: close\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
  // Both are in the kernel before the simulator's loop next polls, so it reads them in one go.
  a.write(raw(heavy));
  b.write(raw(light));
  await Promise.all(replies);
  const [ra, rb] = [await recordFor(s, 'A'), await recordFor(s, 'B')];
  assert.ok(ra.queueExitMs !== null && rb.arrivalMs < ra.queueExitMs, 'B was timestamped before A reached the engine');
  assert.ok(ra.ordinal < rb.ordinal, 'and they are worked on in arrival order');
});

test('a blocked event loop: late steps and a late intake are reported as lag, in the records and the summary', async () => {
  const s = await sim({ timeScale: 20 });
  const from = nowMs();
  // A stream in flight; once it has produced a few events, block the loop for 60 ms.
  const streaming = request(s.url, '/generate', { body: genBody(60, { rid: 'victim' }) });
  while ((s.groundTruth().requests.find((r) => r.id === 'victim')?.events.length ?? 0) < 3) await sleep(1);
  // And a request whose bytes reach the kernel just before the block: the simulator reads them only after it.
  const sock = await connect(s.url);
  const reply = readAll(sock);
  const body = JSON.stringify(genBody(2, { rid: 'waiting', stream: false }));
  const tSent = nowMs();
  sock.write(
    `POST /generate HTTP/1.1\r\nhost: sim\r\nconnection: close\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
  blockLoop(60);
  await streaming;
  await reply;
  const threshold = s.options.lagThresholdMs;

  const victim = await recordFor(s, 'victim');
  assert.ok(
    victim.events.some((e) => e.timeMs - e.scheduledMs > threshold),
    'an event written well after its scheduled step end',
  );
  assert.ok(victim.lagMs > threshold, `lagMs ${victim.lagMs}`);
  assert.equal(victim.behind, true);

  const waiting = await recordFor(s, 'waiting');
  assert.ok(waiting.intakeLagMs > threshold, `intakeLagMs ${waiting.intakeLagMs}`);
  assert.equal(waiting.behind, true);
  // The reported bound covers the real wait (a little slack for the write itself).
  assert.ok(waiting.arrivalMs - tSent <= waiting.intakeLagMs + 5, `read ${waiting.arrivalMs - tSent} ms after the send, reported ${waiting.intakeLagMs}`);

  const sum = s.groundTruth().summary(from);
  assert.equal(sum.lagThresholdMs, threshold);
  assert.ok(sum.behind >= 2, `behind ${sum.behind}`);
  assert.ok(sum.stepsBehind >= 1, `stepsBehind ${sum.stepsBehind}`);
  assert.ok((sum.writeLagMs.count ?? 0) > 0 && (sum.lagMs.count ?? 0) >= 2 && (sum.intakeLagMs.count ?? 0) >= 2);
  const late = s.groundTruth().steps.filter((st) => st.sentMs - st.scheduledMs > threshold);
  assert.ok(late.length >= 1);
  for (const st of s.groundTruth().steps) assert.ok(st.sentMs >= st.actualMs, 'a step sends after it fires');
});

test('the lag threshold is an option; /sim/summary carries the lag figures', async () => {
  const s = await sim({ lagThresholdMs: 1000 });
  await request(s.url, '/generate', { body: genBody(4) });
  const r = await request(s.url, '/sim/summary');
  const sum = JSON.parse(r.body) as Record<string, unknown>;
  for (const k of ['lagThresholdMs', 'behind', 'lagMs', 'intakeLagMs', 'writeLagMs', 'stepsBehind']) assert.ok(k in sum, k);
  assert.equal(sum.lagThresholdMs, 1000);
  assert.throws(() => s.setFaults({ lagThresholdMs: 1 } as never), /unknown fault/);
});
