// k6/x/sse on the double: events reach the script as they arrive on the wire, close() stops the
// stream, `timeout` ends it with an 'error' event, failures return {error} without handlers.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { runK6, type K6RunResult } from '../index';
import { fixture, loggedJSON } from './helpers';
import { closedPort, startServer, type TestServer } from './server';

interface Seen {
  events: Array<{ at: number; id: string; name: string; data: string; comment: string }>;
  errors: string[];
  start: number;
  openAt: number;
  res: { status: number; url: string; error: string; contentType: string };
  closedAfter: number;
  timeoutEvents: number;
  timeoutError: string;
  timeoutStatus: number;
  refused: { status: number; url: string; error: string; handlerCalled: boolean };
  notFound: number;
}

let server: TestServer;
let r: K6RunResult;
let seen: Seen;

before(async () => {
  server = await startServer();
  r = await runK6(fixture('sse.js'), {
    env: { BASE: server.url, CLOSED: String(await closedPort()) },
    extensions: { sse: true },
    quiet: true,
    timeoutMs: 20_000,
  });
  [seen] = loggedJSON<Seen>(r.stderr);
});
after(() => server.close());

describe('k6/x/sse', () => {
  test('events arrive one by one, when the server writes them', () => {
    assert.equal(r.exitCode, 0, r.stderr);
    const sent = server.sent.get('timed')!;
    const events = seen.events.filter((e) => e.name === 'token');
    assert.equal(events.length, 3);
    events.forEach((e, i) => {
      // The handler runs when the event arrives, not when the stream ends.
      const lag = e.at - sent[i]!;
      assert.ok(lag >= -2 && lag < 50, `event ${i} lag ${lag} ms`);
    });
    assert.ok(events[0]!.at - seen.openAt >= 350, 'the first event comes ~400 ms after the headers');
    assert.deepEqual(events.map((e) => [e.id, e.data]), [['0', '{"i":0}'], ['1', '{"i":1}'], ['2', '{"i":2}']]);
    assert.equal(seen.events.at(-1)!.data, '[DONE]');
    assert.deepEqual(seen.errors, []);
    assert.deepEqual(seen.res, { status: 200, url: `${server.url}/stream?id=timed&first=400&events=3&gap=150`, error: '', contentType: 'text/event-stream' });
  });

  test('client.close() stops reading', () => {
    assert.equal(seen.closedAfter, 2);
    assert.ok(server.sent.get('closed')!.length < 6);
  });

  test('timeout bounds the whole exchange and ends with an error event', () => {
    assert.equal(seen.timeoutEvents, 1);
    assert.equal(seen.timeoutError, 'context deadline exceeded (Client.Timeout or context cancellation while reading body)');
    assert.equal(seen.timeoutStatus, 200);
  });

  test('a failed connection returns the error, no handler runs', () => {
    assert.equal(seen.refused.status, 0);
    assert.equal(seen.refused.url, '');
    assert.match(seen.refused.error, /^Get "http:\/\/127\.0\.0\.1:\d+\/": dial tcp 127\.0\.0\.1:\d+: connect: connection refused$/);
    assert.equal(seen.refused.handlerCalled, false);
  });

  test('non-2xx statuses are returned', () => {
    assert.equal(seen.notFound, 404);
  });

  test('metrics as the extension emits them', () => {
    const m = r.summaryData!.metrics;
    // Events handed to the script: 3 tokens + [DONE], 2 before close(), 1 before the timeout,
    // 1 token + [DONE] from the 404 stream.
    assert.equal(m.sse_event!.values.count, 9);
    assert.equal(m.http_reqs!.values.count, 5);
    assert.equal(m.http_req_failed, undefined);
    assert.ok(m.data_received!.values.count! > 0);
  });
});
