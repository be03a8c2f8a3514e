// SGLang's native routes: /generate, the health routes, /get_model_info, /get_server_info.
import type { ServerResponse } from 'node:http';
import type { SimContext } from '../context';
import { requestHex } from '../context';
import { nowMs } from '../scheduler/clock';
import { SILENT_SINK } from '../scheduler/batch-scheduler';
import { domainOf } from '../scheduler/speculative';
import { adapterOfLoraPath } from '../lora';
import { deriveSeed } from '../rng';
import { HttpError, type Json, type RouteContext, type Router, readJsonObject, sendEmpty, sendJson } from './common';
import { contextCheck } from './openai';
import { missing, optBool, optInt, optObject, optString, stopList, tokenIds } from './params';
import { type Finish, type Formatter, Session, type SessionState } from './session';

function finishReason(f: Finish | null, completionTokens: number): unknown {
  if (!f) return null;
  if (f.kind === 'length') return { type: 'length', length: completionTokens };
  if (f.kind === 'stop') return { type: 'stop', matched: f.matched };
  return { type: 'abort', message: f.message, status_code: f.statusCode };
}

function metaInfo(ctx: SimContext, s: SessionState): Json {
  const n = s.ids.length;
  const m: Json = {
    id: s.req.id,
    finish_reason: finishReason(s.finish, n),
    prompt_tokens: s.req.promptIds.length,
    completion_tokens: n,
    cached_tokens: s.cachedTokens,
  };
  if (ctx.o.spec !== 'none') {
    // SGLang's own formulas: accept length counts every completion token (the prefill's first
    // token too) over verify steps, so it reads slightly above the true per-step mean.
    const drafted = s.verifySteps * ctx.o.specDraftTokens;
    m.spec_verify_ct = s.verifySteps;
    if (s.verifySteps > 0) {
      m.spec_accept_length = n / s.verifySteps;
      m.spec_accept_rate = drafted ? s.acceptedTokens / drafted : 0;
      m.spec_accept_token_num = s.acceptedTokens;
      m.spec_draft_token_num = drafted;
    }
  }
  if (s.finish) m.e2e_latency = (nowMs() - s.arrivalMs) / 1000;
  return m;
}

function generateFormatter(ctx: SimContext): Formatter {
  const incremental = ctx.o.incrementalStreamingOutput;
  const out = (s: SessionState, text: string, ids: readonly number[]): string => JSON.stringify({ text, output_ids: ids, meta_info: metaInfo(ctx, s) });
  return {
    errorStyle: ctx.imitation.errors.native,
    // As newer SGLang: stream events carry only the new output_ids, while text is cumulative unless
    // --incremental-streaming-output (meta_info.completion_tokens is the reliable running count).
    event: (s, d) => [out(s, incremental ? d.content : s.content, d.ids)],
    tail: () => [],
    body: (s) => ({ text: s.content, output_ids: s.ids, meta_info: metaInfo(ctx, s) }),
    streamError: (message) => JSON.stringify({ error: { message } }),
    abortEvent: (s) => out(s, '', []),
  };
}

async function generate(ctx: SimContext, { req, res, arrivalMs, intakeLagMs }: RouteContext): Promise<void> {
  const body = await readJsonObject(req);
  const sp = optObject(body, 'sampling_params') ?? {};
  let promptIds: number[];
  let domain: string | null = null;
  if (body.input_ids !== undefined && body.input_ids !== null) {
    if (Array.isArray(body.input_ids) && Array.isArray(body.input_ids[0]))
      throw new HttpError(400, 'Batch requests are not supported by the simulator; send one prompt per request.', 'input_ids');
    promptIds = tokenIds(body.input_ids, 'input_ids', ctx);
  } else if (body.text !== undefined && body.text !== null) {
    if (Array.isArray(body.text)) throw new HttpError(400, 'Batch requests are not supported by the simulator; send one prompt per request.', 'text');
    const text = optString(body, 'text') as string;
    promptIds = ctx.tokenizer.encode(text);
    domain = domainOf(text);
  } else {
    throw new HttpError(400, 'Either text, input_ids or input_embeds should be provided.', null);
  }
  if (promptIds.length === 0) missing('text');
  const maxNew = optInt(sp, 'max_new_tokens') ?? 128;
  if (maxNew < 1) throw new HttpError(400, `max_new_tokens must be at least 1, got ${maxNew}.`, 'max_new_tokens');
  contextCheck(ctx, promptIds.length, maxNew);
  const adapter = adapterOfLoraPath(ctx, body.lora_path);
  const ordinal = ctx.nextOrdinal();
  new Session(
    ctx,
    res,
    {
      route: '/generate',
      arrivalMs,
      intakeLagMs,
      id: optString(body, 'rid') ?? requestHex(ctx.o.seed, ordinal),
      stream: optBool(body, 'stream') ?? false,
      promptIds,
      domain,
      adapter,
      maxNewTokens: maxNew,
      ignoreEos: optBool(sp, 'ignore_eos') ?? false,
      stop: stopList(sp),
      reasoningTokens: 0,
    },
    generateFormatter(ctx),
    ordinal,
  );
}

