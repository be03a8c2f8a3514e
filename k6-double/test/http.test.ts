// k6/http on the double against a local server: response fields, k6's error codes, real timings
// (waiting ends with the response headers, so a streaming response's first event is NOT in it),
// redirects, response callbacks and the samples with their system tags.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { runK6, type K6RunResult } from '../index';
import { fixture, loggedJSON, logLines } from './helpers';
import { closedPort, startServer, type TestServer } from './server';

interface View {
  status: number;
  code: number;
  error: string;
  body: string | null;
  url: string;
}

let server: TestServer;
let r: K6RunResult;
let out: Record<string, unknown>;

before(async () => {
  server = await startServer();
  r = await runK6(fixture('http.js'), { env: { BASE: server.url, CLOSED: String(await closedPort()) }, quiet: true, timeoutMs: 20_000 });
  [out] = loggedJSON(r.stderr) as [Record<string, unknown>];
});
after(() => server.close());

const view = (k: string) => out[k] as View;

describe('k6/http', () => {
  test('the run succeeds and its thresholds on sub-metrics hold', () => {
    assert.equal(r.exitCode, 0, r.stderr);
    assert.ok(out);
  });

  test('response: status, Go-style header names, json() with and without a selector', () => {
    const j = out.json as Record<string, unknown>;
    assert.equal(j.status, 200);
    assert.equal(j.statusText, '200 OK');
    assert.equal(j.proto, 'HTTP/1.1');
    assert.equal(j.contentType, 'application/json');
    assert.equal(j.multi, 'a, b');
    assert.deepEqual(j.body, { ok: true, items: [{ id: 7 }, { id: 8 }], n: 2 });
    assert.equal(j.selected, 8);
    assert.equal(j.count, 2);
    assert.equal(j.missing, true);
    assert.deepEqual(j.timingKeys, ['blocked', 'connecting', 'duration', 'looking_up', 'receiving', 'sending', 'tls_handshaking', 'waiting']);
    assert.deepEqual(j.requestUA, ['Grafana k6/1.3.0']);
    assert.equal(out.badJson, "GoError: cannot parse json due to an error at line 1, character 3 , error: invalid character 'o' in literal null (expecting 'u')");
  });

  test('timeouts (string or ms): status 0, error_code 1050', () => {
    for (const k of ['timeout', 'timeoutNumber']) {
      assert.deepEqual({ ...view(k), url: undefined }, { status: 0, code: 1050, error: 'request timeout', body: null, url: undefined });
    }
    assert.equal(out.badTimeout, 'GoError: invalid timeout value: time: invalid duration "soon"');
  });

  test('connection refused is 1212, a connection closed without a response is EOF (1000)', () => {
    assert.deepEqual([view('refused').status, view('refused').code, view('refused').error], [0, 1212, 'dial: connection refused']);
    assert.deepEqual([view('reset').status, view('reset').code, view('reset').error], [0, 1000, 'EOF']);
    const failed = logLines(r.stderr).filter((l) => l.msg === 'Request Failed').map((l) => l.fields.error!);
    assert.ok(failed.some((e) => /^Get "http:\/\/127\.0\.0\.1:\d+\/": dial tcp 127\.0\.0\.1:\d+: connect: connection refused$/.test(e)));
  });

  test('a streamed response: waiting ends at the headers, the events are in receiving', () => {
    const s = out.stream as { status: number; waiting: number; receiving: number; duration: number; body: string };
    assert.equal(s.status, 200);
    // Headers at once, first event 400 ms later, second 100 ms after it.
    assert.ok(s.waiting < 200, `waiting ${s.waiting}`);
    assert.ok(s.receiving >= 450, `receiving ${s.receiving}`);
    assert.ok(Math.abs(s.duration - (s.waiting + s.receiving)) < 5);
    assert.match(s.body, /data: \{"i":1\}\n\ndata: \[DONE\]/);
  });

  test('a timeout in the middle of a streamed body: status 0, 1050, partial body kept', () => {
    const t = view('streamTimeout');
    assert.deepEqual([t.status, t.code], [0, 1050]);
    assert.match(t.body!, /^id: 0\n/);
  });

  test('redirects are followed (10 by default), or not with redirects: 0', () => {
    assert.equal(view('redirect').status, 200);
    assert.match(view('redirect').url, /\/json$/);
    assert.equal(view('noRedirect').status, 302);
  });

  test('request bodies, headers and responseType none', () => {
    assert.deepEqual(out.echo, { method: 'POST', body: '{"a":1}', ua: 'Grafana k6/1.3.0', custom: 'yes' });
    assert.equal(out.form, 'a=1&b=x+y');
    assert.equal(out.none, null);
    assert.deepEqual([view('notFound').status, view('notFound').code, view('notFound').body], [404, 1404, 'status']);
    assert.equal(out.badCallback, 'GoError: unsupported argument, expected http.expectedStatuses');
  });

  test('samples: http_req_failed follows the response callback, tags carry name/url/status', () => {
    const m = r.summaryData!.metrics;
    // 18 requests (3 hops for the redirect chain); the one sent without a response callback has
    // no http_req_failed sample; failures: 2 hangs, refused, reset, cut stream, the 404.
    assert.equal(m.http_reqs!.values.count, 18);
    assert.deepEqual([m.http_req_failed!.values.passes, m.http_req_failed!.values.fails], [6, 11]);
    assert.deepEqual(m['http_req_failed{name:expected404}']!.values, { rate: 0, passes: 0, fails: 1 });
    assert.equal(m['http_req_duration{name:json}']!.values.max! > 0, true);
    assert.ok(m['http_req_duration{expected_response:true}']);
    assert.equal(m.http_req_waiting!.contains, 'time');
    assert.ok(m.data_received!.values.count! > 0 && m.data_sent!.values.count! > 0);
    assert.deepEqual(r.summaryData!.root_group.checks.map((c) => [c.name, c.passes]), [['status is 200', 1]]);
  });

  test('the server saw the requests k6 would send', () => {
    const echo = server.requests.find((q) => q.url === '/echo' && q.body.startsWith('{'));
    assert.equal(echo?.headers['x-custom'], 'yes');
    assert.equal(echo?.headers['content-length'], '7');
  });
});

describe('a webpack bundle', () => {
  test('default imports of k6 modules, groups, sub-metric thresholds and handleSummary work', async () => {
    const b = await runK6(fixture('webpack-bundle.js'), { env: { BASE: server.url }, quiet: true, timeoutMs: 20_000 });
    assert.equal(b.exitCode, 0, b.stderr);
    assert.deepEqual(JSON.parse(b.stdout), Object.keys(b.summaryData!.metrics).sort());
    const e2e = b.summaryData!.metrics['llm_e2e{variant:a}']!;
    assert.deepEqual([e2e.type, e2e.contains, e2e.thresholds], ['trend', 'time', { 'p(95)<5000': { ok: true } }]);
    assert.equal(b.summaryData!.metrics.llm_tokens!.values.count, 12);
    const [chat] = b.summaryData!.root_group.groups;
    assert.deepEqual([chat!.path, chat!.checks[0]!.path, chat!.checks[0]!.passes], ['::chat', '::chat::ok', 4]);
  });
});
