// llama.cpp recognised in preflight from its real answers (test/fixtures/replies/llamacpp-*).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { identify, type Probe } from '../../../lib/preflight/diagnose';
import { isLlamaCppModels, llamaCppFacts } from '../../../lib/preflight/engines';
import { reply } from '../fixtures';

const probe = (route: string, status: number, body: string): Probe => ({ route, status, body, error: '' });
const models = probe('GET /v1/models', 200, reply('llamacpp-v1-models.json'));
const props = probe('GET /props', 200, reply('llamacpp-props.json'));
const notFound = (route: string) => probe(route, 404, reply('llamacpp-404.json'));

test('llama.cpp: named with its build, context length per slot, its native dialect chosen by auto', () => {
  const id = identify(notFound('GET /get_model_info'), models, notFound('GET /version'), props);
  assert.equal(id.engine, 'llama.cpp b11669');
  // /completion counts tokens in every streamed event; /v1/completions merges a withheld partial
  // UTF-8 token into the next chunk without saying so (see test/lib/dialects/llamacpp.test.ts).
  assert.equal(id.dialect, 'llamacpp');
  assert.deepEqual(id.models, ['/models/target.gguf']);
  assert.equal(id.maxModelLen, 4096);
  assert.match(id.evidence, /GET \/v1\/models → 200 \(owned_by llamacpp, GET \/props → build b11669-Debian\)/);
});

test('without /props (not asked, or refused) it is still llama.cpp', () => {
  assert.equal(identify(notFound('GET /get_model_info'), models, null, null).engine, 'llama.cpp');
  assert.equal(identify(notFound('GET /get_model_info'), models, null, probe('GET /props', 401, '')).engine, 'llama.cpp');
});

test('GET /props is asked only of a llama.cpp model list', () => {
  assert.equal(isLlamaCppModels(models), true);
  assert.equal(isLlamaCppModels(probe('GET /v1/models', 200, reply('vllm-completions-nonstream.json'))), false);
  assert.equal(isLlamaCppModels(probe('GET /v1/models', 200, '{"object":"list","data":[{"id":"Qwen/Qwen3-32B","owned_by":"vllm","max_model_len":32768}]}')), false);
  assert.equal(isLlamaCppModels(probe('GET /v1/models', 503, '')), false);
});

test('vocabulary size from the model list', () => {
  assert.equal(llamaCppFacts(JSON.parse(reply('llamacpp-v1-models.json')), null)?.vocabSize, 32000);
});

test('vLLM and other OpenAI servers are unchanged', () => {
  const vllm = probe('GET /v1/models', 200, '{"object":"list","data":[{"id":"Qwen/Qwen3-32B","owned_by":"vllm","max_model_len":32768}]}');
  const id = identify(probe('GET /get_model_info', 404, '{"detail":"Not Found"}'), vllm, probe('GET /version', 200, '{"version":"0.20.1"}'));
  assert.equal(id.engine, 'vLLM 0.20.1');
  assert.equal(id.maxModelLen, 32768);
});
