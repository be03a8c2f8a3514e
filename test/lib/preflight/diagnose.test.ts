import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  attemptsFailedMessage,
  backoffMs,
  chooseModel,
  connectFailure,
  contextError,
  identify,
  isTransient,
  longestPrompt,
  stallDiagnosis,
  hungLayerWarning,
  stallProbeDialects,
  stalledMessage,
  timeoutWarning,
  transientWarning,
  unreachableMessage,
  wrongDialectMessage,
  type Probe,
  type RouteTry,
} from '../../../lib/preflight/diagnose';
import { poolLengths } from '../../../lib/workload/seeded-prompts';
import { engineById } from '../../../lib/engines/index';

const p = (route: string, status: number, body = ''): Probe => ({ route, status, body, error: status ? '' : 'dial: connection refused' });
const vllmModels = p('GET /v1/models', 200, '{"object":"list","data":[{"id":"Qwen/Qwen3-32B","object":"model","owned_by":"vllm","max_model_len":32768}]}');

test('vLLM: /v1/models but no /get_model_info → openai, with its version', () => {
  const id = identify(p('GET /get_model_info', 404, '{"detail":"Not Found"}'), vllmModels, [p('GET /version', 200, '{"version":"0.20.1"}')]);
  assert.equal(id.dialect, 'openai');
  assert.equal(id.engineLabel, 'vLLM 0.20.1');
  assert.deepEqual(id.models, ['Qwen/Qwen3-32B']);
  assert.equal(id.maxModelLen, 32768);
});

test('SGLang: /get_model_info → sglang', () => {
  const id = identify(p('GET /get_model_info', 200, '{"model_path":"Qwen/Qwen3-32B","tokenizer_path":"Qwen/Qwen3-32B","is_generation":true}'), vllmModels);
  assert.equal(id.dialect, 'sglang');
  assert.equal(id.engineLabel, 'SGLang');
});

test('the seed message: DIALECT=sglang against vLLM names what the server is and what to set', () => {
  const id = identify(p('GET /get_model_info', 404), vllmModels, [p('GET /version', 200, '{"version":"0.20.1"}')]);
  const msg = wrongDialectMessage('POST /generate', 404, id, 'DIALECT');
  assert.match(msg, /^POST \/generate → 404: this server is vLLM 0\.20\.1 .*set DIALECT=openai/);
});

test('DIALECT=anthropic against a server without /v1/messages: one line naming the server, the routes it offers and what to set', () => {
  const id = identify(p('GET /get_model_info', 404), p('GET /v1/models', 200, '{"object":"list","data":[{"id":"m","owned_by":"someone"}]}'));
  const msg = wrongDialectMessage('POST /v1/messages', 404, id, 'DIALECT');
  assert.ok(!msg.includes('\n'), 'one line');
  assert.match(
    msg,
    /^POST \/v1\/messages → 404: this server is an OpenAI-compatible server .*, which offers openai, openai-chat; set DIALECT=openai \(or DIALECT=auto\)\.$/,
  );
  // vLLM offers /v1/messages since 2025: an older one is told so.
  const vllm = identify(p('GET /get_model_info', 404), vllmModels, [p('GET /version', 200, '{"version":"0.6.3"}')]);
  assert.match(
    wrongDialectMessage('POST /v1/messages', 404, vllm, 'DIALECT', 'anthropic'),
    /which offers openai, openai-chat, anthropic, responses; POST \/v1\/messages came in a later release than this one: upgrade it, or set DIALECT=openai \(or DIALECT=auto\)\.$/,
  );
  // Stall localisation does not probe Messages and Responses: they pass through the chat route's layer.
  assert.deepEqual(stallProbeDialects(engineById('vllm'), 'openai'), ['openai-chat']);
});

test('neither API answers: advice to check the URL', () => {
  const id = identify(p('GET /get_model_info', 404), p('GET /v1/models', 404));
  assert.equal(id.dialect, null);
  assert.match(wrongDialectMessage('POST /generate', 404, id, 'DIALECT'), /Check the URL/);
});

