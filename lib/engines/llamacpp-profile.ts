// llama.cpp's llama-server: /v1/models entries owned_by "llamacpp" (slot context and vocabulary in
// `meta`), GET /props names the build ("b11669-Debian"). Its native /completion counts tokens per
// event and reports draft tokens proposed and accepted.
import { answered, ownedBy, positive, text, type EngineProfile } from './profile';

/** The build in build_info: "b11669-Debian" → "b11669"; anything else as it is. */
function buildName(info: string): string {
  const m = /^(b\d+)(?:-|$)/.exec(info);
  return m ? m[1] : info;
}

export const llamacpp: EngineProfile = {
  id: 'llamacpp',
  label: 'llama.cpp',
  probes: [{ route: '/props', when: (s) => s.ownedBy.includes('llamacpp') }],
  recognise(s) {
    const p = answered(s, '/props');
    const build = p ? text(p.build_info) : null;
    const propsSay = p !== null && build !== null && p.default_generation_settings !== null && typeof p.default_generation_settings === 'object';
    if (!ownedBy(s, 'llamacpp') && !propsSay) return null;
    const meta = s.models[0]?.meta as Record<string, unknown> | undefined;
    return {
      version: build !== null ? buildName(build) : null,
      maxModelLen: positive(s.models[0]?.max_model_len) ?? positive(meta?.n_ctx),
      evidence: [ownedBy(s, 'llamacpp') ? 'owned_by llamacpp' : null, propsSay ? `GET /props → build ${build}` : null].filter(Boolean).join(', '),
    };
  },
  dialect: 'llamacpp',
  // Measured on b11669 (test/fixtures/corpus/llamacpp/b11669-tools-call-named-stream.sse): the
  // server logs "Wrong type supplied for parameter 'tool_choice'" and goes on as auto.
  namedToolChoice: 'reads tool_choice only as a string: a named function is taken as auto, so replies may carry no call',
  // b11669 answers /v1/messages and /v1/responses too, streamed and not (measured 2026-12-04).
  offered: ['llamacpp', 'openai-chat', 'anthropic', 'responses'],
  openaiLayer: 'the OpenAI-compatible layer (chat template)',
  // llama.cpp (--metrics) has no latency histograms. Its token counters are added to when each
  // request finishes; spec_decode_num_drafts counts verify steps that had a draft, and
  // spec_decode_num_accepted_tokens the draft tokens those steps accepted.
  metrics: {
    prefix: 'llamacpp:',
    ttft: null,
    itl: [],
    e2e: null,
    queue: null,
    waiting: 'llamacpp:requests_deferred',
    generationTokens: 'llamacpp:tokens_predicted_total',
    specDrafts: 'llamacpp:spec_decode_num_drafts_total',
    specAccepted: 'llamacpp:spec_decode_num_accepted_tokens_total',
    specAcceptedPerPos: 'llamacpp:spec_decode_num_accepted_tokens_per_pos_total',
    generationSeconds: 'llamacpp:tokens_predicted_seconds_total',
  },
  // A request's prompt tokens go to prompt_tokens when computed and prompt_tokens_cached when
  // reused from its slot, at its end. Each slot keeps its own cache: GET /slots lists them and
  // POST /slots/{id}?action=erase empties one (queued behind the slot's running task); the erase
  // answers 501 unless the server was started with --slot-save-path, /slots 501 with --no-slots.
  prefixCache: {
    counters: { hits: 'llamacpp:prompt_tokens_cached_total', queries: ['llamacpp:prompt_tokens_total', 'llamacpp:prompt_tokens_cached_total'] },
    reset: {
      method: 'POST',
      path: '/slots/{slot}?action=erase',
      slots: '/slots',
      busy: [],
      missing: 'llama-server erases a slot only when started with --slot-save-path (and lists them unless --no-slots)',
      // Measured on b11669: after the erase, prompts sent before it were still found (restored
      // from the host-memory prompt cache); with --cache-ram 0 none were.
      leaves: 'prompts kept in host memory (--cache-ram, 8192 MiB by default) survive the erase: start llama-server with --cache-ram 0 for an empty cache',
    },
  },
  metricsHint: 'start llama-server with --metrics',
  // --lora FILE loads an adapter (ids in load order); a request's `lora: [{id, scale}]`, on /completion
  // and the OpenAI routes alike, sets the scales for that request, adapters left out at 0.
  adapters: { list: 'lora-adapters', naming: 'lora-list' },
  tokenize: { path: '/tokenize', textField: 'content', specialField: 'add_special', sendsModel: false, messages: false, countField: null },
  // GET /props: the slots (-np), each slot's context (--ctx-size ÷ slots) and the weights' file type.
  // Batch sizes (-b, -ub), offload and flash attention are not shown; nor is speculation: b11669
  // started with a draft model still says params["speculative.types"] "none" (corpus b11669-props-draft-np2.json).
  serving: {
    routes: ['/props'],
    settings: {
      engine_version: { route: '/props', field: 'build_info' },
      model: { route: '/props', field: 'model_path', flag: '--model' },
      quantization: { route: '/props', field: 'model_ftype', flag: 'the GGUF file type' },
      max_running_requests: { route: '/props', field: 'total_slots', flag: '--parallel (-np)' },
      context_length: { route: '/props', field: 'default_generation_settings.n_ctx', flag: '--ctx-size ÷ --parallel' },
    },
  },
  checked: 'real llama-server in the test loop (test/real-engine); corpus replies captured from it and quoted from 2023–2025 builds',
};
