// The OpenAI-compatible routes, served by both engines: /v1/completions, /v1/chat/completions,
// /v1/models (and vLLM's /version). The engine's imitation picks the byte details: vLLM dumps stream chunks
// of completions with every field and chat chunks with only the fields it set, and nests errors
// under "error"; SGLang dumps every field (with its extra "matched_stop") and uses flat errors.
import type { SimContext } from '../context';
import { requestHex } from '../context';
import { domainOf } from '../scheduler/speculative';
import { adapterOfModel, loraModelCards } from '../lora';
import { applyChatTemplate, type ChatMessage } from '../tokenizer';
import { HttpError, type Json, type RouteContext, type Router, errorBody, readJsonObject, sendJson } from './common';
import { missing, optBool, optInt, optObject, optString, stopList, tokenIds } from './params';
import type { Delta, Finish, Formatter, SessionState } from './session';
import { planStructured, toolCallChoice, toolCallMessage } from './structured';
import { Session } from './session';

type Kind = 'completion' | 'chat';

interface StreamOpts {
  includeUsage: boolean;
  continuousUsage: boolean;
}

/** The engine's context-length refusal, if the prompt and the output limit do not fit. */
export function contextCheck(ctx: SimContext, promptLen: number, maxNew: number | undefined): void {
  const message = ctx.imitation.contextLengthError(ctx.o.maxModelLen, promptLen, maxNew);
  if (message !== null) throw new HttpError(400, message, null, 'context_length');
}

/**
 * --reasoning-field think: the reasoning goes into the content between <think> and </think>, as a
 * server without a reasoning parser sends it; the close tag ends the chunk that ends the reasoning.
 */
function thinkTagged(s: SessionState, d: Delta): Delta {
  let text = '';
  if (d.reasoning) text += (s.reasoning === d.reasoning ? '<think>' : '') + d.reasoning + (s.ids.length >= s.req.reasoningTokens ? '</think>' : '');
  return { ...d, reasoning: '', content: text + d.content };
}

function usage(s: SessionState, think = false): Json {
  const p = s.req.promptIds.length;
  const n = s.ids.length;
  const u: Json = { prompt_tokens: p, total_tokens: p + n, completion_tokens: n };
  // As vLLM with a reasoning parser: the reasoning share of the completion, in the final usage
  // (the running per-chunk usage keeps its shape).
  if (s.req.reasoningTokens > 0 && s.finish && !think) u.completion_tokens_details = { reasoning_tokens: Math.min(n, s.req.reasoningTokens) };
  return u;
}

/**
 * vLLM's `metrics.speculative_decoding` (--per-request-spec-decode-metrics): this request's verify
 * steps and what they accepted; absent when the option is off, without speculation, or before any
 * verify step (a one-token reply).
 */
function specMetrics(ctx: SimContext, s: SessionState): Json | null {
  const mode = ctx.o.perRequestSpecDecodeMetrics;
  const steps = s.verifySteps;
  if (mode === 'off' || ctx.o.spec === 'none' || steps === 0) return null;
  const k = ctx.o.specDraftTokens;
  const drafted = steps * k;
  const m: Json = {
    mean_acceptance_length: 1 + s.acceptedTokens / steps,
    draft_acceptance_rate: drafted > 0 ? s.acceptedTokens / drafted : 0,
    acceptance_histogram: [...s.acceptedHistogram],
    num_spec_steps: steps,
    num_accepted_draft_tokens: s.acceptedTokens,
    num_draft_tokens: drafted,
    num_spec_tokens: k,
  };
  if (mode === 'detailed') m.per_step_accepted = [...s.perStepAccepted];
  return { speculative_decoding: m };
}

/** `toolCall`: the reply was a tool call, which vLLM's tool parser finishes with tool_calls. */
function finishFields(f: Finish | null, toolCall = false): { finish_reason: string | null; stop: string | number | null } {
  if (!f) return { finish_reason: null, stop: null };
  if (f.kind === 'abort') return { finish_reason: 'abort', stop: null };
  // vLLM's stop_reason is the stop string (or stop token id); plain EOS leaves it null.
  return { finish_reason: toolCall ? 'tool_calls' : f.kind, stop: f.kind === 'stop' && typeof f.matched === 'string' ? f.matched : null };
}

