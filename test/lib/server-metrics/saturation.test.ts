// The saturation rule on synthetic queue series: it fires on a growing or full queue, and not on
// steady high load, noise, a short window or an open loop that still completes what it is offered.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { HttpPort } from '../../../lib/http-port';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { COMPLETION_SHARE, judge, MIN_RISE, queueNames, queueSample, watchRun, WINDOW_MS, type QueueSample } from '../../../lib/server-metrics/saturation';

/** One scrape a second for `seconds`, queue and completions given per second index. */
function series(seconds: number, waiting: (i: number) => number, completed: (i: number) => number | null = (i) => i * 4): QueueSample[] {
  return Array.from({ length: seconds + 1 }, (_, i) => ({ atMs: 1000 * i, waiting: waiting(i), completed: completed(i) }));
}

/** Deterministic pseudo-noise in [-1, 1]. */
const noise = (i: number) => Math.sin(i * 12.9898) * 0.5 + Math.sin(i * 78.233) * 0.5;

test('a queue growing by one request a second fires "growing" once the window is covered', () => {
  const s = series(12, (i) => i);
  const v = judge(s, { kind: 'vus', vus: 16 });
  assert.equal(v?.rule, 'growing');
  assert.ok(Math.abs((v?.rise ?? 0) - 10) < 1e-9, `rise ${v?.rise}`);
  // Not before the window is covered: 8 s of the same growth say nothing yet.
  assert.equal(
    judge(
      series(8, (i) => i),
      { kind: 'vus', vus: 16 },
    ),
    null,
  );
  // A closed loop's growth counts once the queue holds half its VUs (12 of 24 does, of 25 not).
  assert.equal(judge(s, { kind: 'vus', vus: 24 })?.rule, 'growing');
  assert.equal(judge(s, { kind: 'vus', vus: 25 }), null);
});

test('a rise just under MIN_RISE does not fire, just over does', () => {
  const under = series(10, (i) => ((MIN_RISE - 0.2) * i) / 10);
  const over = series(10, (i) => ((MIN_RISE + 0.2) * i) / 10);
  assert.equal(judge(under, { kind: 'vus', vus: 8 }), null);
  assert.equal(judge(over, { kind: 'vus', vus: 8 })?.rule, 'growing');
});

test('steady high load: a queue of a few requests with noise does not fire', () => {
  const s = series(60, (i) => Math.max(0, Math.round(3 + 3 * noise(i))));
  for (let end = 11; end <= 61; end++) assert.equal(judge(s.slice(0, end), { kind: 'vus', vus: 16 }), null, `fired at ${end} s`);
  for (let end = 11; end <= 61; end++) assert.equal(judge(s.slice(0, end), { kind: 'rate', rate: 4 }), null, `rate: fired at ${end} s`);
});

test('a rise drowned in scatter does not fire: the rise must be three times the noise', () => {
  // Rise 6 over 10 s, with ±6 alternating scatter.
  const s = series(10, (i) => 10 + 0.6 * i + (i % 2 === 0 ? 6 : -6));
  assert.equal(judge(s, { kind: 'vus', vus: 30 }), null);
  const clean = series(10, (i) => 10 + 0.6 * i + (i % 2 === 0 ? 0.5 : -0.5));
  assert.equal(judge(clean, { kind: 'vus', vus: 30 })?.rule, 'growing');
});

test('closed loop: half the VUs waiting at every scrape is "full"; one scrape under half is not', () => {
  const full = series(10, () => 8);
  const v = judge(full, { kind: 'vus', vus: 16 });
  assert.equal(v?.rule, 'full');
  assert.equal(v?.minWaiting, 8);
  assert.equal(
    judge(
      series(10, (i) => (i === 5 ? 7 : 8)),
      { kind: 'vus', vus: 16 },
    ),
    null,
  );
  assert.equal(
    judge(
      series(10, () => 7),
      { kind: 'vus', vus: 16 },
    ),
    null,
  );
});

