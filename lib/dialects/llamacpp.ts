// llama.cpp's native API: POST /completion, {prompt (text or token ids), n_predict, ignore_eos,
// stream}. Each streamed event carries one token with the cumulative `tokens_predicted`; the
// last event (stop: true) has the totals and `timings`, with the speculative draft counts
// `draft_n` / `draft_n_accepted` when the server drafts. The stream ends without [DONE].
import { Accumulator, num, obj, parseReply, type ChunkReader, type ChunkUpdate, type TemplateCache } from '../reading';
import { adapterFields } from './adapter';
import type { RequestContext } from './errors';
import { jsonWithRaw } from './json-body';
import { readDraftTimings, readWhole } from './openai';
import type { GenerationRequest, WireRequest } from './types';
import { OPENAI_POOLING } from './pooling';
import { defineDialect, type DialectCodec } from './descriptor';

const PATH = '/completion';

export const llamacpp = defineDialect({
  name: 'llamacpp',
  path: PATH,
  api: "llama.cpp's native API",
  traits: { chat: false, tokenIds: true, needsModel: true, pooling: OPENAI_POOLING },
  adapter: 'lora-list',
  docs: {
    prompt: '`prompt` as token ids or text',
    budget: '`n_predict`',
    counts:
      '`tokens_predicted` (cumulative, in every streamed event), `tokens_evaluated`, `timings.cache_n`; ' +
      '`timings.draft_n`/`draft_n_accepted` for the draft acceptance rate',
  },
  create: llamacppDialect,
});

function llamacppDialect(rctx: RequestContext): DialectCodec {
  // The skeleton of the last stream's chunk template: the next stream starts with it (lib/reading/chunk-template.ts).
  const cache: TemplateCache = { skeletons: [] };
  return {
    build(req: GenerationRequest): WireRequest {
      const fields: Record<string, unknown> = {};
      if (req.model) fields.model = req.model;
      adapterFields(rctx.adapterNaming ?? 'lora-list', req, fields);
      Object.assign(fields, { n_predict: req.maxTokens, temperature: req.temperature, ignore_eos: req.ignoreEos, stream: req.stream });
      if (req.prompt.kind === 'text') return { method: 'POST', path: PATH, body: JSON.stringify({ prompt: req.prompt.text, ...fields }) };
      return { method: 'POST', path: PATH, body: jsonWithRaw(fields, 'prompt', req.prompt.json) };
    },
    parseBody: (status, body, contentType) => parseReply(llamacppChunkReader(), rctx, status, body, contentType),
    streamReader: () => new Accumulator(llamacppChunkReader(), rctx, 200, cache),
  };
}

/**
 * stop_type: limit (n_predict reached), eos, word (a stop string), none. Builds of 2024 have no
 * stop_type but the flags stopped_limit, stopped_eos and stopped_word.
 */
function finishReason(chunk: Record<string, unknown>): string {
  const stopType = chunk.stop_type;
  if (stopType === 'limit' || (stopType === undefined && chunk.stopped_limit === true)) return 'length';
  if (stopType === 'eos' || stopType === 'word' || typeof stopType !== 'string') return 'stop';
  return stopType;
}

function read(chunk: Record<string, unknown>): ChunkUpdate {
  const u: ChunkUpdate = { carriesToken: false };
  const content = chunk.content;
  if (typeof content === 'string' && content !== '') {
    u.textDelta = content;
    u.carriesToken = true;
  }
  // Cumulative counts in every event: a token that decodes to no text yet still raises them.
  u.completionTokens = num(chunk.tokens_predicted);
  u.promptTokens = num(chunk.tokens_evaluated);
  if (chunk.stop === true) {
    u.finishReason = finishReason(chunk);
    const timings = obj(chunk.timings);
    if (timings) {
      // cache_n: prompt tokens reused from the cache (tokens_cached is the slot's whole cache).
      u.cachedTokens = num(timings.cache_n);
      readDraftTimings(timings, u);
    }
  }
  return u;
}

/**
 * The last event (and a non-streamed reply) repeats the request's settings and its whole prompt as
 * text, the bulk of the bytes for a long prompt; no figure needs them. Parsed without that middle
 * part when it sits where llama.cpp puts it (between generation_settings and has_new_line; a key
 * cannot occur unescaped inside a string), else parsed whole.
 */
function withoutEcho(data: string): Record<string, unknown> | undefined {
  if (data.length < 2048) return undefined;
  const i = data.indexOf(',"generation_settings":');
  const j = data.lastIndexOf(',"has_new_line":');
  if (i === -1 || j <= i) return undefined;
  try {
    return JSON.parse(data.slice(0, i) + data.slice(j)) as Record<string, unknown>;
  } catch {
    return undefined;
  }
}

const READER: ChunkReader = {
  read,
  fastParse: withoutEcho,
  fastParseWhole: withoutEcho,
  templateText: ['content'],
  readInput: (s) => readWhole(s, read),
};

export function llamacppChunkReader(): ChunkReader {
  return READER;
}
