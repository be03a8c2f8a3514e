// One dialect as the suite knows it: the descriptor its module exports, one entry of the dialect
// table (DIALECTS in lib/dialects/index.ts). The names, DIALECT's help, the traits, the routes,
// the key headers and the table in docs/dialects.md are derived from the table, never listed again.
import type { AdapterNaming } from './adapter';
import type { RequestContext } from './errors';
import type { ImageTrait } from './images';
import type { PoolingRoutes } from './pooling';
import type { StructuredTrait } from './structured';
import type { GenerationRequest, GenerationResult, StreamReader, WireRequest } from './types';

/** What differs between dialects outside their request and reply shapes. */
export interface DialectTraits {
  /** The route takes chat turns (text only), not a bare prompt. */
  readonly chat: boolean;
  /** Prompts may be exact token ids. */
  readonly tokenIds: boolean;
  /** Requests name a model: preflight needs a served model name to send. */
  readonly needsModel: boolean;
  /** Which of tools and response_format the route carries, in which request shape (structured.ts); absent: neither. */
  readonly structured?: StructuredTrait;
  /** How a user turn carries images (images.ts); absent: the route carries none, and IMAGES is refused. */
  readonly images?: ImageTrait;
  /**
   * Its stream names each event (`event:` lines) and ends with a closing event of its own instead
   * of `data: [DONE]`; an error comes as an event of its own shape (Anthropic Messages, OpenAI
   * Responses). Absent: a plain `data:` stream.
   */
  readonly namedEvents?: boolean;
  /** The embeddings and rerank routes beside generation (pooling.ts); absent: none. */
  readonly pooling?: PoolingRoutes;
}

/** What a dialect's module builds for one variant: the request and the reading of its reply. */
export interface DialectCodec {
  build(req: GenerationRequest): WireRequest;
  /** Parse a complete response body (streamed or not). */
  parseBody(status: number, body: string, contentType: string): GenerationResult;
  /** A reader for a stream whose events arrive one by one (the sse transport). */
  streamReader(): StreamReader;
}

export interface DialectDescriptor<N extends string = string> {
  /** What DIALECT names it. */
  readonly name: N;
  /** The generation route, POSTed, e.g. /generate. */
  readonly path: string;
  /** The API it speaks, for DIALECT's help and the docs, e.g. "Anthropic Messages". */
  readonly api: string;
  readonly traits: DialectTraits;
  /** docs/dialects.md's columns: the prompt's fields, the output budget's, where token counts come from. */
  readonly docs: { readonly prompt: string; readonly budget: string; readonly counts: string };
  /** How the route names a LoRA adapter (adapter.ts), unless the server's profile says otherwise (llama.cpp); absent: `model`. */
  readonly adapter?: AdapterNaming;
  /** Headers that carry the API key besides Authorization: Bearer (Anthropic's x-api-key). */
  readonly keyHeaders?: (apiKey: string) => Record<string, string>;
  /** The dialect for one variant; `ctx.route` is `POST <path>`. */
  create(ctx: RequestContext): DialectCodec;
}

/** A dialect module's descriptor, with its name kept as a literal type (DialectName is derived from the names). */
export function defineDialect<N extends string>(d: DialectDescriptor<N>): DialectDescriptor<N> {
  return d;
}
