// Engines recognised in preflight from their answers (recorded ones in test/fixtures/replies), and
// which GETs the profiles ask for.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { identify, type Probe } from '../../../lib/preflight/diagnose';
import { ENGINES, probesToAsk, sightings } from '../../../lib/engines/index';
import { reply } from '../fixtures';

const probe = (route: string, status: number, body: string): Probe => ({ route, status, body, error: '' });
const models = probe('GET /v1/models', 200, reply('llamacpp-v1-models.json'));
const props = probe('GET /props', 200, reply('llamacpp-props.json'));
const notFound = (route: string) => probe(route, 404, reply('llamacpp-404.json'));
const list = (owner: string, extra = '') =>
  probe('GET /v1/models', 200, `{"object":"list","data":[{"id":"m","object":"model","owned_by":"${owner}"${extra}}]}`);

test('llama.cpp: named with its build, context length per slot, its native dialect chosen by auto', () => {
  const id = identify(notFound('GET /get_model_info'), models, [notFound('GET /version'), props]);
  assert.equal(id.engineLabel, 'llama.cpp b11669');
  assert.equal(id.engine, 'llamacpp');
  // /completion counts tokens in every streamed event; /v1/completions merges a withheld partial
  // UTF-8 token into the next chunk without saying so (see test/lib/dialects/llamacpp.test.ts).
  assert.equal(id.dialect, 'llamacpp');
  assert.deepEqual(id.models, ['/models/target.gguf']);
  assert.equal(id.maxModelLen, 4096);
  assert.match(id.evidence, /GET \/v1\/models → 200, owned_by llamacpp, GET \/props → build b11669-Debian/);
});

test('without /props (not asked, or refused) it is still llama.cpp', () => {
  assert.equal(identify(notFound('GET /get_model_info'), models).engineLabel, 'llama.cpp');
  assert.equal(identify(notFound('GET /get_model_info'), models, [probe('GET /props', 401, '')]).engineLabel, 'llama.cpp');
});

test('the GETs asked: /props of a llama.cpp list only, /version of any list, /info unless SGLang answered, /api/version of Ollama', () => {
  const ask = (m: Probe, seen: Probe[] = []) =>
    probesToAsk(
      sightings(
        { route: '/v1/models', status: m.status, body: m.body },
        seen.map((p) => ({ route: p.route.replace(/^GET /, ''), status: p.status, body: p.body })),
      ),
    );
  assert.deepEqual(ask(models).sort(), ['/info', '/props', '/version']);
  assert.deepEqual(ask(list('vllm')).sort(), ['/info', '/version']);
  assert.deepEqual(ask(list('library')).sort(), ['/api/version', '/info', '/version']);
  assert.deepEqual(ask(list('vllm'), [probe('GET /get_model_info', 200, '{"model_path":"m"}')]), ['/version']);
  assert.deepEqual(ask(probe('GET /v1/models', 503, '')), ['/info'], 'a TGI without /v1/models is still asked /info');
});

test('vLLM by owned_by or by /version; an unknown owner is "an OpenAI-compatible server"', () => {
  const vllm = identify(notFound('GET /get_model_info'), list('vllm', ',"max_model_len":32768'), [probe('GET /version', 200, '{"version":"0.20.1"}')]);
  assert.deepEqual([vllm.engine, vllm.engineLabel, vllm.maxModelLen, vllm.dialect], ['vllm', 'vLLM 0.20.1', 32768, 'openai']);
  assert.equal(identify(notFound('GET /get_model_info'), list('vllm')).engineLabel, 'vLLM');
  const other = identify(notFound('GET /get_model_info'), list('acme'), [notFound('GET /version'), notFound('GET /info')]);
  assert.deepEqual([other.engine, other.engineLabel, other.dialect], ['openai-compatible', 'an OpenAI-compatible server', 'openai']);
  assert.match(other.evidence, /no engine recognised \(owned_by acme\)/);
});

test('TGI from /info, Ollama, LM Studio and trtllm-serve from owned_by', () => {
  const tgi = identify(notFound('GET /get_model_info'), probe('GET /v1/models', 404, ''), [
    probe('GET /info', 200, '{"model_id":"meta-llama/Llama-3.1-8B-Instruct","max_total_tokens":8192,"router":"text-generation-router","version":"3.0.1"}'),
  ]);
  assert.deepEqual(
    [tgi.engine, tgi.engineLabel, tgi.maxModelLen, tgi.models[0], tgi.dialect],
    ['tgi', 'Text Generation Inference 3.0.1', 8192, 'meta-llama/Llama-3.1-8B-Instruct', 'openai'],
  );
  const ollama = identify(notFound('GET /get_model_info'), list('library'), [probe('GET /api/version', 200, '{"version":"0.5.7"}')]);
  assert.deepEqual([ollama.engine, ollama.engineLabel], ['ollama', 'Ollama 0.5.7']);
  assert.equal(identify(notFound('GET /get_model_info'), list('organization_owner')).engineLabel, 'LM Studio');
  assert.equal(identify(notFound('GET /get_model_info'), list('tensorrt_llm')).engineLabel, 'TensorRT-LLM (trtllm-serve)');
});

test('every profile has a unique id and label, offers the dialect auto picks, and a /metrics prefix of its own', () => {
  const ids = ENGINES.map((e) => e.id);
  assert.equal(new Set(ids).size, ids.length);
  assert.equal(new Set(ENGINES.map((e) => e.label)).size, ids.length);
  for (const e of ENGINES) {
    assert.ok(e.offered.includes(e.dialect), `${e.id} offers ${e.dialect}`);
    if (e.metrics) assert.ok(e.metrics.prefix.length > 2 && ENGINES.filter((o) => o.metrics?.prefix === e.metrics?.prefix).length === 1, e.id);
  }
});
