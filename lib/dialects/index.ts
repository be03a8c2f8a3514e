// The dialect table: each dialect's module exports its descriptor (descriptor.ts), listed once in
// DIALECTS below. The names (DialectName), DIALECT's help, the traits, the key headers and the table
// in docs/dialects.md (npm run docs) are derived from it: a new dialect is one module and one entry.
// `auto` is resolved by probing (lib/preflight/run.ts, from setup() in lib/k6/setup.ts).
import { anthropic } from './anthropic';
import type { DialectCodec, DialectDescriptor, DialectTraits } from './descriptor';
import type { RequestContext } from './errors';
import type { PoolingTask } from './pooling';
import { llamacpp } from './llamacpp';
import { openai, openaiChat } from './openai';
import { responses } from './responses';
import { sglang } from './sglang';

export type { GenerationRequest, GenerationResult, ClassifiedError, ErrorClass, Prompt, EventInfo, StreamReader } from './types';
export type { DialectCodec, DialectDescriptor, DialectTraits } from './descriptor';
export { defineDialect } from './descriptor';
export { ADAPTER_NAMING_DOCS, type AdapterBinding, type AdapterChoice, type AdapterNaming } from './adapter';
export { ERROR_CLASSES } from './types';
export { classifyStatus, classifyTransport, serverMessage, type RequestContext } from './errors';
export { splitSseEvents } from '../reading';

/** The suite's dialects, in the order the docs and the help list them. */
const BUILT_IN = [sglang, openai, openaiChat, llamacpp, anthropic, responses] as const;

/** Names a user can put in DIALECT. */
export type DialectName = (typeof BUILT_IN)[number]['name'];
/** What DIALECT may say: a name, or `auto` (resolved by probing in setup()). */
export type DialectSetting = DialectName | 'auto';

/** One dialect, built for one variant (createDialect). */
export interface Dialect extends DialectCodec {
  readonly name: DialectName;
  /** The generation route, e.g. /generate. */
  readonly path: string;
  /** Whether prompts may be exact token ids (the traits' tokenIds); chat takes text only. */
  readonly acceptsTokenIds: boolean;
}

/** The table. Extended only through registerDialect, which keeps what is derived from it in step. */
export const DIALECTS: ReadonlyArray<DialectDescriptor<DialectName>> = [];
export const DIALECT_NAMES: readonly DialectName[] = [];
/** What differs between dialects outside their request and reply shapes, by name. */
export const DIALECT_TRAITS = {} as Readonly<Record<DialectName, DialectTraits>>;
const BY_NAME = new Map<string, DialectDescriptor<DialectName>>();

/**
 * Adds a dialect to the table (a test's, or one of a user's own): from then on DIALECT accepts its
 * name, and the help, the traits and the docs' table show it. Its name is a DialectName at run time
 * although the type knows only the built-in ones.
 */
export function registerDialect(d: DialectDescriptor): void {
  if (BY_NAME.has(d.name)) throw new Error(`k6-llm-bench: dialect '${d.name}' is already in the table.`);
  const e = d as DialectDescriptor<DialectName>;
  BY_NAME.set(e.name, e);
  (DIALECTS as Array<DialectDescriptor<DialectName>>).push(e);
  (DIALECT_NAMES as DialectName[]).push(e.name);
  (DIALECT_TRAITS as Record<DialectName, DialectTraits>)[e.name] = e.traits;
}

for (const d of BUILT_IN) registerDialect(d);

/** DIALECT's help (docs/variables.md), from the table. */
export function dialectHelp(): string {
  const each = DIALECTS.map((d) => `${d.name} (${d.api}, POST ${d.path})`);
  return `API to speak: ${each.join(', ')} or auto (probe the server in setup).`;
}

/**
 * The headers that carry the API key on this dialect's route: Authorization: Bearer, and those of
 * its descriptor besides (Anthropic Messages: x-api-key and anthropic-version). The key goes nowhere else.
 */
export function authHeaders(name: DialectName, apiKey: string): Record<string, string> {
  const h: Record<string, string> = { ...BY_NAME.get(name)?.keyHeaders?.(apiKey) };
  if (apiKey) h.Authorization = `Bearer ${apiKey}`;
  return h;
}

/** The route of a pooling task on a dialect's server (its traits), or null: none, or a dialect outside the table. */
export function poolingRoute(name: string, task: PoolingTask): string | null {
  return BY_NAME.get(name)?.traits.pooling?.[task] ?? null;
}

export function isDialectName(s: string): s is DialectName {
  return BY_NAME.has(s);
}

export function createDialect(name: DialectName, ctx: Omit<RequestContext, 'route'>): Dialect {
  const d = BY_NAME.get(name);
  if (d === undefined) throw new Error(`k6-llm-bench: no dialect '${String(name)}'; one of ${DIALECT_NAMES.join(', ')}.`);
  const codec = d.create({ ...ctx, adapterNaming: ctx.adapterNaming ?? d.adapter ?? 'model', route: `POST ${d.path}` });
  return Object.assign(codec, { name: d.name, path: d.path, acceptsTokenIds: d.traits.tokenIds });
}

/** The dialects whose requests can carry images (their traits' `images`), in the table's order. */
export function imageDialects(): DialectName[] {
  return DIALECTS.filter((d) => d.traits.images !== undefined).map((d) => d.name);
}

/**
 * Why dialect `name` cannot carry a run's images, or null when it can: one message naming the
 * dialects that can. `how`: how it came to be used, e.g. "DIALECT=" or "DIALECT=auto chose ".
 */
export function imagesRefusal(name: DialectName, how: string): string | null {
  if (BY_NAME.get(name)?.traits.images !== undefined) return null;
  return `${how}${String(name)}, whose requests cannot carry images (a bare prompt or token ids); only ${imageDialects().join(', ')} can: set one of them.`;
}
