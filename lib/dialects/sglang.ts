// SGLang's native API: POST /generate, {text|input_ids, sampling_params, stream}, replies with
// {text, output_ids, meta_info}. Streams are cumulative by default (each event repeats the whole
// text), deltas with --incremental-streaming-output; token counts come from meta_info either way.
import { Accumulator, num, obj, parseReply, type ChunkReader, type ChunkUpdate, type TemplateCache, type TemplateSuffix } from '../reading';
import { adapterFields } from './adapter';
import type { RequestContext } from './errors';
import { jsonWithRaw } from './json-body';
import type { GenerationRequest, WireRequest } from './types';
import { OPENAI_POOLING } from './pooling';
import { defineDialect, type DialectCodec } from './descriptor';

const PATH = '/generate';

export const sglang = defineDialect({
  name: 'sglang',
  path: PATH,
  api: "SGLang's native API",
  traits: { chat: false, tokenIds: true, needsModel: false, pooling: OPENAI_POOLING },
  adapter: 'lora_path',
  docs: {
    prompt: '`input_ids` (exact token ids) or `text`',
    budget: '`sampling_params.max_new_tokens`',
    counts: '`meta_info.prompt_tokens`, `completion_tokens`, `cached_tokens`; `spec_verify_ct` for acceptance length',
  },
  create: sglangDialect,
});

function sglangDialect(rctx: RequestContext): DialectCodec {
  // The skeleton of the last stream's chunk template: the next stream starts with it (lib/reading/chunk-template.ts).
  const cache: TemplateCache = { skeletons: [] };
  return {
    build(req: GenerationRequest): WireRequest {
      const fields: Record<string, unknown> = {
        sampling_params: {
          max_new_tokens: req.maxTokens,
          temperature: req.temperature,
          ignore_eos: req.ignoreEos,
        },
        stream: req.stream,
      };
      adapterFields(rctx.adapterNaming ?? 'lora_path', req, fields);
      if (req.prompt.kind === 'text') {
        return { method: 'POST', path: PATH, body: JSON.stringify({ text: req.prompt.text, ...fields }) };
      }
      return { method: 'POST', path: PATH, body: jsonWithRaw(fields, 'input_ids', req.prompt.json) };
    },
    parseBody: (status, body, contentType) => parseReply(sglangChunkReader(), rctx, status, body, contentType),
    streamReader: () => new Accumulator(sglangChunkReader(), rctx, 200, cache),
  };
}

const META_KEY = '"meta_info":';
/**
 * A chunk read by its meta_info alone would hide an error key beside it: one put first (where an
 * encoder puts it) sends the chunk to the full parser, at no cost per event; a whole reply, read
 * once, is searched for one anywhere.
 */
const ERROR_FIRST = '{"error"';
const ERROR_KEY = '"error":';
/** Marks a chunk of which only meta_info was parsed. */
const META_ONLY = '__metaOnly';

/**
 * Reads SGLang chunks. Once a stream shows itself cumulative (each event repeats the whole text),
 * events are read by parsing only their trailing meta_info, and the text of the latest event is
 * parsed only if read: reading stays linear in the output instead of quadratic. Non-streamed
 * replies are read the same way. A malformed text field then goes unnoticed; the counts, which
 * every figure comes from, are still checked. A class, not closures: one is made per request.
 */
class SglangReader implements ChunkReader {
  private prev: string | null = null;
  private mode: 'unknown' | 'cumulative' | 'delta' = 'unknown';
  private lastRaw: string | null = null;

  read(chunk: Record<string, unknown>): ChunkUpdate {
    const u: ChunkUpdate = { carriesToken: false };
    const text = typeof chunk.text === 'string' ? chunk.text : undefined;
    if (chunk[META_ONLY] !== true && text !== undefined && text !== '') {
      if (this.prev === null) {
        u.textSoFar = text;
      } else {
        if (this.mode === 'unknown') this.mode = text.length > this.prev.length && text.startsWith(this.prev) ? 'cumulative' : 'delta';
        if (this.mode === 'cumulative') u.textSoFar = text;
        else u.textDelta = text;
      }
      this.prev = text;
      this.lastRaw = null;
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
  }

  fastParse(data: string): Record<string, unknown> | undefined {
    return this.mode === 'cumulative' ? this.metaOnly(data) : undefined;
  }

  // Chunk templates (lib/reading/chunk-template.ts) for cumulative streams: the input is the meta_info object alone,
  // which is what metaOnly parses; the text is kept aside as metaOnly keeps it.
  readonly templateText: readonly string[] = [];
  readonly templateSuffix: TemplateSuffix = { lead: META_KEY, trail: '}', refuse: ERROR_FIRST };

  templateInput(data: string): string | undefined {
    if (this.mode !== 'cumulative' || !data.endsWith('}') || data.startsWith(ERROR_FIRST)) return undefined;
    const i = data.lastIndexOf(META_KEY);
    if (i === -1) return undefined;
    return data.slice(i + META_KEY.length, -1);
  }

  templateMatched(data: string): void {
    this.lastRaw = data;
  }

  readInput(meta: string): ChunkUpdate | undefined {
    let v: unknown;
    try {
      v = JSON.parse(meta);
    } catch {
      return undefined;
    }
    return this.read({ meta_info: v, [META_ONLY]: true });
  }

  /** A non-streamed reply: its text and output_ids are most of the bytes and no figure needs them. */
  fastParseWhole(body: string): Record<string, unknown> | undefined {
    return body.startsWith('{') && !body.includes(ERROR_KEY) ? this.metaOnly(body) : undefined;
  }

  text(): string | undefined {
    if (this.lastRaw === null) return undefined;
    try {
      const t = (JSON.parse(this.lastRaw) as Record<string, unknown>).text;
      return typeof t === 'string' ? t : undefined;
    } catch {
      return undefined;
    }
  }

  private metaOnly(data: string): Record<string, unknown> | undefined {
    if (!data.endsWith('}') || data.startsWith(ERROR_FIRST)) return undefined;
    const i = data.lastIndexOf(META_KEY);
    if (i === -1) return undefined;
    try {
      const meta: unknown = JSON.parse(data.slice(i + META_KEY.length, -1));
      this.lastRaw = data;
      return { meta_info: meta, [META_ONLY]: true };
    } catch {
      return undefined;
    }
  }
}

export function sglangChunkReader(): ChunkReader {
  return new SglangReader();
}
