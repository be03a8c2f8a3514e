// The dialect registry: one name → one module. `auto` is resolved by probing (lib/preflight/run.ts, from setup() in lib/k6/setup.ts).
import { anthropicDialect, anthropicHeaders } from './anthropic';
import type { RequestContext } from './errors';
import { llamacppDialect } from './llamacpp';
import { openaiChatDialect, openaiDialect } from './openai';
import { responsesDialect } from './responses';
import { sglangDialect } from './sglang';
import type { Dialect, DialectName } from './types';

export type { Dialect, DialectName, GenerationRequest, GenerationResult, ClassifiedError, ErrorClass, Prompt, EventInfo, StreamReader } from './types';
export { ERROR_CLASSES } from './types';
export { classifyStatus, classifyTransport, serverMessage, type RequestContext } from './errors';
export { splitSseEvents } from './sse';

export const DIALECT_NAMES: readonly DialectName[] = ['sglang', 'openai', 'openai-chat', 'llamacpp', 'anthropic', 'responses'];

const FACTORIES: Record<DialectName, (ctx: Omit<RequestContext, 'route'>) => Dialect> = {
  sglang: sglangDialect,
  openai: openaiDialect,
  'openai-chat': openaiChatDialect,
  llamacpp: llamacppDialect,
  anthropic: anthropicDialect,
  responses: responsesDialect,
};

/** What differs between dialects outside their request and reply shapes, said once (needsModel: preflight needs a served model name to send). */
export const DIALECT_TRAITS: Record<DialectName, { chat: boolean; tokenIds: boolean; needsModel: boolean }> = {
  sglang: { chat: false, tokenIds: true, needsModel: false },
  openai: { chat: false, tokenIds: true, needsModel: true },
  'openai-chat': { chat: true, tokenIds: false, needsModel: true },
  llamacpp: { chat: false, tokenIds: true, needsModel: true },
  anthropic: { chat: true, tokenIds: false, needsModel: true },
  responses: { chat: true, tokenIds: false, needsModel: true },
};

/**
 * The headers that carry the API key on this dialect's route: Authorization: Bearer, and for
 * Anthropic Messages x-api-key and anthropic-version besides. The key goes nowhere else.
 */
export function authHeaders(name: DialectName, apiKey: string): Record<string, string> {
  const h: Record<string, string> = name === 'anthropic' ? anthropicHeaders(apiKey) : {};
  if (apiKey) h.Authorization = `Bearer ${apiKey}`;
  return h;
}

export function isDialectName(s: string): s is DialectName {
  return (DIALECT_NAMES as readonly string[]).includes(s);
}

export function createDialect(name: DialectName, ctx: Omit<RequestContext, 'route'>): Dialect {
  return FACTORIES[name](ctx);
}