function formatter(ctx: SimContext, kind: Kind, so: StreamOpts): Formatter {
  const p = ctx.imitation.openai;
  // 'set' (vLLM): chat chunks carry only the fields that are set; 'all' (SGLang): every field.
  const sparse = p.chatChunkFields === 'set';
  const model = ctx.o.model;
  const think = ctx.o.reasoningField === 'think';
  const rField = sparse && !think ? ctx.o.reasoningField : 'reasoning_content';
  const object = kind === 'chat' ? 'chat.completion.chunk' : 'text_completion';
  const head = (s: SessionState): Json => ({ id: s.req.id, object, created: s.created, model });
  // vLLM reports the matched stop as "stop_reason", SGLang as "matched_stop".
  const stopKey = p.stopKey;

  const choice = (s: SessionState, given: Delta): Json => {
    const d = think && kind === 'chat' ? thinkTagged(s, given) : given;
    const { finish_reason, stop } = finishFields(s.finish, s.req.structured?.kind === 'tool');
    if (s.req.structured?.kind === 'tool') return toolCallChoice(s, d, { finish_reason, stop }, sparse, stopKey);
    if (kind === 'completion') return { index: 0, text: d.content, logprobs: null, finish_reason, [stopKey]: stop };
    if (sparse) {
      const delta: Json = {};
      if (d.reasoning) delta[rField] = d.reasoning;
      if (d.content || !d.reasoning) delta.content = d.content;
      const c: Json = { index: 0, delta, logprobs: null, finish_reason };
      if (s.finish) c.stop_reason = stop;
      return c;
    }
    return {
      index: 0,
      delta: { role: null, content: d.content || (d.reasoning ? null : ''), reasoning_content: d.reasoning || null, tool_calls: null },
      logprobs: null,
      finish_reason,
      [stopKey]: stop,
    };
  };

  // The head ({"id",…,"model") is the same in every chunk of a request: serialise it once.
  let headJson: string | null = null;
  const nullUsage = !sparse || kind === 'completion' ? ',"usage":null' : '';
  const chunk = (s: SessionState, choices: Json[], withUsage: Json | null): string => {
    headJson ??= JSON.stringify(head(s)).slice(0, -1);
    return `${headJson},"choices":${JSON.stringify(choices)}${withUsage ? `,"usage":${JSON.stringify(withUsage)}` : nullUsage}}`;
  };

  const roleChunk = (s: SessionState): string => {
    const delta = sparse ? { role: 'assistant', content: '' } : { role: 'assistant', content: '', reasoning_content: null, tool_calls: null };
    const c: Json = { index: 0, delta, logprobs: null, finish_reason: null, ...(sparse ? {} : { [stopKey]: null }) };
    const u = so.continuousUsage ? { prompt_tokens: s.req.promptIds.length, total_tokens: s.req.promptIds.length, completion_tokens: 0 } : null;
    return chunk(s, [c], u);
  };

  const metricsField = (s: SessionState): Json => {
    const metrics = specMetrics(ctx, s);
    return metrics ? { metrics } : {};
  };
  const errorStyle = ctx.imitation.errors.openai;
  return {
    errorStyle,
    event(s, d, first) {
      const out: string[] = [];
      // vLLM and SGLang send the role-only chunk when the first output arrives, just before it.
      if (kind === 'chat' && first) out.push(roleChunk(s));
      out.push(chunk(s, [choice(s, d)], so.continuousUsage ? usage(s, think) : null));
      return out;
    },
    tail(s) {
      if (!so.includeUsage) return [];
      const last = chunk(s, [], usage(s, think));
      const metrics = specMetrics(ctx, s);
      // vLLM puts the request's metrics in its final usage chunk (choices: []).
      return [metrics ? `${last.slice(0, -1)},"metrics":${JSON.stringify(metrics)}}` : last];
    },
    body(s) {
      const { finish_reason, stop } = finishFields(s.finish, s.req.structured?.kind === 'tool');
      const u = { ...usage(s, think), prompt_tokens_details: null };
      if (kind === 'completion') {
        const c = { index: 0, text: s.content, logprobs: null, finish_reason, [stopKey]: stop, ...(p.promptLogprobs ? { prompt_logprobs: null } : {}) };
        return { id: s.req.id, object: 'text_completion', created: s.created, model, choices: [c], usage: u, ...metricsField(s) };
      }
      const message: Json =
        toolCallMessage(s, rField) ??
        (think
          ? { role: 'assistant', content: s.reasoning ? `<think>${s.reasoning}</think>${s.content}` : s.content, tool_calls: [] }
          : { role: 'assistant', content: s.content, [rField]: s.reasoning || null, tool_calls: [] });
      const c = { index: 0, message, logprobs: null, finish_reason, [stopKey]: stop };
      return { id: s.req.id, object: 'chat.completion', created: s.created, model, choices: [c], usage: u, ...metricsField(s) };
    },
    streamError: (message, status) => JSON.stringify(errorBody(errorStyle, status, message)),
    abortEvent: () => null,
  };
}

