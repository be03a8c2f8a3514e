// The OpenAI-compatible API served by vLLM and SGLang: /v1/completions and /v1/chat/completions.
// Both share usage accounting; they differ in where the generated text sits in a choice.
import { Accumulator, num, obj, parseReply, type ChunkReader, type ChunkUpdate, type Phase, type ToolDelta, type TemplateCache } from '../reading';
import { promptTurns } from './conversation';
import { CHAT_IMAGES, withImages } from './images';
import { adapterFields } from './adapter';
import type { RequestContext } from './errors';
import { jsonWithRaw } from './json-body';
import { structuredFields } from './structured';
import { thinkPhases } from './think';
import type { GenerationRequest, SpecStepCounts, WireRequest } from './types';
import { OPENAI_POOLING } from './pooling';
import { defineDialect, type DialectCodec } from './descriptor';

interface Shape {
  path: string;
  /** The request fields that carry the prompt and the output budget. */
  fields(req: GenerationRequest): { fields: Record<string, unknown>; rawKey?: string };
  /** Generated text in a choice: completions `text`, chat `delta` or `message` content and reasoning. */
  choiceText(choice: Record<string, unknown>): string;
  /** The keys that hold that text in a streamed chunk (for the chunk template, see lib/reading/chunk-template.ts). */
  textKeys: readonly string[];
  /** The shape carries tools and response_format (the chat route). */
  structured?: boolean;
  /** Whether a choice's text is reasoning or answer; absent: the shape carries no reasoning. */
  phaseOf?: (choice: Record<string, unknown>) => Phase | undefined;
}

const completions: Shape = {
  path: '/v1/completions',
  fields(req) {
    const base = { max_tokens: req.maxTokens };
    if (req.prompt.kind === 'text') return { fields: { prompt: req.prompt.text, ...base } };
    return { fields: base, rawKey: 'prompt' };
  },
  choiceText: (choice) => (typeof choice.text === 'string' ? choice.text : ''),
  textKeys: ['text'],
};

const chat: Shape = {
  path: '/v1/chat/completions',
  structured: true,
  fields(req) {
    // max_tokens too, for servers that predate max_completion_tokens; both name the same budget.
    return {
      fields: {
        messages: withImages(promptTurns(req, 'openai-chat'), req, CHAT_IMAGES),
        max_completion_tokens: req.maxTokens,
        max_tokens: req.maxTokens,
      },
    };
  },
  choiceText(choice) {
    const m = obj(choice.delta) ?? obj(choice.message);
    if (!m) return '';
    // Reasoning models stream reasoning before content; both are generated tokens.
    const reasoning = str(m.reasoning_content) || str(m.reasoning);
    return reasoning + str(m.content);
  },
  textKeys: ['content', 'reasoning_content', 'reasoning'],
  phaseOf(choice) {
    const m = obj(choice.delta) ?? obj(choice.message);
    if (!m) return undefined;
    const reasoning = str(m.reasoning_content) !== '' || str(m.reasoning) !== '';
    const answer = str(m.content) !== '';
    return reasoning ? (answer ? 'both' : 'reasoning') : answer ? 'answer' : undefined;
  },
};

/** A reply's phases from <think>…</think> in its text; reasoning fields, where a server sends them, still count as they say. */
function thinkPhaseOf(shape: Shape): (choice: Record<string, unknown>) => Phase | undefined {
  const split = thinkPhases();
  return (choice) => {
    const own = shape.phaseOf?.(choice);
    if (own === 'reasoning' || own === 'both') return own;
    const m = obj(choice.delta) ?? obj(choice.message);
    const text = m ? str(m.content) : shape.choiceText(choice);
    return text === '' ? own : split(text);
  };
}

function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

function makeDialect(shape: Shape, rctx: RequestContext): DialectCodec {
  // The skeleton of the last stream's chunk template: the next stream starts with it (lib/reading/chunk-template.ts).
  const cache: TemplateCache = { skeletons: [] };
  // THINK_TAGS: each reply's phases depend on its text so far, so every chunk is parsed (no template).
  const reader = rctx.thinkTags
    ? () => openaiChunkReader(shape.choiceText, [], thinkPhaseOf(shape))
    : () => openaiChunkReader(shape.choiceText, shape.textKeys, shape.phaseOf);
  return {
    build(req: GenerationRequest): WireRequest {
      const { fields, rawKey } = shape.fields(req);
      const all: Record<string, unknown> = {};
      if (req.model) all.model = req.model;
      adapterFields(rctx.adapterNaming ?? 'model', req, all);
      Object.assign(all, fields, { temperature: req.temperature, ignore_eos: req.ignoreEos, stream: req.stream });
      if (req.structured && shape.structured) Object.assign(all, structuredFields(req.structured, 'chat'));
      // include_usage gives the final token counts; continuous_usage_stats gives them per chunk,
      // which is what makes per-token ITL exact when one chunk carries several tokens.
      if (req.stream) all.stream_options = { include_usage: true, continuous_usage_stats: true };
      const body = rawKey && req.prompt.kind === 'tokens' ? jsonWithRaw(all, rawKey, req.prompt.json) : JSON.stringify(all);
      return { method: 'POST', path: shape.path, body };
    },
    parseBody: (status, body, contentType) => parseReply(reader(), rctx, status, body, contentType),
    streamReader: () => new Accumulator(reader(), rctx, 200, cache),
  };
}

/** Finish reasons other servers name differently (TGI: eos_token, stop_sequence). */
const FINISH_ALIASES = new Map([
  ['eos_token', 'stop'],
  ['stop_sequence', 'stop'],
]);

