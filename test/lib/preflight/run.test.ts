// The preflight's order and decisions, against a fake server behind the HttpPort: no k6, no
// network, a clock that advances only when preflight waits or a request takes time.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { BatchPort, BatchRequest, HttpReply } from '../../../lib/http-port';
import { PreflightError, preflightVariant } from '../../../lib/preflight/run';
import { loadConfig } from '../../../lib/config/load';
import { BENCHMARKS } from '../../../lib/benchmarks';
import { reply } from '../fixtures';

type Handler = (method: string, path: string, body: string, timeoutMs: number) => HttpReply | { delayMs: number; reply: HttpReply };

const ok = (body: string, contentType = 'application/json'): HttpReply => ({ status: 200, body, contentType, error: '', errorCode: 0 });
const status = (s: number, body = ''): HttpReply => ({ status: s, body, contentType: 'application/json', error: '', errorCode: 0 });
const refused: HttpReply = { status: 0, body: '', contentType: '', error: 'dial tcp 127.0.0.1:9: connect: connection refused', errorCode: 1212 };
const timedOut: HttpReply = { status: 0, body: '', contentType: '', error: 'request timeout', errorCode: 1050 };

/**
 * A fake server with a simulated clock; records every request, and each batch's requests (sent
 * together). A request alone advances the clock by its own time; a batch by the longest of its
 * requests' times, as requests in flight together do: a preflight that sent them one after the
 * other would be seen to take their sum.
 */
function fakePort(handler: Handler): BatchPort & { log: string[]; batches: string[][]; clock: number } {
  const port = {
    clock: 0,
    log: [] as string[],
    batches: [] as string[][],
    now: () => port.clock,
    sleep: (ms: number) => void (port.clock += ms),
    get: (url: string, r: { timeoutMs: number }) => alone(answer('GET', url, '', r.timeoutMs)),
    post: (url: string, body: string, r: { timeoutMs: number }) => alone(answer('POST', url, body, r.timeoutMs)),
    batch: (reqs: readonly BatchRequest[]) => {
      const answers = reqs.map((r) => answer(r.method, r.url, r.body ?? '', r.req.timeoutMs));
      port.batches.push(reqs.map((r) => `${r.method} ${path(r.url)}`));
      port.clock += Math.max(0, ...answers.map((a) => a.ms));
      return answers.map((a) => a.reply);
    },
  };
  const path = (url: string) => url.replace(/^https?:\/\/[^/]+/, '');
  function alone(a: { ms: number; reply: HttpReply }): HttpReply {
    port.clock += a.ms;
    return a.reply;
  }
  /** The reply and how long it takes; the clock is the caller's to advance. */
  function answer(method: string, url: string, body: string, timeoutMs: number): { ms: number; reply: HttpReply } {
    port.log.push(`${method} ${path(url)}`);
    const out = handler(method, path(url), body, timeoutMs);
    if ('delayMs' in out) return { ms: Math.min(out.delayMs, timeoutMs), reply: out.delayMs > timeoutMs ? timedOut : out.reply };
    return { ms: 5, reply: out };
  }
  return port;
}

const cfg = (env: Record<string, string> = {}) =>
  loadConfig(
    BENCHMARKS.smoke,
    { TARGET_URL: 'http://sglang:30000', ISL: '64', OSL: '16', WARMUP_REQUESTS: '0', PREFLIGHT_TIMEOUT: '10s', ...env },
    new Date(0),
  );

/** An SGLang server: native /generate and its OpenAI chat route, each answering or hanging. */
function sglang(opts: { generate?: 'ok' | 'hang' | 500; chat?: 'ok' | 'hang'; refusedForMs?: number } = {}): Handler {
  let fails500 = 0;
  return (_method, path) => {
    if (opts.refusedForMs !== undefined && port.clock < opts.refusedForMs) return refused;
    if (path === '/health') return ok('');
    if (path === '/get_model_info') return ok('{"model_path":"Qwen/Qwen3-8B","is_generation":true,"max_context_length":32768}');
    if (path === '/v1/models') return ok('{"object":"list","data":[{"id":"Qwen/Qwen3-8B","object":"model","owned_by":"sglang"}]}');
    if (path === '/generate') {
      if (opts.generate === 'hang') return { delayMs: 1e9, reply: ok('') };
      if (opts.generate === 500 && fails500++ < 1) return status(500, '{"error":{"message":"Internal error"}}');
      return ok(reply('sglang-nonstream.json'));
    }
    if (path === '/v1/chat/completions') return opts.chat === 'hang' ? { delayMs: 1e9, reply: ok('') } : ok(reply('vllm-chat-nonstream.json'));
    if (path === '/metrics') return ok('# no metrics\n');
    return status(404, '{"detail":"Not Found"}');
  };
}
let port: ReturnType<typeof fakePort>;

