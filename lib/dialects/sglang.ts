// SGLang's native API: POST /generate, {text|input_ids, sampling_params, stream}, replies with
// {text, output_ids, meta_info}. Streams are cumulative by default (each event repeats the whole
// text), deltas with --incremental-streaming-output; token counts come from meta_info either way.
import { Accumulator, num, obj, type ChunkReader, type ChunkUpdate } from './accumulator';
import type { RequestContext } from './errors';
import { jsonWithRaw } from './json-body';
import { parseReply } from './reply';
import type { Dialect, GenerationRequest, WireRequest } from './types';

const PATH = '/generate';

export function sglangDialect(ctx: Omit<RequestContext, 'route'>): Dialect {
  const route = `POST ${PATH}`;
  const rctx: RequestContext = { ...ctx, route };
  return {
    name: 'sglang',
    path: PATH,
    acceptsTokenIds: true,
    build(req: GenerationRequest): WireRequest {
      const fields: Record<string, unknown> = {
        sampling_params: {
          max_new_tokens: req.maxTokens,
          temperature: req.temperature,
          ignore_eos: req.ignoreEos,
        },
        stream: req.stream,
      };
      if (req.prompt.kind === 'text') {
        return { method: 'POST', path: PATH, body: JSON.stringify({ text: req.prompt.text, ...fields }) };
      }
      return { method: 'POST', path: PATH, body: jsonWithRaw(fields, 'input_ids', req.prompt.json) };
    },
    parseBody: (status, body, contentType) => parseReply(sglangChunkReader(), rctx, status, body, contentType),
    streamReader: () => new Accumulator(sglangChunkReader(), route),
  };
}

const META_KEY = '"meta_info":';

/**
 * Reads SGLang chunks. Once a stream shows itself cumulative (each event repeats the whole text),
 * events are read by parsing only their trailing meta_info, and the text of the latest event is
 * parsed once at the end: reading stays linear in the output instead of quadratic. A malformed
 * text field in a middle event then goes unnoticed; its counts are still checked.
 */
export function sglangChunkReader(): ChunkReader {
  let prev: string | null = null;
  let mode: 'unknown' | 'cumulative' | 'delta' = 'unknown';
  let lastRaw: string | null = null;
  const FAST = Symbol('fast');

  const read = (chunk: Record<string, unknown>): ChunkUpdate => {
    const u: ChunkUpdate = { carriesToken: false };
    const text = typeof chunk.text === 'string' ? chunk.text : undefined;
    if (!(FAST in chunk) && text !== undefined && text !== '') {
      if (prev === null) {
        u.textSoFar = text;
      } else {
        if (mode === 'unknown') mode = text.length > prev.length && text.startsWith(prev) ? 'cumulative' : 'delta';
        if (mode === 'cumulative') u.textSoFar = text;
        else u.textDelta = text;
      }
      prev = text;
      lastRaw = null;
      u.carriesToken = true;
    }
    const meta = obj(chunk.meta_info);
    if (meta) {
      u.completionTokens = num(meta.completion_tokens);
      u.promptTokens = num(meta.prompt_tokens);
      u.cachedTokens = num(meta.cached_tokens);
      u.specVerifySteps = num(meta.spec_verify_ct);
      u.acceptanceLength = num(meta.spec_accept_length);
      const fr = meta.finish_reason;
      const fro = obj(fr);
      if (fro && typeof fro.type === 'string') {
        u.finishReason = fro.type;
        if (fro.type === 'abort' && typeof fro.message === 'string') u.abortMessage = fro.message;
      } else if (typeof fr === 'string') {
        u.finishReason = fr;
      }
    }
    return u;
  };

  const fastParse = (data: string): Record<string, unknown> | undefined => {
    if (mode !== 'cumulative' || !data.endsWith('}')) return undefined;
    const i = data.lastIndexOf(META_KEY);
    if (i === -1) return undefined;
    try {
      const meta: unknown = JSON.parse(data.slice(i + META_KEY.length, -1));
      lastRaw = data;
      return { meta_info: meta, [FAST]: true };
    } catch {
      return undefined;
    }
  };

  const text = (): string | undefined => {
    if (lastRaw === null) return undefined;
    try {
      const t = (JSON.parse(lastRaw) as Record<string, unknown>).text;
      return typeof t === 'string' ? t : undefined;
    } catch {
      return undefined;
    }
  };

  return { read, fastParse, text };
}