export function openaiChunkReader(
  choiceText: (c: Record<string, unknown>) => string,
  textKeys: readonly string[] = [],
  phaseOf?: (c: Record<string, unknown>) => Phase | undefined,
): ChunkReader {
  const read = (chunk: Record<string, unknown>): ChunkUpdate => {
    const u: ChunkUpdate = { carriesToken: false };
    const choices = Array.isArray(chunk.choices) ? chunk.choices : [];
    const choice = obj(choices[0]);
    if (!choice) u.noContent = true;
    if (choice) {
      const text = choiceText(choice);
      if (text !== '') {
        u.textDelta = text;
        u.carriesToken = true;
        const phase = phaseOf?.(choice);
        if (phase !== undefined) u.phase = phase;
      }
      const tools = chatToolCalls(choice);
      if (tools !== undefined) u.tools = tools;
      // TGI sends finish_reason "" on every chunk but the last: not a finish reason.
      const finish = choice.finish_reason;
      if (typeof finish === 'string' && finish !== '') u.finishReason = FINISH_ALIASES.get(finish) ?? finish;
    }
    const usage = obj(chunk.usage);
    if (usage) {
      u.completionTokens = num(usage.completion_tokens);
      u.promptTokens = num(usage.prompt_tokens);
      const details = obj(usage.prompt_tokens_details);
      if (details) u.cachedTokens = num(details.cached_tokens);
      // vLLM (with a reasoning parser) and OpenAI say how many of the completion tokens were reasoning.
      const outDetails = obj(usage.completion_tokens_details);
      if (outDetails) u.reasoningTokens = num(outDetails.reasoning_tokens);
    }
    const timings = obj(chunk.timings);
    if (timings) readDraftTimings(timings, u);
    const spec = obj(obj(chunk.metrics)?.speculative_decoding);
    if (spec) {
      const steps = readSpecSteps(spec);
      if (steps) u.specSteps = steps;
    }
    return u;
  };
  if (textKeys.length === 0) return { read };
  return { read, templateText: textKeys, readInput: (s) => readWhole(s, read) };
}

/**
 * A chat choice's tool calls (`delta.tool_calls` pieces streamed, `message.tool_calls` whole), as
 * vLLM, SGLang and llama.cpp send them; undefined when it has none.
 */
function chatToolCalls(choice: Record<string, unknown>): ToolDelta[] | undefined {
  const m = obj(choice.delta) ?? obj(choice.message);
  const list = m?.tool_calls;
  if (!Array.isArray(list) || list.length === 0) return undefined;
  const out: ToolDelta[] = [];
  for (let i = 0; i < list.length; i++) {
    const c = obj(list[i]);
    const f = c && obj(c.function);
    if (!f) continue;
    const d: ToolDelta = { index: typeof c.index === 'number' ? c.index : i, args: str(f.arguments) };
    if (typeof f.name === 'string' && f.name !== '') d.name = f.name;
    out.push(d);
  }
  return out.length > 0 ? out : undefined;
}

/** A chunk read in full, as the accumulator reads it; undefined when it is not a plain, error-free object. */
export function readWhole(s: string, read: (chunk: Record<string, unknown>) => ChunkUpdate): ChunkUpdate | undefined {
  let v: unknown;
  try {
    v = JSON.parse(s);
  } catch {
    return undefined;
  }
  const o = obj(v);
  if (!o || (o.error !== undefined && o.error !== null)) return undefined;
  return read(o);
}

/** llama.cpp's per-request speculative counts, in `timings` of its last chunk or whole reply. */
export function readDraftTimings(timings: Record<string, unknown>, u: ChunkUpdate): void {
  const drafted = num(timings.draft_n);
  if (drafted === undefined) return;
  u.draftTokens = drafted;
  u.draftAccepted = num(timings.draft_n_accepted) ?? 0;
}

const isCount = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v) && v >= 0;

/**
 * vLLM's per-request `metrics.speculative_decoding`: steps and accepted drafts are required (else
 * nothing is read); the histogram is kept only when it is a list of counts that adds up to the
 * steps, as vLLM's does (index j: steps that accepted exactly j drafts).
 */
export function readSpecSteps(m: Record<string, unknown>): SpecStepCounts | undefined {
  const steps = m.num_spec_steps;
  const accepted = m.num_accepted_draft_tokens;
  if (!isCount(steps) || !isCount(accepted)) return undefined;
  const h = m.acceptance_histogram;
  const histogram = Array.isArray(h) && h.every(isCount) && h.reduce((a: number, b: number) => a + b, 0) === steps ? (h as number[]) : null;
  return { steps, accepted, drafted: isCount(m.num_draft_tokens) ? m.num_draft_tokens : null, histogram };
}

export const openai = defineDialect({
  name: 'openai',
  path: completions.path,
  api: 'OpenAI Completions',
  traits: { chat: false, tokenIds: true, needsModel: true, pooling: OPENAI_POOLING },
  adapter: 'model',
  docs: {
    prompt: '`prompt` as token ids or text',
    budget: '`max_tokens`',
    counts: '`usage` (with `stream_options.include_usage` and `continuous_usage_stats` when streaming)',
  },
  create: (ctx) => makeDialect(completions, ctx),
});

export const openaiChat = defineDialect({
  name: 'openai-chat',
  path: chat.path,
  api: 'OpenAI Chat Completions',
  traits: {
    chat: true,
    tokenIds: false,
    needsModel: true,
    images: CHAT_IMAGES,
    structured: { shape: 'chat', tools: true, responseFormat: true },
    pooling: OPENAI_POOLING,
  },
  adapter: 'model',
  docs: {
    prompt: '`messages` (text only)',
    budget: '`max_completion_tokens` (and `max_tokens`)',
    counts: '`usage`; reasoning deltas (`reasoning_content`/`reasoning`) count as generated tokens',
  },
  create: (ctx) => makeDialect(chat, ctx),
});
