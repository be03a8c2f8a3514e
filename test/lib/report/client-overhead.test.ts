import { test } from 'node:test';
import assert from 'node:assert/strict';
import { clientCheck, limitMs } from '../../../lib/report/figures/client-overhead';
import { renderMarkdown } from '../../../lib/report/render/markdown-report';
import { renderText } from '../../../lib/report/render/text-report';
import { renderHtml } from '../../../lib/report/render/html-report';
import { summaryJson } from '../../../lib/report/render/summary-json';
import { abReport, dist } from '../../fixtures/report/reports';

const base = {
  clientWindowE2eMs: 1003,
  clientWindowTtftMs: 52,
  serverE2eMeanMs: 1000,
  serverTtftMeanMs: 50,
  clientE2eMeanMs: 1003,
  gap: dist(0.5, 2, 100),
  itl: dist(11),
  dropped: 0,
  openLoop: false,
  schedule: null,
};

test('the rule: overhead above max(5 ms, 2 %) of the server figure makes a run client-limited', () => {
  assert.equal(limitMs(100), 5);
  assert.equal(limitMs(1000), 20);
  const ok = clientCheck(base);
  assert.equal(ok.e2eOverheadMs, 3);
  assert.equal(ok.ttftOverheadMs, 2);
  assert.deepEqual(ok.limited, []);
  const slowE2e = clientCheck({ ...base, clientWindowE2eMs: 1025 });
  assert.match(slowE2e.limited.join(), /client e2e exceeds the server's by 25\.0 ms/);
  const slowTtft = clientCheck({ ...base, clientWindowTtftMs: 60 });
  assert.match(slowTtft.limited.join(), /client TTFT exceeds the server's by 10\.0 ms/);
  const gap = clientCheck({ ...base, gap: dist(40, 2, 100) });
  assert.match(gap.limited.join(), /VUs spend 42\.0 ms between requests/);
  assert.match(clientCheck({ ...base, openLoop: true, dropped: 7 }).limited.join(), /7 iterations dropped/);
  assert.deepEqual(clientCheck({ ...base, openLoop: false, dropped: 7 }).limited, [], "closed loop: dropped iterations are the executor's, not a fault");
});

test('a trace replay whose p99 schedule lag passes TRACE_MAX_LAG is marked not faithful; within it, not', () => {
  const late = clientCheck({ ...base, gap: null, openLoop: true, schedule: { lag: { ...dist(3, 2, 500), p99: 80 }, maxLagMs: 50 } });
  assert.match(late.limited.join(), /trace replay not faithful: p99 schedule lag 80\.0 ms is above TRACE_MAX_LAG 50 ms/);
  const onTime = clientCheck({ ...base, gap: null, openLoop: true, schedule: { lag: { ...dist(1, 2, 500), p99: 12 }, maxLagMs: 50 } });
  assert.deepEqual(onTime.limited, []);
  assert.deepEqual(
    clientCheck({ ...base, gap: null, openLoop: true, schedule: { lag: null, maxLagMs: 50 } }).limited,
    [],
    'no request sent: no lag, and none made up',
  );
});

test("without the server's own figures there is no overhead, never a made-up one", () => {
  const c = clientCheck({ ...base, serverE2eMeanMs: null, serverTtftMeanMs: null });
  assert.equal(c.e2eOverheadMs, null);
  assert.equal(c.ttftOverheadMs, null);
  assert.deepEqual(c.limited, []);
});

test('ITL percentiles within two clock ticks are flagged as quantised', () => {
  assert.equal(clientCheck({ ...base, itl: dist(0.4) }).itlQuantised, true);
  assert.equal(clientCheck({ ...base, itl: dist(11) }).itlQuantised, false);
  assert.equal(clientCheck({ ...base, itl: null }).itlQuantised, false);
});

test('a client-limited run is marked in every report, with how to fix it', () => {
  const r = abReport();
  r.runs[1].client.limited = ["client e2e exceeds the server's by 31.0 ms (rule: > max(5 ms, 2 %))"];
  const text = renderText(r, []);
  assert.match(text, /Client self-check:\n {2}mtp i1024_o256_c1: client-limited: client e2e exceeds the server's by 31\.0 ms/);
  assert.match(text, /How to fix: the load generator limited these runs, not the server: run fewer VUs per k6 instance and more instances/);
  assert.match(renderMarkdown(r), /## Client self-check[^]*\| client-limited: client e2e exceeds/);
  assert.match(renderHtml(r), /<tr class="limited">[^]*client-limited: client e2e exceeds/);
  const j = JSON.parse(summaryJson(r));
  assert.equal(j.records[1].client_check.client_limited, true);
  assert.equal(j.records[0].client_check.client_limited, false);
});

test("a stream held by the network: bursts (ITL p50 under the clock tick) with TTFT well above the server's", () => {
  const held = clientCheck({ ...base, clientWindowTtftMs: 360, clientWindowE2eMs: 1300, itl: dist(0) });
  assert.match(
    held.held ?? '',
    /tokens reached the client in bursts: ITL p50 0\.0 ms .* TTFT is 310\.0 ms above the server's own\. Something between k6 and the server/,
  );
  assert.deepEqual(held.limited, [], "the overheads are the network's, not the load generator's");
  // Bursts alone (a fast server, ITL under a tick) or a slow TTFT alone are not a held stream.
  assert.equal(clientCheck({ ...base, itl: dist(0) }).held, null);
  const slow = clientCheck({ ...base, clientWindowTtftMs: 360 });
  assert.equal(slow.held, null);
  assert.match(slow.limited.join(), /client TTFT exceeds the server's by 310\.0 ms/);
  // Without the server's TTFT nothing says the stream was held.
  assert.equal(clientCheck({ ...base, serverTtftMeanMs: null, itl: dist(0) }).held, null);
});
