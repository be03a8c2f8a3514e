// Each engine profile's serving configuration, read from replies in the corpus (test/fixtures/corpus)
// and, for vLLM's cache_config_info gauge (none in the corpus), from the simulator's /metrics; and
// the preflight reader's GETs against a fake server.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { engineById } from '../../../lib/engines/index';
import { jsonObject, type EngineProfile } from '../../../lib/engines/profile';
import { readServing, type ServingInputs } from '../../../lib/engines/serving-config';
import { readServingConfig } from '../../../lib/preflight/serving';
import { parsePromText } from '../../../lib/server-metrics/promtext';
import type { HttpPort, HttpReply } from '../../../lib/http-port';
import type { VariantConfig } from '../../../lib/config/config-types';
import { startSim } from '../../../sim/index';

const corpus = (f: string) => readFileSync(join(__dirname, '..', '..', 'fixtures', 'corpus', f), 'utf8');
const profile = (id: string) => engineById(id) as EngineProfile;
const values = (p: EngineProfile, inputs: ServingInputs) => Object.fromEntries(Object.entries(readServing(p.serving!, inputs)).map(([k, v]) => [k, v.value]));

test('SGLang: /get_server_info (corpus, v0.4.9) gives model, parallelism, the running-request limit and the speculative method', () => {
  const v = values(profile('sglang'), { json: { '/get_server_info': jsonObject(corpus('sglang/get_server_info.json')) }, gauges: {} });
  assert.deepEqual(v, {
    engine_version: '0.4.9',
    model: 'meta-llama/Llama-3.1-8B-Instruct',
    tensor_parallel: 1,
    max_running_requests: 48,
    // context_length is null (not set): the scheduler's max_req_input_len is read instead.
    context_length: 131066,
    speculative_method: 'EAGLE',
    speculative_draft_model: 'yuhuili/EAGLE-LLaMA3.1-Instruct-8B',
    speculative_steps: 3,
    speculative_draft_tokens: 4,
  });
});

test('llama.cpp: /props (captured from b11669) gives the slots (-np), the per-slot context and the file type, not the speculation', () => {
  const read = (f: string) => readServing(profile('llamacpp').serving!, { json: { '/props': jsonObject(corpus(f)) }, gauges: {} });
  const plain = read('llamacpp/b11669-props.json');
  assert.deepEqual(Object.fromEntries(Object.entries(plain).map(([k, v]) => [k, v.value])), {
    engine_version: 'b11669-Debian',
    model: '/models/target.gguf',
    quantization: 'F16',
    max_running_requests: 1,
    context_length: 256,
  });
  assert.equal(plain.max_running_requests?.source, 'GET /props total_slots');
  assert.equal(plain.max_running_requests?.flag, '--parallel (-np)');
  // -np 2 -c 2048 with a draft model: 2 slots of 1024; its params still say speculative.types "none", so nothing speculative is read.
  const draft = read('llamacpp/b11669-props-draft-np2.json');
  assert.deepEqual(Object.fromEntries(Object.entries(draft).map(([k, v]) => [k, v.value])), {
    engine_version: 'b11669-Debian',
    model: '/models/target.gguf',
    quantization: 'F16',
    max_running_requests: 2,
    context_length: 1024,
  });
});

test('TGI: /info (corpus, 3.3.7) gives the model, its revision, the concurrency limit and the total tokens', () => {
  const v = values(profile('tgi'), { json: { '/info': jsonObject(corpus('tgi/info.json')) }, gauges: {} });
  assert.deepEqual(v, {
    engine_version: '3.3.7',
    model: 'meta-llama/Llama-3.1-8B-Instruct',
    revision: '0e9e39f249a16976918f6564b8830bc894c89659',
    max_running_requests: 128,
    context_length: 4096,
  });
});

test("vLLM: the model list's root and max_model_len, and cache_config_info's labels (None: not set)", () => {
  const page = [
    '# TYPE vllm:cache_config_info gauge',
    'vllm:cache_config_info{block_size="16",cache_dtype="auto",enable_prefix_caching="True",gpu_memory_utilization="0.82",' +
      'num_gpu_blocks="573",sliding_window="None",engine="0"} 1.0',
  ].join('\n');
  const gauges: ServingInputs['gauges'] = {};
  for (const s of parsePromText(page)) gauges[s.name] = s.labels;
  const v = values(profile('vllm'), {
    json: { '/version': jsonObject(corpus('vllm/version.json')), '/v1/models': jsonObject(corpus('vllm/v1-models.json')) },
    gauges,
  });
  assert.equal(v.engine_version, '0.10.1.1');
  assert.equal(v.kv_cache_dtype, 'auto');
  assert.equal(v.prefix_caching, true);
  assert.equal(v.memory_fraction, 0.82);
  assert.equal(v.block_size, 16);
  assert.ok('model' in v && 'context_length' in v, JSON.stringify(v));
  // vLLM shows no scheduler setting: none is read, so none is compared.
  for (const k of ['max_running_requests', 'max_batch_tokens', 'cuda_graphs', 'tensor_parallel', 'dtype']) assert.ok(!(k in v), k);
});

