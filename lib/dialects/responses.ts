// OpenAI Responses: POST /v1/responses, served by vLLM, SGLang and llama.cpp. A stream is a run of
// named events whose data repeats the name as `type`: response.created / in_progress, output items
// and content parts added, response.output_text.delta (the answer), response.reasoning_text.delta
// or response.reasoning_summary_text.delta (reasoning), the parts and items done, then the whole
// response once more in response.completed (usage.input_tokens, output_tokens,
// input_tokens_details.cached_tokens), or response.incomplete / response.failed. No [DONE]: a
// stream without one of those three was cut. The server says no token count per event.
import { Accumulator, num, obj, parseReply, type ChunkReader, type ChunkUpdate, type Phase, type TemplateCache } from '../reading';
import { promptTurns } from './conversation';
import { structuredFields } from './structured';
import { RESPONSES_IMAGES, withImages } from './images';
import { adapterFields } from './adapter';
import type { RequestContext } from './errors';
import { readDraftTimings, readWhole } from './openai';
import type { GenerationRequest, WireRequest } from './types';
import { defineDialect, type DialectCodec } from './descriptor';

const PATH = '/v1/responses';

export const responses = defineDialect({
  name: 'responses',
  path: PATH,
  api: 'OpenAI Responses',
  traits: {
    chat: true,
    tokenIds: false,
    needsModel: true,
    images: RESPONSES_IMAGES,
    structured: { shape: 'responses', tools: true, responseFormat: true },
    namedEvents: true,
    // OpenAI's Responses API has embeddings but no rerank.
    pooling: { embeddings: '/v1/embeddings', rerank: null },
  },
  adapter: 'model',
  docs: {
    prompt: "`input` (text, or a conversation's messages)",
    budget: '`max_output_tokens`',
    counts:
      '`response.completed` `usage.input_tokens`, `output_tokens`, `input_tokens_details.cached_tokens`, ' +
      '`output_tokens_details.reasoning_tokens`; `response.reasoning_text.delta` and reasoning summaries ' +
      'are reasoning',
  },
  create: responsesDialect,
});

function responsesDialect(rctx: RequestContext): DialectCodec {
  // The skeleton of the last stream's chunk template: the next stream starts with it (lib/reading/chunk-template.ts).
  const cache: TemplateCache = { skeletons: [] };
  return {
    build(req: GenerationRequest): WireRequest {
      const turns = promptTurns(req, 'responses');
      const body: Record<string, unknown> = {};
      if (req.model) body.model = req.model;
      adapterFields(rctx.adapterNaming ?? 'model', req, body);
      // A plain prompt as the input string; a conversation (or a turn with images) as its messages.
      // store: false, so that a benchmark leaves nothing behind on a server that keeps responses.
      const plain = req.prompt.kind === 'text' && req.prompt.messages === undefined && (req.images ?? []).length === 0;
      const input = plain && req.prompt.kind === 'text' ? req.prompt.text : withImages(turns, req, RESPONSES_IMAGES);
      Object.assign(body, { input, max_output_tokens: req.maxTokens, temperature: req.temperature, stream: req.stream, store: false });
      // vLLM, SGLang and llama.cpp take ignore_eos beside the API's fields; OpenAI's own API does not.
      if (req.ignoreEos) body.ignore_eos = true;
      if (req.structured) Object.assign(body, structuredFields(req.structured, 'responses'));
      return { method: 'POST', path: PATH, body: JSON.stringify(body) };
    },
    parseBody: (status, body, contentType) => parseReply(READER, rctx, status, body, contentType),
    streamReader: () => new Accumulator(READER, rctx, 200, cache),
  };
}

/** Events whose `delta` is generated text, and what it is. */
const DELTAS: Record<string, Phase> = {
  'response.output_text.delta': 'answer',
  'response.refusal.delta': 'answer',
  'response.reasoning_text.delta': 'reasoning',
  'response.reasoning_summary_text.delta': 'reasoning',
};

