import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chooseModel, contextError, identify, stalledMessage, timeoutWarning, wrongDialectMessage, type Probe } from '../../../lib/preflight/diagnose';

const p = (route: string, status: number, body = ''): Probe => ({ route, status, body, error: status ? '' : 'dial: connection refused' });
const vllmModels = p('GET /v1/models', 200, '{"object":"list","data":[{"id":"Qwen/Qwen3-32B","object":"model","owned_by":"vllm","max_model_len":32768}]}');

test('vLLM: /v1/models but no /get_model_info → openai, with its version', () => {
  const id = identify(p('GET /get_model_info', 404, '{"detail":"Not Found"}'), vllmModels, p('GET /version', 200, '{"version":"0.20.1"}'));
  assert.equal(id.dialect, 'openai');
  assert.equal(id.kind, 'vLLM 0.20.1');
  assert.deepEqual(id.models, ['Qwen/Qwen3-32B']);
  assert.equal(id.maxModelLen, 32768);
});

test('SGLang: /get_model_info → sglang', () => {
  const id = identify(p('GET /get_model_info', 200, '{"model_path":"Qwen/Qwen3-32B","tokenizer_path":"Qwen/Qwen3-32B","is_generation":true}'), vllmModels, null);
  assert.equal(id.dialect, 'sglang');
  assert.equal(id.kind, 'SGLang');
});

test('the seed message: DIALECT=sglang against vLLM names what the server is and what to set', () => {
  const id = identify(p('GET /get_model_info', 404), vllmModels, p('GET /version', 200, '{"version":"0.20.1"}'));
  const msg = wrongDialectMessage('POST /generate', 404, id, 'DIALECT');
  assert.match(msg, /^POST \/generate → 404: this server is vLLM 0\.20\.1 .*set DIALECT=openai/);
});

test('neither API answers: advice to check the URL', () => {
  const id = identify(p('GET /get_model_info', 404), p('GET /v1/models', 404), null);
  assert.equal(id.dialect, null);
  assert.match(wrongDialectMessage('POST /generate', 404, id, 'DIALECT'), /Check the URL/);
});

test('healthy but hung', () => {
  assert.match(stalledMessage(['GET /health', 'GET /v1/models'], 10_000), /GET \/health and GET \/v1\/models → 200 but no token within 10 s: the engine is stalled/);
});

test('model choice', () => {
  const id = identify(p('GET /get_model_info', 404), vllmModels, null);
  assert.equal(chooseModel('', id, 'MODEL').model, 'Qwen/Qwen3-32B');
  assert.match(chooseModel('llama', id, 'MODEL').error ?? '', /MODEL='llama' is not served here; the server serves: Qwen\/Qwen3-32B/);
});

test('context check and timeout warning', () => {
  assert.equal(contextError(1024, 256, 32768), null);
  assert.match(contextError(32768, 256, 32768) ?? '', /33024 tokens exceeds the model's context length of 32768/);
  assert.equal(contextError(1e6, 1, null), null);
  // 1 token in 200 ms, 16 tokens in 500 ms → 20 ms/token → OSL 2048 ≈ 41 s
  assert.match(timeoutWarning(200, 500, 16, 2048, 30_000) ?? '', /OSL=2048 needs ≈41 s/);
  assert.equal(timeoutWarning(200, 500, 16, 256, 30_000), null);
});