/**
 * Newer SGLang: submit a one-token generation, then check once a second whether the engine has
 * produced any output since the probe began (its own token or any other request's); 200 as soon as
 * it has, 503 at the deadline. So a healthy server answers after about one second (scaled), and a
 * hung one after the full timeout.
 */
function healthGenerate(ctx: SimContext, res: ServerResponse, probe: number): void {
  if (!ctx.ready()) return sendEmpty(res, 503);
  const tic = nowMs();
  // Health probes draw from their own seed stream so they do not shift client requests' draws.
  const seq = ctx.scheduler.submit(
    { ordinal: deriveSeed(ctx.o.seed, 0x4ea1, probe), promptIds: [ctx.tokenizer.eosId], maxNewTokens: 1, ignoreEos: true },
    SILENT_SINK,
  );
  const deadline = tic + ctx.o.healthGenerateTimeoutMs / ctx.o.timeScale;
  const finish = (status: number): void => {
    clearInterval(poll);
    if (seq) ctx.scheduler.cancel(seq);
    sendEmpty(res, status);
  };
  const poll = setInterval(
    () => {
      if (ctx.scheduler.lastOutputMs > tic) finish(200);
      else if (nowMs() >= deadline) finish(503);
    },
    Math.min(1000 / ctx.o.timeScale, ctx.o.healthGenerateTimeoutMs / ctx.o.timeScale),
  );
  res.on('close', () => {
    clearInterval(poll);
    if (seq) ctx.scheduler.cancel(seq);
  });
}

export function sglangServerArgs(ctx: SimContext): Json {
  const o = ctx.o;
  const algo = { none: null, mtp: 'NEXTN', dflash: 'DFLASH', ddtree: 'DDTREE' }[o.spec];
  return {
    model_path: o.model,
    tokenizer_path: o.model,
    served_model_name: o.model,
    host: o.host,
    port: o.port,
    context_length: o.maxModelLen,
    max_running_requests: o.maxRunning,
    max_queued_requests: o.maxQueue || null,
    max_total_tokens: o.kvCapacity,
    chunked_prefill_size: o.maxBatchedTokens,
    max_prefill_tokens: o.maxBatchedTokens,
    page_size: o.blockSize,
    disable_cuda_graph: !o.cudaGraph,
    tp_size: o.tpSize,
    pp_size: 1,
    dp_size: 1,
    dtype: o.dtype,
    quantization: o.quantization || null,
    kv_cache_dtype: o.kvCacheDtype,
    mem_fraction_static: o.memFraction,
    disable_radix_cache: !o.prefixCaching,
    stream_interval: o.streamInterval,
    incremental_streaming_output: o.incrementalStreamingOutput,
    random_seed: o.seed,
    speculative_algorithm: algo,
    speculative_num_steps: o.spec === 'none' ? null : o.specDraftTokens,
    speculative_num_draft_tokens: o.spec === 'none' ? null : o.specVerifyTokens,
    api_key: o.apiKey ? '***' : null,
    enable_metrics: true,
  };
}

export function addSglangRoutes(router: Router, ctx: SimContext): void {
  let probes = 0;
  router
    .add('POST', '/generate', (rc) => generate(ctx, rc))
    .add('PUT', '/generate', (rc) => generate(ctx, rc))
    .add('GET', '/health', ({ res }) => sendEmpty(res, ctx.ready() ? 200 : 503))
    .add('GET', '/health_generate', ({ res }) => healthGenerate(ctx, res, probes++))
    .add('GET', '/get_model_info', ({ res }) =>
      sendJson(res, 200, {
        model_path: ctx.o.model,
        tokenizer_path: ctx.o.model,
        is_generation: true,
        preferred_sampling_params: null,
        weight_version: 'default',
        has_image_understanding: false,
        has_audio_understanding: false,
        model_type: 'qwen3',
        architectures: ['Qwen3ForCausalLM'],
      }),
    )
    .add('GET', '/get_server_info', ({ res }) => {
      const c = ctx.scheduler.counters;
      sendJson(res, 200, {
        ...sglangServerArgs(ctx),
        internal_states: [
          {
            // A server-lifetime average, not a run's: the trap a benchmark must not fall into.
            avg_spec_accept_length: c.verifySteps ? c.verifyTokens / c.verifySteps : null,
            last_gen_throughput: ctx.metrics.windowRates().throughput,
          },
        ],
        version: ctx.imitation.version,
      });
    });
}
