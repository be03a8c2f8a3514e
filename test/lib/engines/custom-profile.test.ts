// A server the suite does not ship a profile for, added in one file: preflight recognises it, the
// report names it, its /metrics are read over the window and its tokenize route counts prompts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ENGINES, registerEngine, type EngineProfile } from '../../../lib/engines/index';
import { answered, ownedBy, text } from '../../../lib/engines/profile';
import type { BatchPort, HttpReply } from '../../../lib/http-port';
import { preflightVariant } from '../../../lib/preflight/run';
import { loadConfig } from '../../../lib/config/load';
import { BENCHMARKS } from '../../../lib/benchmarks';
import { snapshot, windowFigures } from '../../../lib/server-metrics/window';
import { parseTokenizeReply, tokenizeRequest } from '../../../lib/dataset/lengths';
import { reply } from '../fixtures';

// The one file a new server needs (here inline): how it is recognised, its dialect, /metrics, tokenize.
const acme: EngineProfile = {
  id: 'acme',
  label: 'Acme Serve',
  probes: [{ route: '/acme/version', when: (s) => s.ownedBy.includes('acme') }],
  recognise: (s) => (ownedBy(s, 'acme') ? { version: text(answered(s, '/acme/version')?.v), maxModelLen: 8192, evidence: 'owned_by acme' } : null),
  dialect: 'openai',
  offered: ['openai', 'openai-chat'],
  metrics: {
    prefix: 'acme_',
    ttft: 'acme_ttft_seconds',
    itl: ['acme_itl_seconds'],
    e2e: 'acme_e2e_seconds',
    queue: null,
    generationTokens: 'acme_generated_tokens_total',
    specDrafts: 'acme_drafts_total',
    specAccepted: 'acme_accepted_total',
    generationSeconds: null,
  },
  tokenize: { path: '/acme/tokenize', textField: 'prompt', specialField: 'add_special_tokens', sendsModel: true, messages: false, countField: 'count' },
  checked: 'this test',
};

const ok = (body: string): HttpReply => ({ status: 200, body, contentType: 'application/json', error: '', errorCode: 0 });
const metricsPage = (n: number) =>
  [
    `acme_ttft_seconds_sum ${0.05 * n}`,
    `acme_ttft_seconds_count ${n}`,
    `acme_itl_seconds_sum ${0.01 * 15 * n}`,
    `acme_e2e_seconds_sum ${0.2 * n}`,
    `acme_e2e_seconds_count ${n}`,
    `acme_generated_tokens_total ${16 * n}`,
    `acme_drafts_total ${4 * n}`,
    `acme_accepted_total ${8 * n}`,
  ].join('\n');

test('a test-only profile in one file: recognised, named, /metrics read, tokenize route used', () => {
  registerEngine(acme);
  try {
    const log: string[] = [];
    let clock = 0;
    const call = (method: string, url: string): HttpReply => {
      const path = url.replace(/^https?:\/\/[^/]+/, '');
      log.push(`${method} ${path}`);
      clock += 5;
      if (path === '/v1/models') return ok('{"object":"list","data":[{"id":"acme-7b","object":"model","owned_by":"acme"}]}');
      if (path === '/acme/version') return ok('{"v":"2.1"}');
      if (path === '/v1/completions') return ok(reply('vllm-completions-nonstream.json'));
      if (path === '/metrics') return ok(metricsPage(1));
      if (path === '/health') return ok('');
      return { status: 404, body: '{"detail":"Not Found"}', contentType: 'application/json', error: '', errorCode: 0 };
    };
    const port: BatchPort = {
      now: () => clock,
      sleep: (ms) => void (clock += ms),
      get: (u) => call('GET', u),
      post: (u) => call('POST', u),
      batch: (reqs) => reqs.map((r) => call(r.method, r.url)),
    };
    const c = loadConfig(BENCHMARKS.smoke, { TARGET_URL: 'http://acme:1', ISL: '64', OSL: '16', WARMUP_REQUESTS: '0', SERVER_METRICS: 'on' }, new Date(0));
    const { info, warnings } = preflightVariant(port, c, c.variants[0]);
    assert.ok(log.includes('GET /acme/version'), 'its own probe was asked');
    assert.deepEqual([info.engine, info.engineLabel, info.dialect, info.model, info.metrics], ['acme', 'Acme Serve 2.1', 'openai', 'acme-7b', 'acme']);
    assert.deepEqual(warnings, []);

    const fig = windowFigures(snapshot('acme', metricsPage(10), 0), snapshot('acme', metricsPage(30), 2000));
    assert.equal(fig.ttftMeanMs?.toFixed(1), '50.0');
    assert.equal(fig.acceptanceLength, 3, '1 + 160 accepted / 80 drafts');
    assert.equal(fig.outputTokensPerSecond, 160);

    assert.deepEqual(tokenizeRequest('acme', 'acme-7b', 'hello'), {
      method: 'POST',
      path: '/acme/tokenize',
      body: '{"model":"acme-7b","prompt":"hello","add_special_tokens":true}',
    });
    assert.equal(parseTokenizeReply('acme', '{"count":7}'), 7);
  } finally {
    ENGINES.splice(ENGINES.indexOf(acme), 1);
  }
});
