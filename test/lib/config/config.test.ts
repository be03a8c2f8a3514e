import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { loadConfig, mergeFile, redacted, stamp } from '../../../lib/config/load';
import { BENCHMARKS } from '../../../lib/benchmarks';
import { benchmarkEnv } from '../../../lib/config/environment';
import { duration, intList } from '../../../lib/config/parse';
import { planOf } from '../../../lib/plan/matrix';

const NOW = new Date('2026-11-29T20:15:00Z');
const base = { TARGET_URL: 'http://127.0.0.1:30000' };

describe('parsers', () => {
  test('durations in k6 syntax', () => {
    assert.equal(duration('D', '30s'), 30_000);
    assert.equal(duration('D', '1m30s'), 90_000);
    assert.equal(duration('D', '500ms'), 500);
    assert.equal(duration('D', '2'), 2000);
    assert.throws(() => duration('D', '30 sec'), /D='30 sec' is not valid: expected a duration/);
    assert.throws(() => duration('D', 's30'), /not valid/);
  });
  test('integer lists name the bad element', () => {
    assert.deepEqual(intList('ISL', '128, 1024'), [128, 1024]);
    assert.throws(() => intList('ISL', '128,abc'), /ISL='128,abc' is not valid: .*'abc' is not one/);
    assert.throws(() => intList('ISL', '128,128'), /without repeated values/);
    assert.throws(() => intList('ISL', ''), /comma-separated list/);
    assert.throws(() => intList('ISL', '0'), /not valid/);
  });
});