test('a field the server leaves out is not read; a JSON null is read only where the profile says what it means', () => {
  const v = values(profile('sglang'), {
    json: { '/get_server_info': { model_path: 'm', quantization: null, dtype: null, disable_cuda_graph: true, chunked_prefill_size: -1 } },
    gauges: {},
  });
  assert.deepEqual(v, { model: 'm', quantization: 'none', chunked_prefill: 'off', cuda_graphs: false });
});

/** A fake server: each path's reply, 404 for the rest; records the GETs. */
function fakePort(routes: Record<string, string>, asked: string[]): HttpPort {
  const reply = (status: number, body: string): HttpReply => ({ status, body, contentType: 'application/json', error: '', errorCode: 0 });
  return {
    get(url) {
      const path = new URL(url).pathname;
      asked.push(path);
      return path in routes ? reply(200, routes[path]) : reply(404, '{"detail":"Not Found"}');
    },
    post: () => reply(404, ''),
    sleep: () => undefined,
    now: () => 0,
  };
}

const variant = { variant: 'a', url: 'http://x', apiKey: '' } as VariantConfig;

test("the reader asks the profile's routes and /metrics only when it reads a gauge, and says what each answered", () => {
  const asked: string[] = [];
  const c = readServingConfig(
    fakePort({ '/props': corpus('llamacpp/b11669-props.json') }, asked),
    { serverMetrics: 'auto' },
    variant,
    profile('llamacpp'),
    'llama.cpp b11669',
  );
  assert.deepEqual(asked, ['/props']);
  assert.equal(c.settings.engine?.value, 'llama.cpp');
  assert.equal(c.settings.engine_version?.value, 'b11669-Debian');
  assert.equal(c.settings.max_running_requests?.value, 1);
  assert.deepEqual(c.read, ['GET /props → 200']);

  const vAsked: string[] = [];
  const v = readServingConfig(fakePort({}, vAsked), { serverMetrics: 'off' }, variant, profile('vllm'), 'vLLM');
  assert.deepEqual(vAsked, ['/version', '/v1/models'], 'SERVER_METRICS=off: no GET /metrics');
  assert.deepEqual(v.read, ['GET /version → 404', 'GET /v1/models → 404', 'GET /metrics: not read (SERVER_METRICS=off)']);
  assert.deepEqual(Object.keys(v.settings), ['engine']);

  const none = readServingConfig(fakePort({}, []), { serverMetrics: 'auto' }, variant, null, 'an unknown server');
  assert.deepEqual(none.settings, { engine: { value: 'an unknown server', source: 'preflight' } });
  assert.match(none.read[0], /shows no serving configuration/);
});

test('the simulator shows its settings where the engine it imitates does: SGLang /get_server_info, vLLM cache_config_info', async () => {
  const sg = await startSim({ engine: 'sglang', maxRunning: 12, cudaGraph: false, tpSize: 2, maxBatchedTokens: 4096, spec: 'mtp' });
  const vl = await startSim({ engine: 'vllm', prefixCaching: false, memFraction: 0.8, kvCacheDtype: 'fp8', blockSize: 32 });
  try {
    const json = async (url: string) => jsonObject(await (await fetch(url)).text());
    const s = values(profile('sglang'), { json: { '/get_server_info': await json(`${sg.url}/get_server_info`) }, gauges: {} });
    assert.equal(s.max_running_requests, 12);
    assert.equal(s.cuda_graphs, false);
    assert.equal(s.tensor_parallel, 2);
    assert.equal(s.chunked_prefill, 4096);
    assert.equal(s.speculative_method, 'NEXTN');
    const gauges: ServingInputs['gauges'] = {};
    for (const x of parsePromText(await (await fetch(`${vl.url}/metrics`)).text())) gauges[x.name] ??= x.labels;
    const v = values(profile('vllm'), { json: { '/v1/models': await json(`${vl.url}/v1/models`) }, gauges });
    assert.equal(v.prefix_caching, false);
    assert.equal(v.memory_fraction, 0.8);
    assert.equal(v.kv_cache_dtype, 'fp8');
    assert.equal(v.block_size, 32);
    assert.equal(v.context_length, 32768);
  } finally {
    await Promise.all([sg.stop(), vl.stop()]);
  }
});
