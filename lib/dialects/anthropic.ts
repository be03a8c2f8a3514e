// Anthropic Messages: POST /v1/messages, served by vLLM, SGLang and llama.cpp as well as Anthropic.
// A stream is a run of named events whose data repeats the name as `type`: message_start (the
// prompt's usage), content_block_start / content_block_delta (text_delta, thinking_delta) /
// content_block_stop, message_delta (stop_reason and usage.output_tokens, the request's total),
// message_stop; `ping` may come between. No [DONE]: message_stop ends the stream, and a stream
// without it was cut. Per the API (and llama.cpp b11669), usage.input_tokens leaves out the prompt
// tokens read from or written to the cache, so the prompt is their sum.
import { Accumulator, num, obj, parseReply, type ChunkReader, type ChunkUpdate, type Phase, type ToolDelta, type TemplateCache } from '../reading';
import { promptTurns } from './conversation';
import { structuredFields } from './structured';
import { MESSAGES_IMAGES, withImages } from './images';
import { adapterFields } from './adapter';
import type { RequestContext } from './errors';
import { readDraftTimings, readWhole } from './openai';
import type { GenerationRequest, WireRequest } from './types';
import { defineDialect, type DialectCodec } from './descriptor';

const PATH = '/v1/messages';
/** The API version sent in anthropic-version: the one every server that copies the API accepts. */
export const ANTHROPIC_VERSION = '2023-06-01';

export const anthropic = defineDialect({
  name: 'anthropic',
  path: PATH,
  api: 'Anthropic Messages',
  traits: {
    chat: true,
    tokenIds: false,
    needsModel: true,
    images: MESSAGES_IMAGES,
    structured: { shape: 'messages', tools: true, responseFormat: false },
    namedEvents: true,
  },
  adapter: 'model',
  docs: {
    prompt: '`messages` (text only; system turns as `system`)',
    budget: '`max_tokens`',
    counts:
      '`message_start` `usage.input_tokens` + `cache_read_input_tokens` (+ `cache_creation_input_tokens`), ' +
      '`message_delta` `usage.output_tokens`; `thinking_delta` is reasoning',
  },
  keyHeaders: anthropicHeaders,
  create: anthropicDialect,
});

function anthropicDialect(rctx: RequestContext): DialectCodec {
  // The skeleton of the last stream's chunk template: the next stream starts with it (lib/reading/chunk-template.ts).
  const cache: TemplateCache = { skeletons: [] };
  return {
    build(req: GenerationRequest): WireRequest {
      const turns = promptTurns(req, 'anthropic');
      // System turns are a top-level field in this API, not a role.
      const system = turns.filter((t) => t.role === 'system').map((t) => t.content);
      const body: Record<string, unknown> = {};
      if (req.model) body.model = req.model;
      adapterFields(rctx.adapterNaming ?? 'model', req, body);
      if (system.length > 0) body.system = system.join('\n\n');
      Object.assign(body, {
        messages: withImages(
          turns.filter((t) => t.role !== 'system'),
          req,
          MESSAGES_IMAGES,
        ),
        max_tokens: req.maxTokens,
        temperature: req.temperature,
        stream: req.stream,
      });
      if (req.structured) Object.assign(body, structuredFields(req.structured, 'messages'));
      // Sent only when asked: vLLM, SGLang and llama.cpp take it beside the API's fields; Anthropic's
      // own API rejects unknown fields, so IGNORE_EOS=false speaks the API exactly.
      if (req.ignoreEos) body.ignore_eos = true;
      return { method: 'POST', path: PATH, body: JSON.stringify(body) };
    },
    parseBody: (status, body, contentType) => parseReply(READER, rctx, status, body, contentType),
    streamReader: () => new Accumulator(READER, rctx, 200, cache),
  };
}

/** x-api-key and anthropic-version, as the API expects; Authorization too, for servers (vLLM's --api-key) that check only that. */
export function anthropicHeaders(apiKey: string): Record<string, string> {
  const h: Record<string, string> = { 'anthropic-version': ANTHROPIC_VERSION };
  if (apiKey) h['x-api-key'] = apiKey;
  return h;
}

/** stop_reason → the suite's finish reasons; a refusal is not an answer (an error, below). */
const STOP_REASONS: Record<string, string> = {
  end_turn: 'stop',
  stop_sequence: 'stop',
  tool_use: 'stop',
  pause_turn: 'stop',
  max_tokens: 'length',
  model_context_window_exceeded: 'length',
};

/** A usage object's prompt tokens (input + cache read + cache written) and cached ones. */
function readUsage(usage: Record<string, unknown> | undefined, u: ChunkUpdate): void {
  if (!usage) return;
  const input = num(usage.input_tokens);
  const read = num(usage.cache_read_input_tokens);
  if (input !== undefined) u.promptTokens = input + (read ?? 0) + (num(usage.cache_creation_input_tokens) ?? 0);
  if (read !== undefined) u.cachedTokens = read;
}