test('healthy but hung', () => {
  assert.match(
    stalledMessage(['GET /health', 'GET /v1/models'], 10_000),
    /GET \/health and GET \/v1\/models → 200 but no token within 10 s: the engine is stalled/,
  );
});

test('model choice', () => {
  const id = identify(p('GET /get_model_info', 404), vllmModels);
  assert.equal(chooseModel('', id, 'MODEL').model, 'Qwen/Qwen3-32B');
  assert.match(chooseModel('llama', id, 'MODEL').error ?? '', /MODEL='llama' is not served here; the server serves: Qwen\/Qwen3-32B/);
});

test('context check and timeout warning', () => {
  const exact = (isl: number) => ({ isl, length: isl, spread: 0 });
  assert.equal(contextError(exact(1024), 256, 32768), null);
  assert.equal(contextError(exact(32768), 256, 32768), "ISL 32768 + OSL 256 = 33024 tokens exceeds the model's context length of 32768: lower ISL or OSL.");
  assert.equal(contextError(exact(1e6), 1, null), null);
  // 1 token in 200 ms, 16 tokens in 500 ms → 20 ms/token → OSL 2048 ≈ 41 s
  assert.match(timeoutWarning(200, 500, 16, 2048, 30_000) ?? '', /OSL=2048 needs ≈41 s/);
  assert.equal(timeoutWarning(200, 500, 16, 256, 30_000), null);
});

test('SGLang serving another model than MODEL: a warning, and the served model is the one reported', () => {
  const sglang = identify(
    p('GET /get_model_info', 200, '{"model_path":"Qwen/Qwen3-32B","is_generation":true}'),
    p('GET /v1/models', 200, '{"data":[{"id":"Qwen/Qwen3-32B"}]}'),
  );
  const c = chooseModel('llama', sglang, 'MODEL');
  assert.equal(c.error, null);
  assert.equal(c.model, 'Qwen/Qwen3-32B');
  assert.equal(c.note, "MODEL='llama' is not what this SGLang serves ('Qwen/Qwen3-32B'); SGLang ignores the model name: the report names 'Qwen/Qwen3-32B'.");
  assert.deepEqual(chooseModel('Qwen/Qwen3-32B', sglang, 'MODEL'), { model: 'Qwen/Qwen3-32B', note: null, error: null });
});

test('ISL_SPREAD: the longest prompt follows the pool length rule, and the message gives the figures', () => {
  const longest = longestPrompt([512, 960], 64, 0.2);
  assert.deepEqual(longest, { isl: 960, length: 1152, spread: 0.2 });
  // The same rule the pools are built with, whatever the seed or SHARED_PREFIX.
  const spec = { isl: 960, poolSize: 64, spread: 0.2, seed: 7, vocabSize: 1000, idFloor: 10, sharedPrefix: 100 };
  assert.equal(Math.max(...poolLengths(spec)), longest.length);
  // A pool of one prompt has exactly ISL tokens.
  assert.deepEqual(longestPrompt([960], 1, 0.2), { isl: 960, length: 960, spread: 0.2 });
  assert.equal(contextError(longest, 32, 1184), null);
  assert.equal(
    contextError(longest, 32, 1024),
    'the longest prompt (ISL 960 with ISL_SPREAD=0.2: 1152 tokens) + OSL 32 = 1184 tokens exceeds the ' +
      "model's context length of 1024: lower ISL, ISL_SPREAD or OSL.",
  );
  assert.equal(contextError(longestPrompt([960], 64, 0), 32, 1024), null);
});