/** Checks the model a request names; the LoRA adapter it names that way (sim/lora.ts), null for the base model. */
export function checkModel(ctx: SimContext, body: Json): string | null {
  const model = optString(body, 'model');
  const adapter = adapterOfModel(ctx, model);
  // vLLM rejects other model names; SGLang serves whatever is loaded.
  if (ctx.imitation.openai.checksModel && model !== undefined && model !== ctx.o.model && adapter === null) {
    throw new HttpError(404, `The model \`${model}\` does not exist.`, 'model', 'unknown_model');
  }
  return adapter;
}

function streamOptions(body: Json, stream: boolean): StreamOpts {
  const so = optObject(body, 'stream_options');
  if (so && !stream) throw new HttpError(400, 'Stream options can only be defined when `stream=True`.', 'stream_options');
  // vLLM's StreamOptions: include_usage defaults to true once stream_options is given at all, and
  // continuous usage needs include_usage too.
  const includeUsage = so ? (optBool(so, 'include_usage') ?? true) : false;
  return { includeUsage, continuousUsage: includeUsage && so !== undefined && (optBool(so, 'continuous_usage_stats') ?? false) };
}

/** A prompt's token ids and its domain marker (a text prompt's; token ids have none). */
export interface PromptIn {
  ids: number[];
  domain: string | null;
  /** Of ids, the images' tokens (chat content parts, vision.ts); absent: none. */
  imageTokens?: number;
}

function completionPrompt(ctx: SimContext, body: Json): PromptIn {
  let p = body.prompt;
  if (p === undefined || p === null) missing('prompt');
  if (Array.isArray(p) && (typeof p[0] === 'string' || Array.isArray(p[0]))) {
    if (p.length !== 1)
      throw new HttpError(400, 'Batched prompts (a list of several prompts) are not supported by the simulator; send one prompt per request.', 'prompt');
    p = p[0];
  }
  if (typeof p === 'string') {
    const ids = ctx.tokenizer.encode(p);
    if (ids.length === 0) throw new HttpError(400, 'The prompt cannot be empty.', 'prompt');
    return { ids, domain: domainOf(p) };
  }
  return { ids: tokenIds(p, 'prompt', ctx), domain: null };
}

/** A chat prompt from `field`'s messages (after `system`, the Messages API's top-level turn), through the chat template. */
export function chatPrompt(ctx: SimContext, body: Json, field = 'messages', system: ChatMessage[] = []): PromptIn {
  const msgs = body[field];
  if (msgs === undefined || msgs === null) missing(field);
  if (!Array.isArray(msgs) || msgs.some((m) => !m || typeof m !== 'object' || typeof (m as Json).role !== 'string')) {
    throw new HttpError(400, `[{'type': 'list_type', 'loc': ('body', '${field}'), 'msg': 'Input should be a valid list of messages with a role'}]`, field);
  }
  const text = applyChatTemplate([...system, ...(msgs as ChatMessage[])]);
  const ids = ctx.tokenizer.encode(text);
  return { ids, domain: domainOf(text), imageTokens: ctx.tokenizer.imageTokens(ids) };
}

/** What a generation route parsed from its request, for startGeneration. */
export interface Generation {
  route: string;
  /** The request id's prefix before its 32 hex digits. */
  idPrefix: string;
  prompt: PromptIn;
  stream: boolean;
  /** The output limit asked for; undefined: the rest of the context. */
  maxNew: number | undefined;
  ignoreEos: boolean;
  stop: string[];
  /** A chat-style route: --reasoning-fraction of the output is reasoning. */
  reasoning: boolean;
  /** The LoRA adapter named by `model` (checkModel); null or absent: the base model. */
  adapter?: string | null;
  /** The request's body when it may ask for tools or response_format (structured.ts); absent: it cannot. */
  structuredBody?: Json;
}

