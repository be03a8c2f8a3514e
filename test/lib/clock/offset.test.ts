import { test } from 'node:test';
import assert from 'node:assert/strict';
import { clockOffset, dateHeaderOffset, serverTimeOf } from '../../../lib/clock/offset';

test('a known offset: the server 250 ms ahead, the exchange with the shortest round trip kept', () => {
  // True offset 250: the server read its clock at the exchange's midpoint on the slow ones too, but
  // a queue on the way out (first exchange) puts the reading late: the short exchange is the one to trust.
  const r = clockOffset([
    { sendMs: 1000, serverMs: 1000 + 40 + 250, recvMs: 1050 },
    { sendMs: 2000, serverMs: 2000 + 2 + 250, recvMs: 2004 },
    { sendMs: 3000, serverMs: 3000 + 10 + 250, recvMs: 3020 },
  ]);
  assert.equal(r.offsetMs, 250);
  assert.equal(r.roundTripMs, 4);
  assert.equal(r.boundMs, 2);
  assert.equal(r.method, 'time-route');
  assert.equal(r.exchanges, 3);
  // A clock behind the server's by 3 s, read in whole milliseconds: sent at 500.5 and received at
  // 501.5 (read 500 and 501), the server's reading at 501.0 of this clock: the midpoint is taken
  // half a step after the readings', the bound widened by half a step.
  const behind = clockOffset([{ sendMs: 500, serverMs: 3501, recvMs: 501 }], 1);
  assert.equal(behind.offsetMs, 3000);
  assert.equal(behind.boundMs, 1);
  // The same readings at the ends of what they allow (sent at 500.0, received at 501.99, the server
  // read at either end): the true offset stays within the bound.
  for (const at of [500, 501.99]) {
    const r = clockOffset([{ sendMs: 500, serverMs: at + 3000, recvMs: 501 }], 1);
    assert.ok(Math.abs(r.offsetMs - 3000) <= r.boundMs, `${r.offsetMs} ± ${r.boundMs}`);
  }
  assert.throws(() => clockOffset([]), /no exchanges/);
  assert.throws(() => clockOffset([{ sendMs: 10, serverMs: 5, recvMs: 9 }]), /received before it was sent/);
});

test("the Date header fallback: the middle of the server's second, ±500 ms on top of half the round trip", () => {
  const t = Date.parse('Mon, 07 Dec 2026 14:00:00 GMT');
  const r = dateHeaderOffset([
    { sendMs: t - 2000 + 100, date: 'Mon, 07 Dec 2026 14:00:00 GMT', recvMs: t - 2000 + 110 },
    { sendMs: 0, date: 'not a date', recvMs: 1 },
  ]);
  assert.ok(r);
  assert.equal(r.method, 'http-date');
  assert.equal(r.offsetMs, 2000 + 500 - 105);
  assert.equal(r.boundMs, 505);
  assert.equal(dateHeaderOffset([{ sendMs: 0, date: '', recvMs: 1 }]), null);
});

test('the time route reply is read, anything else is not a time', () => {
  assert.equal(serverTimeOf('{"epoch_ms": 1765.25}'), 1765.25);
  assert.equal(serverTimeOf('{"epoch_ms": "x"}'), null);
  assert.equal(serverTimeOf('<html>'), null);
  assert.equal(serverTimeOf(null), null);
});