test('transient failures: which are retried, the back-off, the messages', () => {
  const r = (status: number, cls: string) => ({ status, error: { class: cls as never, message: '' } });
  assert.ok(isTransient(r(429, 'rate_limited')));
  assert.ok(isTransient(r(500, 'server_error')));
  assert.ok(isTransient(r(503, 'overloaded')));
  assert.ok(isTransient(r(0, 'connection_lost')));
  assert.ok(!isTransient(r(0, 'timeout')), 'a timeout is a stall, not retried');
  assert.ok(!isTransient(r(404, 'wrong_dialect')));
  assert.ok(!isTransient(r(400, 'context_length')));
  assert.ok(!isTransient({ status: 200, error: null }));
  assert.deepEqual([1, 2, 3].map(backoffMs), [500, 1000, 2000]);
  assert.equal(
    attemptsFailedMessage('the one-token test generation', 4, "POST /generate → 500: 'boom'. The server failed: check its logs."),
    "the one-token test generation failed on 4 of 4 attempts: POST /generate → 500: 'boom'. The server failed: check its logs.",
  );
  assert.equal(attemptsFailedMessage('x', 1, 'e'), 'x failed: e');
  assert.equal(transientWarning(0, 3, []), null);
  assert.equal(
    transientWarning(2, 5, ['500', '500']),
    '2 of 5 preflight requests failed transiently (500) and succeeded when retried: expect such errors under load.',
  );
  assert.match(transientWarning(2, 5, ['429', '500']) ?? '', /\(429, 500\)/);
});

test('a refused connection reads as "nothing listens (yet)"; DNS is told apart', () => {
  const refused = { error: 'dial: connection refused', errorCode: 1212 };
  assert.equal(connectFailure(refused), 'refused');
  assert.equal(connectFailure({ error: 'lookup: no such host', errorCode: 1101 }), 'dns');
  assert.equal(connectFailure({ error: 'request timeout', errorCode: 1050 }), 'no_answer');
  assert.equal(
    unreachableMessage('http://127.0.0.1:8000', 10_000, refused, 'TARGET_URL'),
    'cannot connect to http://127.0.0.1:8000 for 10 s (connection refused): nothing listens there — is the server running (a vLLM still loading its model does not listen yet: raise PREFLIGHT_TIMEOUT) and is TARGET_URL right?',
  );
  assert.match(unreachableMessage('http://x:1', 10_000, { error: 'lookup: no such host', errorCode: 1101 }, 'MTP_URL'), /does not resolve; is MTP_URL right\?/);
});

test('stall localisation: which routes to try', () => {
  assert.deepEqual(stallProbeDialects(engineById('sglang'), 'openai-chat'), ['sglang']);
  assert.deepEqual(stallProbeDialects(engineById('sglang'), 'sglang'), ['openai-chat']);
  assert.deepEqual(stallProbeDialects(engineById('sglang'), 'openai'), ['sglang', 'openai-chat']);
  assert.deepEqual(stallProbeDialects(engineById('vllm'), 'openai'), ['openai-chat']);
  assert.deepEqual(stallProbeDialects(engineById('vllm'), 'openai-chat'), ['openai']);
  assert.deepEqual(stallProbeDialects(null, 'openai'), []);
  assert.deepEqual(stallProbeDialects(engineById('llamacpp'), 'openai'), ['llamacpp', 'openai-chat'], 'llama.cpp: its native /completion and the chat route');
  // A chat route in use: another chat route passes through the same layer, only the prompt routes tell.
  assert.deepEqual(stallProbeDialects(engineById('vllm'), 'anthropic'), ['openai']);
  assert.deepEqual(stallProbeDialects(engineById('sglang'), 'responses'), ['sglang']);
});