/** The part every generation route shares once its request is parsed: the context check, the id, the session. */
export function startGeneration(ctx: SimContext, rc: RouteContext, g: Generation, formatter: (id: string, hex: string) => Formatter): void {
  if (g.maxNew !== undefined && g.maxNew < 1) throw new HttpError(400, `max_tokens must be at least 1, got ${g.maxNew}.`, 'max_tokens');
  contextCheck(ctx, g.prompt.ids.length, g.maxNew);
  // With no limit, a request may use the rest of the context, as both servers allow.
  const maxNew = g.maxNew ?? ctx.o.maxModelLen - g.prompt.ids.length;
  const ordinal = ctx.nextOrdinal();
  const hex = requestHex(ctx.o.seed, ordinal);
  const id = `${g.idPrefix}${hex}`;
  const structured = g.structuredBody ? planStructured(ctx, g.structuredBody, ordinal, maxNew) : null;
  new Session(
    ctx,
    rc.res,
    {
      route: g.route,
      arrivalMs: rc.arrivalMs,
      intakeLagMs: rc.intakeLagMs,
      id,
      stream: g.stream,
      promptIds: g.prompt.ids,
      imageTokens: g.prompt.imageTokens,
      domain: g.prompt.domain,
      adapter: g.adapter ?? null,
      maxNewTokens: maxNew,
      ignoreEos: g.ignoreEos,
      stop: g.stop,
      // A tool call or JSON reply has no reasoning here: its every token is the document's.
      reasoningTokens: g.reasoning && structured === null ? Math.floor(ctx.o.reasoningFraction * maxNew) : 0,
      structured,
    },
    formatter(id, hex),
    ordinal,
  );
}

async function handle(ctx: SimContext, kind: Kind, rc: RouteContext): Promise<void> {
  const body = await readJsonObject(rc.req);
  const adapter = checkModel(ctx, body);
  const prompt = kind === 'chat' ? chatPrompt(ctx, body) : completionPrompt(ctx, body);
  const stream = optBool(body, 'stream') ?? false;
  const so = streamOptions(body, stream);
  const n = optInt(body, 'n');
  if (n !== undefined && n !== 1) throw new HttpError(400, 'Only n=1 is supported by the simulator.', 'n');
  const maxNew = kind === 'chat' ? (optInt(body, 'max_completion_tokens') ?? optInt(body, 'max_tokens')) : (optInt(body, 'max_tokens') ?? 16);
  const route = kind === 'chat' ? '/v1/chat/completions' : '/v1/completions';
  const g: Generation = {
    route,
    idPrefix: ctx.imitation.idPrefix[kind],
    prompt,
    stream,
    maxNew,
    ignoreEos: optBool(body, 'ignore_eos') ?? false,
    stop: stopList(body),
    reasoning: kind === 'chat',
    adapter,
    structuredBody: kind === 'chat' ? body : undefined,
  };
  startGeneration(ctx, rc, g, () => formatter(ctx, kind, so));
}

function models(ctx: SimContext): Json {
  const created = Math.floor(Date.now() / 1000);
  const p = ctx.imitation.openai;
  const card: Json = { id: ctx.o.model, object: 'model', created, owned_by: p.modelOwner, root: ctx.o.model };
  if (p.modelPermission) card.parent = null;
  card.max_model_len = ctx.o.maxModelLen;
  if (p.modelPermission) {
    card.permission = [
      {
        id: `modelperm-${requestHex(ctx.o.seed, -1)}`,
        object: 'model_permission',
        created,
        allow_create_engine: false,
        allow_sampling: true,
        allow_logprobs: true,
        allow_search_indices: false,
        allow_view: true,
        allow_fine_tuning: false,
        organization: '*',
        group: null,
        is_blocking: false,
      },
    ];
  }
  return { object: 'list', data: [card, ...loraModelCards(ctx, created, p.modelOwner)] };
}

export function addOpenAiRoutes(router: Router, ctx: SimContext): void {
  router
    .add('POST', '/v1/completions', (rc) => handle(ctx, 'completion', rc))
    .add('POST', '/v1/chat/completions', (rc) => handle(ctx, 'chat', rc))
    // Served from static configuration: stays 200 while the engine is hung.
    .add('GET', '/v1/models', ({ res }) => sendJson(res, 200, models(ctx)));
  if (ctx.imitation.routes.version) router.add('GET', '/version', ({ res }) => sendJson(res, 200, { version: ctx.imitation.version }));
}
