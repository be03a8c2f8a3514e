// The server-metrics probe's decisions with a fake /metrics and a simulated clock.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { HttpPort, HttpReply } from '../../../lib/http-port';
import { probeWindow } from '../../../lib/server-metrics/probe';

const text = (tokens: number, drafts: number, accepted: number) =>
  [
    '# TYPE vllm:generation_tokens_total counter',
    `vllm:generation_tokens_total{model_name="m"} ${tokens}`,
    '# TYPE vllm:spec_decode_num_drafts_total counter',
    `vllm:spec_decode_num_drafts_total{model_name="m"} ${drafts}`,
    '# TYPE vllm:spec_decode_num_accepted_tokens_total counter',
    `vllm:spec_decode_num_accepted_tokens_total{model_name="m"} ${accepted}`,
    '',
  ].join('\n');

function port(replies: HttpReply[], startLateMs = 0): HttpPort & { clock: number; calls: number } {
  const p = {
    clock: startLateMs,
    calls: 0,
    now: () => p.clock,
    sleep: (ms: number) => void (p.clock += ms),
    get: () => {
      p.clock += 2;
      return replies[Math.min(p.calls++, replies.length - 1)];
    },
    post: () => {
      throw new Error('the probe only reads');
    },
  };
  return p;
}
const ok = (body: string): HttpReply => ({ status: 200, body, contentType: 'text/plain', error: '', errorCode: 0 });
const down: HttpReply = { status: 0, body: '', contentType: '', error: 'connection refused', errorCode: 1212 };
const variant = { url: 'http://vllm:8000', engine: 'vllm' as const, headers: {} };

test('two scrapes over the window give the window figures: throughput and acceptance from counter deltas', () => {
  const io = port([ok(text(1000, 100, 150)), ok(text(11_000, 2100, 3150))]);
  const out = probeWindow(io, variant, 10_000, 10_000);
  assert.ok('figures' in out, JSON.stringify(out));
  assert.ok(Math.abs((out.figures.outputTokensPerSecond as number) - 1000) < 1, `${out.figures.outputTokensPerSecond}`);
  assert.equal(out.figures.acceptanceLength, 1 + 3000 / 2000);
  assert.ok(io.clock >= 10_000, 'waited to the end of the window');
});

test('a scrape that fails twice: not measured, saying which end and why', () => {
  const out = probeWindow(port([down, down]), variant, 10_000, 10_000);
  assert.deepEqual(out, { notMeasured: 'GET /metrics at the start of the window → connection refused' });
  const late = probeWindow(port([ok(text(1, 1, 1)), down, down]), variant, 10_000, 10_000);
  assert.deepEqual(late, { notMeasured: 'GET /metrics at the end of the window → connection refused' });
  const retried = probeWindow(port([down, ok(text(1, 1, 1)), ok(text(5001, 1, 1))]), variant, 10_000, 10_000);
  assert.ok('figures' in retried, 'one failed scrape is retried');
});

test('a probe that started too late covers too little of the window: not measured', () => {
  const out = probeWindow(port([ok(text(1, 1, 1)), ok(text(2, 2, 2))], 7_000), variant, 10_000, 10_000);
  assert.ok('notMeasured' in out && /the probe covered \d+ ms of the 10000 ms window/.test(out.notMeasured), JSON.stringify(out));
});