test('open loop: a growing queue fires only while completions fall below 90 % of the offered rate', () => {
  const rate = 4;
  const slow = series(
    10,
    (i) => i,
    (i) => i * rate * (COMPLETION_SHARE - 0.05),
  );
  const keepsUp = series(
    10,
    (i) => i,
    (i) => i * rate * (COMPLETION_SHARE + 0.05),
  );
  const v = judge(slow, { kind: 'rate', rate });
  assert.equal(v?.rule, 'growing');
  assert.ok(v?.evidence.includes('of 4/s offered'));
  assert.equal(judge(keepsUp, { kind: 'rate', rate }), null);
  // A full queue is not a verdict in an open loop (its VUs are not its load).
  assert.equal(
    judge(
      series(10, () => 50),
      { kind: 'rate', rate },
    ),
    null,
  );
  // No completion counter: the growing queue alone decides, and the evidence says so.
  assert.match(
    judge(
      series(
        10,
        (i) => i,
        () => null,
      ),
      { kind: 'rate', rate },
    )?.evidence ?? '',
    /completions not counted/,
  );
});

test('the window is the last WINDOW_MS: an old growth that stopped no longer fires', () => {
  // An open loop at 4/s completing 2/s: grew 0 → 10 in the first 10 s, then flat at 10 for 15 s.
  const s = series(
    25,
    (i) => Math.min(i, 10),
    (i) => 2 * i,
  );
  assert.equal(judge(s.slice(0, 11), { kind: 'rate', rate: 4 })?.rule, 'growing');
  assert.equal(judge(s, { kind: 'rate', rate: 4 }), null);
  assert.equal(WINDOW_MS, 10_000);
});

test('watchRun scrapes once a second and stops at the first verdict, skipping failed scrapes', () => {
  let clock = 0;
  let calls = 0;
  const io: HttpPort = {
    now: () => clock,
    sleep: (ms) => void (clock += ms),
    get: () => {
      calls++;
      clock += 5;
      const t = Math.floor(clock / 1000);
      // Scrape 3 fails; the queue grows by one a second after 5 s.
      if (calls === 3) return { status: 503, body: '', contentType: '', error: '', errorCode: 0 };
      const waiting = Math.max(0, t - 5);
      const body = `vllm:num_requests_waiting{model_name="m"} ${waiting}\nvllm:e2e_request_latency_seconds_count{model_name="m"} ${t * 2}\n`;
      return { status: 200, body, contentType: 'text/plain', error: '', errorCode: 0 };
    },
    post: () => {
      throw new Error('the watch only reads');
    },
  };
  const v = watchRun(io, { url: 'http://x', engine: 'vllm', headers: {} }, { kind: 'vus', vus: 8 }, 60_000);
  assert.equal(v?.rule, 'growing');
  // Growth from 5 s: the window holds MIN_RISE of rise about 5 s later, and the watch stops there.
  assert.ok(clock > 8_000 && clock < 13_000, `stopped at ${clock} ms`);
  assert.ok(Math.abs(calls - clock / 1000) <= 2, `${calls} scrapes in ${clock} ms`);
  assert.ok(v !== null && v.completionsPerS !== null && Math.abs(v.completionsPerS - 2) < 0.3);
  // An engine without a queue gauge is not watched at all.
  calls = 0;
  assert.equal(watchRun(io, { url: 'http://x', engine: 'openai', headers: {} }, { kind: 'vus', vus: 64 }, 60_000), null);
  assert.equal(calls, 0);
});

test("a real llama.cpp server's /metrics (captured) gives the queue gauge the watch reads", () => {
  const body = readFileSync(join(__dirname, '..', '..', 'fixtures', 'replies', 'llamacpp-metrics-end.txt'), 'utf8');
  const io: HttpPort = {
    now: () => 1000,
    sleep: () => undefined,
    get: () => ({ status: 200, body, contentType: 'text/plain', error: '', errorCode: 0 }),
    post: () => {
      throw new Error('the watch only reads');
    },
  };
  const names = queueNames('llamacpp');
  assert.deepEqual(names, { waiting: 'llamacpp:requests_deferred', completed: null });
  assert.deepEqual(queueSample(io, { url: 'http://x', engine: 'llamacpp', headers: {} }, names), { atMs: 1000, waiting: 0, completed: null });
});