test('stall localisation: engine stuck, OpenAI layer stuck, chat layer stuck, inconclusive', () => {
  const tr = (dialect: RouteTry['dialect'], route: string, outcome: RouteTry['outcome'], timeoutMs = 10_000, detail = ''): RouteTry => ({
    dialect,
    route,
    outcome,
    detail,
    timeoutMs,
  });
  const health = ['GET /health', 'GET /v1/models'];
  const chat = tr('openai-chat', 'POST /v1/chat/completions', 'timeout');
  const engine = stallDiagnosis(chat, [tr('sglang', 'POST /generate', 'timeout')], health, engineById('sglang'), 'DIALECT');
  assert.equal(engine.reason, 'stalled');
  assert.equal(
    engine.message,
    'GET /health and GET /v1/models → 200 but no token within 10 s: the engine is stalled (it accepts requests and generates nothing). ' +
      'Both POST /v1/chat/completions and POST /generate produced no token in 10 s: the engine itself is stuck, not the OpenAI layer. ' +
      'Restart the server and check its logs; PREFLIGHT_TIMEOUT sets this deadline.',
  );
  const layer = stallDiagnosis(chat, [tr('sglang', 'POST /generate', 'token')], health, engineById('sglang'), 'DIALECT');
  assert.equal(layer.reason, 'stalled_layer');
  assert.equal(
    layer.message,
    'GET /health and GET /v1/models → 200, but only POST /v1/chat/completions hangs (no token in 10 s); POST /generate answers: ' +
      'the OpenAI layer (tokenizer manager, chat template) is stuck, not the engine; DIALECT=sglang works around it. Restart the server and check its logs.',
  );
  const vllmChat = stallDiagnosis(chat, [tr('openai', 'POST /v1/completions', 'token')], health, engineById('vllm'), 'MTP_DIALECT');
  assert.match(
    vllmChat.message,
    /only POST \/v1\/chat\/completions hangs .*the chat layer \(chat template\) is stuck, not the engine; MTP_DIALECT=openai works around it/,
  );
  const vllmAll = stallDiagnosis(tr('openai', 'POST /v1/completions', 'timeout'), [chat], health, engineById('vllm'), 'DIALECT');
  assert.match(
    vllmAll.message,
    /Both POST \/v1\/completions and POST \/v1\/chat\/completions produced no token in 10 s: the engine itself is stuck, not one route\./,
  );
  const three = stallDiagnosis(
    tr('openai', 'POST /v1/completions', 'timeout'),
    [tr('sglang', 'POST /generate', 'timeout', 5000), tr('openai-chat', 'POST /v1/chat/completions', 'timeout', 5000)],
    [],
    engineById('sglang'),
    'DIALECT',
  );
  assert.match(
    three.message,
    /None of POST \/v1\/completions, POST \/generate or POST \/v1\/chat\/completions produced a token in 10 s, 5 s, 5 s respectively/,
  );
  const unclear = stallDiagnosis(chat, [tr('sglang', 'POST /generate', 'error', 10_000, 'POST /generate → 500.')], health, engineById('sglang'), 'DIALECT');
  assert.equal(unclear.reason, 'stalled');
  assert.match(unclear.message, /the engine is stalled .* POST \/generate could not tell \(POST \/generate → 500\.\)\. Restart/);
  assert.equal(stallDiagnosis(chat, [], health, null, 'DIALECT').message, stalledMessage(health, 10_000));
  const llama = stallDiagnosis(chat, [tr('llamacpp', 'POST /completion', 'token')], health, engineById('llamacpp'), 'DIALECT');
  assert.match(
    llama.message,
    /POST \/completion answers: the OpenAI-compatible layer \(chat template\) is stuck, not the engine; DIALECT=llamacpp works around it/,
  );
});

test('a layer probed beside a check that answered hangs: a warning naming it, none when nothing hung', () => {
  const tr = (dialect: RouteTry['dialect'], route: string, outcome: RouteTry['outcome']): RouteTry => ({
    dialect,
    route,
    outcome,
    detail: '',
    timeoutMs: 10_000,
  });
  const check = tr('openai', 'POST /v1/completions', 'token');
  assert.equal(hungLayerWarning(check, [tr('openai-chat', 'POST /v1/chat/completions', 'token')], engineById('vllm')), null);
  assert.equal(hungLayerWarning(check, [tr('openai-chat', 'POST /v1/chat/completions', 'error')], engineById('vllm')), null);
  assert.equal(
    hungLayerWarning(check, [tr('openai-chat', 'POST /v1/chat/completions', 'timeout')], engineById('vllm')),
    'POST /v1/chat/completions produced no token in 10 s while POST /v1/completions answers: the chat ' +
      'layer (chat template) is stuck, not the engine. This run speaks POST /v1/completions and is not ' +
      'affected; preflight waited for the other route.',
  );
});
