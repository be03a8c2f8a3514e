// Parses a complete HTTP reply for any dialect: status errors, event streams and plain JSON go
// through the same steps, only the chunk reader differs.
import { Accumulator } from './stream-accumulator';
import type { ChunkReader } from './chunk-reader';
import { classified, classifyStatus, type RequestContext } from '../dialects/errors';
import { looksLikeEventStream } from './sse-events';
import type { GenerationResult } from '../dialects/types';

export function parseReply(reader: ChunkReader, ctx: RequestContext, status: number, body: string, contentType: string): GenerationResult {
  if (status < 200 || status >= 300) return failed(status, classifyStatus(status, body, ctx));
  const acc = new Accumulator(reader, ctx, status);
  if (looksLikeEventStream(body, contentType)) return acc.feedBody(body).finish();
  let parsed: unknown = reader.fastParseWhole?.(body);
  try {
    if (parsed === undefined) parsed = JSON.parse(body);
  } catch {
    const shown = body.length > 120 ? JSON.stringify(body.slice(0, 120)) + '…' : JSON.stringify(body);
    return failed(status, classified('invalid_reply', `${ctx.route}: the reply is not JSON: ${shown}.`));
  }
  // SGLang answers a batch with an array; a benchmark sends one prompt, so take the first.
  const first = Array.isArray(parsed) ? parsed[0] : parsed;
  if (first === null || typeof first !== 'object' || Array.isArray(first)) {
    return failed(status, classified('invalid_reply', `${ctx.route}: the reply is JSON but not an object.`));
  }
  acc.markComplete().apply(first as Record<string, unknown>);
  return acc.finish();
}

export function failed(status: number, error: GenerationResult['error']): GenerationResult {
  return {
    ok: false,
    status,
    text: '',
    promptTokens: null,
    completionTokens: null,
    cachedTokens: null,
    finishReason: null,
    tokenEvents: 0,
    specVerifySteps: null,
    acceptanceLength: null,
    error,
  };
}