function stopReason(reason: unknown, u: ChunkUpdate): void {
  if (typeof reason !== 'string') return;
  if (reason === 'refusal') u.error = 'the model refused to answer (stop_reason refusal)';
  else u.finishReason = STOP_REASONS[reason] ?? reason;
}

/** A content block's or delta's generated text and whether it is reasoning. */
function blockText(b: Record<string, unknown>): { text: string; phase: Phase } | null {
  if (typeof b.text === 'string') return { text: b.text, phase: 'answer' };
  if (typeof b.thinking === 'string') return { text: b.thinking, phase: 'reasoning' };
  return null;
}

/**
 * A tool call's piece, the block's index naming the call: a streamed input_json_delta; a
 * tool_use block opening in a stream (its name; its `input` is an empty placeholder); or a whole
 * reply's tool_use block (its input as JSON text).
 */
function toolPiece(b: Record<string, unknown>, index: number, whole: boolean): ToolDelta | null {
  if (typeof b.partial_json === 'string') return { index, args: b.partial_json };
  if (b.type !== 'tool_use') return null;
  const d: ToolDelta = { index, args: whole ? JSON.stringify(b.input ?? {}) : '' };
  if (typeof b.name === 'string' && b.name !== '') d.name = b.name;
  return d;
}

function read(chunk: Record<string, unknown>): ChunkUpdate {
  const u = readEvent(chunk);
  // llama.cpp puts its per-request timings (draft counts under speculation) in a stream's last events.
  const timings = obj(chunk.timings);
  if (timings) readDraftTimings(timings, u);
  return u;
}

function readEvent(chunk: Record<string, unknown>): ChunkUpdate {
  const u: ChunkUpdate = { carriesToken: false };
  switch (chunk.type) {
    case 'content_block_delta': {
      const delta = obj(chunk.delta) ?? {};
      const tool = toolPiece(delta, num(chunk.index) ?? 0, false);
      if (tool !== null) {
        if (tool.args !== '') u.tools = [tool];
        return u;
      }
      const t = blockText(delta);
      if (t !== null && t.text !== '') {
        u.textDelta = t.text;
        u.phase = t.phase;
        u.carriesToken = true;
      }
      return u;
    }
    case 'message_start':
      // Its usage.output_tokens (Anthropic sends 1, llama.cpp 0) counts no token the client has seen.
      readUsage(obj(obj(chunk.message)?.usage), u);
      u.noContent = true;
      return u;
    case 'message_delta': {
      stopReason(obj(chunk.delta)?.stop_reason, u);
      const usage = obj(chunk.usage);
      readUsage(usage, u);
      const out = num(usage?.output_tokens);
      if (out !== undefined) u.completionTokens = out;
      u.noContent = true;
      return u;
    }
    case 'message_stop':
      u.noContent = true;
      u.done = true;
      return u;
    case 'message':
      return wholeMessage(chunk, u);
    case 'content_block_start': {
      // A tool_use block names its call here; a text or thinking block opens empty.
      const tool = toolPiece(obj(chunk.content_block) ?? {}, num(chunk.index) ?? 0, false);
      if (tool !== null) u.tools = [tool];
      else u.noContent = true;
      return u;
    }
    default:
      // ping, content_block_stop.
      u.noContent = true;
      if (typeof chunk.type !== 'string') u.error = `an event without a type: ${JSON.stringify(chunk).slice(0, 120)}`;
      return u;
  }
}

/** A non-streamed reply: content blocks (thinking, then text), stop_reason, usage. */
function wholeMessage(m: Record<string, unknown>, u: ChunkUpdate): ChunkUpdate {
  let text = '';
  let reasoning = false;
  let answer = false;
  const blocks = Array.isArray(m.content) ? m.content : [];
  for (let i = 0; i < blocks.length; i++) {
    const tool = toolPiece(obj(blocks[i]) ?? {}, i, true);
    if (tool !== null) (u.tools ??= []).push(tool);
  }
  for (const b of blocks) {
    const t = blockText(obj(b) ?? {});
    if (t === null || t.text === '') continue;
    text += t.text;
    if (t.phase === 'reasoning') reasoning = true;
    else answer = true;
  }
  if (text !== '') {
    u.textDelta = text;
    u.carriesToken = true;
    u.phase = reasoning ? (answer ? 'both' : 'reasoning') : 'answer';
  }
  stopReason(m.stop_reason, u);
  const usage = obj(m.usage);
  readUsage(usage, u);
  const out = num(usage?.output_tokens);
  if (out !== undefined) u.completionTokens = out;
  return u;
}

const READER: ChunkReader = {
  read,
  templateText: ['text', 'thinking'],
  readInput: (s) => readWhole(s, read),
  endEvent: true,
};