test('a healthy SGLang: identified, native dialect, the served model, one generation, no warnings', () => {
  port = fakePort(sglang());
  const c = cfg();
  const r = preflightVariant(port, c, c.variants[0]);
  assert.equal(r.info.dialect, 'sglang');
  assert.equal(r.info.model, 'Qwen/Qwen3-8B');
  assert.match(r.info.engineLabel, /SGLang/);
  assert.deepEqual(r.warnings, []);
  assert.deepEqual(port.log.slice(0, 2), ['GET /health', 'GET /v1/models'], 'health first, then what the server serves');
  assert.equal(port.log.filter((l) => l === 'POST /generate').length, 1);
  assert.deepEqual(port.batches, [['POST /generate', 'POST /v1/chat/completions']], 'the one-token check, and the OpenAI layer probed beside it');
});

test('refused connections are waited for (a vLLM loading its model does not listen), then preflight goes on', () => {
  port = fakePort(sglang({ refusedForMs: 4000 }));
  const c = cfg();
  const r = preflightVariant(port, c, c.variants[0]);
  assert.equal(r.info.dialect, 'sglang');
  assert.ok(port.log.filter((l) => l === 'GET /health').length >= 4, 'retried about once a second');
});

test('refused until PREFLIGHT_TIMEOUT: unreachable, naming the variable', () => {
  port = fakePort(sglang({ refusedForMs: 1e9 }));
  const c = cfg({ PREFLIGHT_TIMEOUT: '3s' });
  assert.throws(
    () => preflightVariant(port, c, c.variants[0]),
    (e: unknown) =>
      e instanceof PreflightError && e.reason === 'unreachable' && /cannot connect to http:\/\/sglang:30000 for 3 s .*TARGET_URL right\?/.test(e.message),
  );
  assert.ok(port.clock >= 3000 && port.clock < 5000, `gave up after ${port.clock} ms`);
});

test('one transient 500 is retried and only warned about', () => {
  port = fakePort(sglang({ generate: 500 }));
  const c = cfg();
  const r = preflightVariant(port, c, c.variants[0]);
  assert.equal(port.log.filter((l) => l === 'POST /generate').length, 2);
  assert.match(r.warnings.join('\n'), /1 of 2 preflight requests failed transiently \(500\)/);
});

test('the chat route hangs while /generate answers: the OpenAI layer is named, and the dialect that works around it', () => {
  port = fakePort(sglang({ chat: 'hang' }));
  const c = cfg({ DIALECT: 'openai-chat', PREFLIGHT_TIMEOUT: '2s' });
  assert.throws(
    () => preflightVariant(port, c, c.variants[0]),
    (e: unknown) =>
      e instanceof PreflightError &&
      e.reason === 'stalled_layer' &&
      /only POST \/v1\/chat\/completions hangs .*the OpenAI layer .* DIALECT=sglang works around it/.test(e.message),
  );
  assert.deepEqual(port.batches, [['POST /v1/chat/completions', 'POST /generate']]);
  assert.ok(port.clock < 1.5 * 2000, `one PREFLIGHT_TIMEOUT, the routes probed together (${port.clock} ms)`);
});

test('both routes hang: the engine itself is stuck, said after one PREFLIGHT_TIMEOUT', () => {
  port = fakePort(sglang({ chat: 'hang', generate: 'hang' }));
  const c = cfg({ PREFLIGHT_TIMEOUT: '2s' });
  assert.throws(
    () => preflightVariant(port, c, c.variants[0]),
    (e: unknown) =>
      e instanceof PreflightError &&
      e.reason === 'stalled' &&
      /Both POST \/generate and POST \/v1\/chat\/completions produced no token in 2 s: the engine itself is stuck, not the OpenAI layer/.test(e.message),
  );
  assert.deepEqual(port.batches, [['POST /generate', 'POST /v1/chat/completions']], 'sent together, nothing sent after');
  assert.equal(port.log.filter((l) => l.startsWith('POST')).length, 2);
  assert.ok(port.clock >= 2000 && port.clock < 1.5 * 2000, `one PREFLIGHT_TIMEOUT (${port.clock} ms)`);

  // The check on the chat route: the native route is the other layer, named second.
  port = fakePort(sglang({ chat: 'hang', generate: 'hang' }));
  const chat = cfg({ DIALECT: 'openai-chat', PREFLIGHT_TIMEOUT: '2s' });
  assert.throws(
    () => preflightVariant(port, chat, chat.variants[0]),
    (e: unknown) =>
      e instanceof PreflightError &&
      /Both POST \/v1\/chat\/completions and POST \/generate produced no token in 2 s: the engine itself is stuck, not the OpenAI layer/.test(e.message),
  );
  assert.ok(port.clock < 1.5 * 2000, `one PREFLIGHT_TIMEOUT (${port.clock} ms)`);
});