describe('loadConfig', () => {
  test('defaults', () => {
    const c = loadConfig(BENCHMARKS['smoke'], base, NOW);
    assert.deepEqual(c.isl, [1024]);
    assert.deepEqual(c.concurrency, [1, 4, 16]);
    assert.equal(c.transport, 'http');
    assert.equal(c.requestTimeoutMs, 30_000);
    assert.equal(c.gracefulStopMs, 30_000, 'GRACEFUL_STOP defaults to REQUEST_TIMEOUT');
    assert.equal(c.runId, 'smoke-20261129-201500');
    assert.equal(c.variants[0].dialect, 'auto');
  });
  test('VARIANT_DOWN_AFTER, and its old name TARGET_DOWN_AFTER still read (with a note, in a file too) until the next release', () => {
    assert.equal(loadConfig(BENCHMARKS['smoke'], { ...base, VARIANT_DOWN_AFTER: '5s' }, NOW).variantDownAfterMs, 5000);
    const notes: string[] = [];
    const warn = console.warn;
    console.warn = (line: string) => notes.push(line);
    try {
      const env = benchmarkEnv({ ...base, CONFIG: 'c.json' }, () => '{"TARGET_DOWN_AFTER": "7s"}', undefined, null);
      assert.equal(loadConfig(BENCHMARKS['smoke'], env, NOW).variantDownAfterMs, 7000);
      const both = benchmarkEnv({ ...base, TARGET_DOWN_AFTER: '7s', VARIANT_DOWN_AFTER: '9s' }, () => '', undefined, null);
      assert.equal(loadConfig(BENCHMARKS['smoke'], both, NOW).variantDownAfterMs, 9000, 'the new name wins');
    } finally {
      console.warn = warn;
    }
    assert.deepEqual(notes, [
      'TARGET_DOWN_AFTER is renamed VARIANT_DOWN_AFTER; the old name is still read until the next release.',
      'TARGET_DOWN_AFTER is renamed VARIANT_DOWN_AFTER; the old name is still read until the next release.',
    ]);
    // A settings record of the last release (merge, report rebuild) holds the old name alone.
    assert.equal(loadConfig(BENCHMARKS['smoke'], { ...base, TARGET_DOWN_AFTER: '3s' }, NOW).variantDownAfterMs, 3000);
  });
  test('ITL_SAMPLES=auto counts in buckets for a long plan of one or two runs only', () => {
    const itl = (name: string, env: Record<string, string>) => loadConfig(BENCHMARKS[name], { ...base, ...env }, NOW).itlSamples;
    const soak = { TRANSPORT: 'sse', CONCURRENCY: '64', ISL: '128', OSL: '256', DURATION: '60m' };
    assert.equal(itl('context-matrix', soak), 'histogram', 'one run of an hour');
    assert.equal(itl('context-matrix', { ...soak, DURATION: '9m' }), 'every', 'one run shorter than 10 min');
    assert.equal(itl('context-matrix', { ...soak, CONCURRENCY: '8,64', DURATION: '5m' }), 'histogram', 'two runs, 10 min in all');
    assert.equal(itl('context-matrix', { ...soak, CONCURRENCY: '8,64,256' }), 'every', 'three runs: a matrix keeps exact ITL');
    // The runs auto counts are the plan's.
    const ab = loadConfig(BENCHMARKS['dflash-vs-mtp'], { DFLASH_URL: 'http://a:1', MTP_URL: 'http://b:1', ...soak, ISL: '128,512' }, NOW);
    assert.equal(planOf('vus', ab).runs.length, 4);
    assert.equal(ab.itlSamples, 'every', 'four runs');
    assert.equal(itl('context-matrix', { ...soak, REQUESTS: '1000' }), 'every', 'a run of REQUESTS ends with them');
    assert.equal(itl('dflash-vs-mtp', { DFLASH_URL: 'http://a:1', MTP_URL: 'http://b:1', ...soak }), 'histogram', 'an A/B soak: two runs');
    assert.equal(itl('arrival-rate', { ...soak, RATE: '1,2,4' }), 'every', 'the rate axis counts the runs of a rate benchmark');
    assert.equal(itl('arrival-rate', { ...soak, RATE: '2' }), 'histogram');
    assert.equal(itl('context-matrix', { ...soak, TRANSPORT: 'http' }), 'every', 'http times no tokens: no ITL to count');
    assert.equal(itl('context-matrix', { ...soak, ITL_SAMPLES: 'every' }), 'every', 'given, it is kept');
    assert.equal(itl('smoke', { ITL_SAMPLES: 'histogram' }), 'histogram');
    assert.throws(() => itl('smoke', { ITL_SAMPLES: 'some' }), /ITL_SAMPLES='some' is not valid: expected one of auto, every, histogram/);
  });
  test('a missing URL says how to set it', () => {
    assert.throws(() => loadConfig(BENCHMARKS['smoke'], {}, NOW), /TARGET_URL is not set: .*TARGET_URL=http/);
    assert.throws(() => loadConfig(BENCHMARKS['dflash-vs-mtp'], { DFLASH_URL: 'http://a:1' }, NOW), /MTP_URL is not set/);
  });
  test('bad values name the variable, the value and what is allowed', () => {
    assert.throws(() => loadConfig(BENCHMARKS['smoke'], { ...base, TRANSPORT: 'grpc' }, NOW), /TRANSPORT='grpc' is not valid: expected one of http, sse/);
    assert.throws(
      () => loadConfig(BENCHMARKS['smoke'], { ...base, DIALECT: 'tgi' }, NOW),
      /DIALECT='tgi' is not valid: expected one of auto, sglang, openai, openai-chat/,
    );
    assert.throws(() => loadConfig(BENCHMARKS['smoke'], { ...base, TARGET_URL: 'localhost:8000' }, NOW), /TARGET_URL='localhost:8000' is not valid/);
    assert.throws(
      () => loadConfig(BENCHMARKS['smoke'], { ...base, SLO_ERROR_RATE: '5' }, NOW),
      /SLO_ERROR_RATE='5' is not valid: expected a number from 0 to 1/,
    );
    assert.throws(
      () => loadConfig(BENCHMARKS['smoke'], { ...base, SHARED_PREFIX: '2000', ISL: '1024' }, NOW),
      /SHARED_PREFIX=2000 is longer than the shortest ISL/,
    );
  });
  test('a URL with credentials is refused without echoing them', () => {
    assert.throws(
      () => loadConfig(BENCHMARKS['smoke'], { TARGET_URL: 'http://user:sekret@host:1' }, NOW),
      (e: Error) => /without credentials/.test(e.message) && !e.message.includes('sekret'),
    );
  });
  test('TTFT SLOs need the sse transport', () => {
    assert.throws(() => loadConfig(BENCHMARKS['smoke'], { ...base, SLO_TTFT_P99: '2s' }, NOW), /need TRANSPORT=sse/);
    assert.equal(loadConfig(BENCHMARKS['smoke'], { ...base, SLO_TTFT_P99: '2s', TRANSPORT: 'sse' }, NOW).slo.ttftP99Ms, 2000);
  });
  test('A/B: per-variant keys fall back to API_KEY; two identical URLs are refused', () => {
    const c = loadConfig(BENCHMARKS['dflash-vs-mtp'], { DFLASH_URL: 'http://a:1/', MTP_URL: 'http://b:2', API_KEY: 'k', MTP_API_KEY: 'm' }, NOW);
    assert.equal(c.variants[0].url, 'http://a:1');
    assert.equal(c.variants[0].apiKey, 'k');
    assert.equal(c.variants[1].apiKey, 'm');
    assert.deepEqual(
      c.variants.map((t) => t.variant),
      ['dflash', 'mtp'],
    );
    assert.throws(() => loadConfig(BENCHMARKS['dflash-vs-mtp'], { DFLASH_URL: 'http://a:1', MTP_URL: 'http://a:1' }, NOW), /are the same/);
  });
  test('redacted hides keys', () => {
    const c = loadConfig(BENCHMARKS['smoke'], { ...base, API_KEY: 'sk-secret' }, NOW);
    assert.equal(JSON.stringify(redacted(c)).includes('sk-secret'), false);
    assert.equal(redacted(c).variants[0].apiKey, '<set>');
  });
  test('stamp is UTC', () => assert.equal(stamp(NOW), '20261129-201500'));
});

describe('CONFIG file', () => {
  test('the environment wins over the file; lists and numbers are accepted', () => {
    const env = mergeFile({ ISL: '64' }, { ISL: [128, 256], OSL: 32, TARGET_URL: 'http://h:1', IGNORE_EOS: false }, 'c.json');
    assert.equal(env.ISL, '64');
    assert.equal(env.OSL, '32');
    assert.equal(env.IGNORE_EOS, 'false');
  });
  test('an unknown key is named', () => {
    assert.throws(() => mergeFile({}, { CONCURENCY: 4 }, 'c.json'), /unknown key 'CONCURENCY'/);
    assert.throws(() => mergeFile({}, [1, 2], 'c.json'), /one JSON object/);
  });
});