function read(chunk: Record<string, unknown>): ChunkUpdate {
  const u: ChunkUpdate = { carriesToken: false };
  const type = chunk.type;
  const phase = typeof type === 'string' ? DELTAS[type] : undefined;
  if (type === 'response.function_call_arguments.delta') {
    // A call's arguments, by its output item's index; its name came with response.output_item.added.
    if (typeof chunk.delta === 'string' && chunk.delta !== '') u.tools = [{ index: num(chunk.output_index) ?? 0, args: chunk.delta }];
    else u.noContent = true;
  } else if (type === 'response.output_item.added' && obj(chunk.item)?.type === 'function_call') {
    const item = obj(chunk.item) ?? {};
    u.tools = [{ index: num(chunk.output_index) ?? 0, args: '', name: typeof item.name === 'string' ? item.name : undefined }];
  } else if (phase !== undefined) {
    if (typeof chunk.delta === 'string' && chunk.delta !== '') {
      u.textDelta = chunk.delta;
      u.phase = phase;
      u.carriesToken = true;
    }
  } else if (type === 'response.completed' || type === 'response.incomplete' || type === 'response.failed') {
    const response = obj(chunk.response) ?? {};
    // response.failed is a failure whatever status its response says (a server that left it completed).
    finalResponse(type === 'response.failed' ? { ...response, status: 'failed' } : response, u, false);
    u.noContent = true;
    u.done = true;
  } else if (type === 'error') {
    // The API's error event: {type, code, message, param}, no `error` object.
    u.error = typeof chunk.message === 'string' ? chunk.message : JSON.stringify(chunk).slice(0, 200);
  } else if (chunk.object === 'response') {
    finalResponse(chunk, u, true);
  } else {
    u.noContent = true;
    if (typeof type !== 'string') u.error = `an event without a type: ${JSON.stringify(chunk).slice(0, 120)}`;
  }
  const timings = obj(chunk.timings);
  if (timings) readDraftTimings(timings, u);
  return u;
}

/**
 * A whole response (non-streamed, or in the stream's last event): its status, usage and, when
 * `withText`, its output's text. Incomplete at max_output_tokens is a reply cut at its budget
 * (finish reason length), as asked; incomplete for another reason (content filter) or failed is
 * an error.
 */
function finalResponse(r: Record<string, unknown>, u: ChunkUpdate, withText: boolean): void {
  const status = r.status;
  if (status === 'failed') {
    const e = obj(r.error);
    u.error = e && typeof e.message === 'string' ? e.message : 'the response failed (status failed)';
    return;
  }
  if (status === 'incomplete') {
    const reason = obj(r.incomplete_details)?.reason;
    if (reason === 'max_output_tokens') u.finishReason = 'length';
    else u.error = `the response is incomplete: ${typeof reason === 'string' ? reason : 'no reason given'}`;
  } else if (status === 'completed') {
    u.finishReason = 'stop';
  } else if (withText) {
    u.error = `the response has status ${JSON.stringify(status)}`;
  }
  const usage = obj(r.usage);
  if (usage) {
    u.promptTokens = num(usage.input_tokens);
    u.completionTokens = num(usage.output_tokens);
    u.cachedTokens = num(obj(usage.input_tokens_details)?.cached_tokens);
    u.reasoningTokens = num(obj(usage.output_tokens_details)?.reasoning_tokens);
  }
  if (withText) outputText(r.output, u);
}

/** The text of a whole response's output items: reasoning items, then messages' output_text. */
function outputText(output: unknown, u: ChunkUpdate): void {
  let text = '';
  let reasoning = false;
  let answer = false;
  for (const it of Array.isArray(output) ? output : []) {
    const item = obj(it) ?? {};
    const isReasoning = item.type === 'reasoning';
    const parts = [...(Array.isArray(item.content) ? item.content : []), ...(isReasoning && Array.isArray(item.summary) ? item.summary : [])];
    for (const p of parts) {
      const t = obj(p)?.text;
      if (typeof t !== 'string' || t === '') continue;
      text += t;
      if (isReasoning) reasoning = true;
      else answer = true;
    }
    if (item.type === 'function_call')
      (u.tools ??= []).push({
        index: u.tools?.length ?? 0,
        name: typeof item.name === 'string' ? item.name : undefined,
        args: typeof item.arguments === 'string' ? item.arguments : '',
      });
  }
  if (text === '') return;
  u.textDelta = text;
  u.carriesToken = true;
  u.phase = reasoning ? (answer ? 'both' : 'reasoning') : 'answer';
}

const READER: ChunkReader = {
  read,
  templateText: ['delta'],
  readInput: (s) => readWhole(s, read),
  endEvent: true,
};