test('a transient 500 beside a hung route: the retries get their own PREFLIGHT_TIMEOUT, and preflight passes', () => {
  port = fakePort(sglang({ generate: 500, chat: 'hang' }));
  const c = cfg({ PREFLIGHT_TIMEOUT: '2s' });
  const r = preflightVariant(port, c, c.variants[0]);
  assert.equal(r.info.dialect, 'sglang');
  assert.equal(port.log.filter((l) => l === 'POST /generate').length, 2, 'retried after the batch');
  assert.match(r.warnings.join('\n'), /1 of 2 preflight requests failed transiently \(500\)/);
});

test('the OpenAI layer hangs but the run speaks the native route: it passes, with a warning for the wait', () => {
  port = fakePort(sglang({ chat: 'hang' }));
  const c = cfg({ PREFLIGHT_TIMEOUT: '2s' });
  const r = preflightVariant(port, c, c.variants[0]);
  assert.equal(r.info.dialect, 'sglang');
  assert.deepEqual(r.warnings, [
    'target: POST /v1/chat/completions produced no token in 2 s while POST /generate answers: the OpenAI ' +
      'layer (tokenizer manager, chat template) is stuck, not the engine. This run speaks POST /generate ' +
      'and is not affected; preflight waited for the other route.',
  ]);
  assert.ok(port.clock >= 2000 && port.clock < 1.5 * 2000, `one PREFLIGHT_TIMEOUT (${port.clock} ms)`);
});

test('an unidentified server: the one-token check alone', () => {
  port = fakePort((_method, path) =>
    path === '/v1/completions' ? { delayMs: 1e9, reply: ok('') } : path === '/health' ? ok('') : status(404, '{"detail":"Not Found"}'),
  );
  const c = cfg({ DIALECT: 'openai', MODEL: 'm', PREFLIGHT_TIMEOUT: '2s' });
  assert.throws(
    () => preflightVariant(port, c, c.variants[0]),
    (e: unknown) => e instanceof PreflightError && e.reason === 'stalled' && /no token within 2 s: the engine is stalled/.test(e.message),
  );
  assert.deepEqual(port.batches, [['POST /v1/completions']]);
});

test('TOOL_CHOICE naming a tool on a llama-server: the preflight warns that b11669 takes it as auto', () => {
  const llamacpp: Handler = (_method, path) => {
    if (path === '/health') return ok('{"status":"ok"}');
    if (path === '/v1/models')
      return ok('{"object":"list","data":[{"id":"/models/target.gguf","object":"model","owned_by":"llamacpp","meta":{"n_ctx":4096}}]}');
    if (path === '/props') return ok('{"build_info":"b11669-Debian","default_generation_settings":{"n_ctx":4096}}');
    if (path === '/v1/chat/completions') return ok(reply('vllm-chat-nonstream.json'));
    return status(404, '{"error":{"code":404,"message":"File Not Found","type":"not_found_error"}}');
  };
  const env = { TARGET_URL: 'http://llama:8080', DIALECT: 'openai-chat', TOOLS: '1' };
  const name = loadConfig(BENCHMARKS.smoke, { ...env, ISL: '64', OSL: '16' }, new Date(0)).structured?.tools?.[0]?.name as string;
  port = fakePort(llamacpp);
  const named = cfg({ ...env, TOOL_CHOICE: name });
  const warned = preflightVariant(port, named, named.variants[0]).warnings;
  assert.ok(
    warned.some((w) => w.includes(`TOOL_CHOICE=${name}: llama.cpp reads tool_choice only as a string`)),
    warned.join(' | '),
  );
  port = fakePort(llamacpp);
  const required = cfg({ ...env, TOOL_CHOICE: 'required' });
  assert.ok(!preflightVariant(port, required, required.variants[0]).warnings.some((w) => w.includes('TOOL_CHOICE')), 'required is honoured: no warning');
});
