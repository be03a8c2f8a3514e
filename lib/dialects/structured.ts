// Tool calls and structured output: what a request asks for (tools, tool_choice, response_format),
// how each dialect that can carry it puts it on the wire, and whether a reply kept to it (the
// validity share). Which dialect carries what is a trait of the dialect table (DialectTraits.structured).
import { jsonViolation, type JsonSchema } from './json-schema';

export interface ToolDef {
  readonly name: string;
  readonly description: string;
  /** The arguments' JSON schema. */
  readonly parameters: JsonSchema;
}

export type ToolChoice = 'auto' | 'required' | 'none' | { readonly name: string };

export type ResponseFormat = { readonly type: 'json_object' } | { readonly type: 'json_schema'; readonly name: string; readonly schema: JsonSchema };

/** What a request asks of the reply's form; absent fields ask nothing. */
export interface Structured {
  readonly tools?: readonly ToolDef[];
  readonly toolChoice?: ToolChoice;
  readonly responseFormat?: ResponseFormat;
}

/** The request shapes that carry these fields (the dialect trait names one). */
export type StructuredShape = 'chat' | 'responses' | 'messages';

/** One tool call of a reply: the function's name and its arguments as generated (JSON text). */
export interface ToolCall {
  name: string;
  arguments: string;
}

/** A reply's tool calls, as GenerationResult carries them. */
export interface ToolCalls {
  calls: ToolCall[];
  /**
   * Tokens of the calls: the server's per-event counts over the tool-call events, else its whole count for a reply
   * that was only calls; null when neither says.
   */
  tokens: number | null;
  /** Index of the first token-carrying event of a call (the sse transport's columns); null when not streamed. */
  firstToolEvent: number | null;
  /** Index of the first token-carrying event that was not a call (content or reasoning); null when none or not streamed. */
  firstOtherEvent: number | null;
}

/** What a dialect can carry, as its trait says. */
export interface StructuredTrait {
  readonly shape: StructuredShape;
  readonly tools: boolean;
  readonly responseFormat: boolean;
}

/**
 * Why dialect `dialect` cannot send `s` (one sentence naming the dialects of the table that can),
 * or null when it can. `traits`: the dialect table's traits by name (DIALECT_TRAITS).
 */
export function structuredRefusal(
  s: Structured | null | undefined,
  traits: Readonly<Record<string, { readonly structured?: StructuredTrait }>>,
  dialect: string,
  dialectVar: string,
  subject = `${dialectVar}=${dialect}`,
): string | null {
  if (!s) return null;
  const wants = [s.tools && s.tools.length > 0 ? 'tools' : null, s.responseFormat ? 'response_format' : null].filter((x): x is string => x !== null);
  const trait = traits[dialect]?.structured;
  const missing = wants.filter((w) => (w === 'tools' ? !trait?.tools : !trait?.responseFormat));
  if (missing.length === 0) return null;
  const can = Object.entries(traits)
    .filter(([, t]) => t.structured?.tools || t.structured?.responseFormat)
    .map(
      ([name, t]) => `${name} (${[t.structured?.tools ? 'tools' : '', t.structured?.responseFormat ? 'response_format' : ''].filter(Boolean).join(' and ')})`,
    );
  return `${subject} cannot carry ${missing.join(' or ')} (TOOLS, RESPONSE_FORMAT or the dataset's rows ask for it): use ${can.join(', ')}.`;
}

const fn = (t: ToolDef) => ({ type: 'function', function: { name: t.name, description: t.description, parameters: t.parameters } });

/** The request fields of `s` in a shape; {} when it asks nothing. */
export function structuredFields(s: Structured | undefined, shape: StructuredShape): Record<string, unknown> {
  if (!s) return {};
  const out: Record<string, unknown> = {};
  const tools = s.tools ?? [];
  const choice = s.toolChoice;
  if (shape === 'chat') {
    if (tools.length > 0) out.tools = tools.map(fn);
    if (tools.length > 0 && choice !== undefined) out.tool_choice = typeof choice === 'string' ? choice : { type: 'function', function: { name: choice.name } };
    const f = s.responseFormat;
    if (f)
      out.response_format =
        f.type === 'json_object' ? { type: 'json_object' } : { type: 'json_schema', json_schema: { name: f.name, schema: f.schema, strict: true } };
  } else if (shape === 'responses') {
    if (tools.length > 0) out.tools = tools.map((t) => ({ type: 'function', name: t.name, description: t.description, parameters: t.parameters }));
    if (tools.length > 0 && choice !== undefined) out.tool_choice = typeof choice === 'string' ? choice : { type: 'function', name: choice.name };
    const f = s.responseFormat;
    if (f) out.text = { format: f.type === 'json_object' ? { type: 'json_object' } : { type: 'json_schema', name: f.name, schema: f.schema, strict: true } };
  } else {
    if (tools.length > 0) out.tools = tools.map((t) => ({ name: t.name, description: t.description, input_schema: t.parameters }));
    // Anthropic's words: auto, any (some tool), none, or one tool by name.
    if (tools.length > 0 && choice !== undefined)
      out.tool_choice = typeof choice === 'string' ? { type: choice === 'required' ? 'any' : choice } : { type: 'tool', name: choice.name };
  }
  return out;
}

/**
 * Whether a successful reply kept to what `s` asked: every tool call names a sent tool and its
 * arguments parse and match that tool's parameters; the content parses (and matches the schema)
 * under response_format. null when there is nothing to judge: nothing asked, or tools offered
 * under tool_choice auto (or none) and the reply called none — not calling is allowed then.
 */
export function structuredValid(s: Structured | undefined, r: { readonly text: string; readonly toolCalls?: ToolCalls | null }): boolean | null {
  if (!s) return null;
  const tools = s.tools ?? [];
  const calls = r.toolCalls?.calls ?? [];
  if (tools.length > 0 && calls.length > 0) {
    for (const c of calls) {
      const t = tools.find((x) => x.name === c.name);
      if (t === undefined || jsonViolation(c.arguments, t.parameters) !== null) return false;
    }
    return true;
  }
  const mustCall = tools.length > 0 && s.toolChoice !== undefined && s.toolChoice !== 'auto' && s.toolChoice !== 'none';
  if (mustCall) return false;
  const f = s.responseFormat;
  if (f) return jsonViolation(r.text, f.type === 'json_schema' ? f.schema : null) === null;
  return null;
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * A request row's own tools, tool_choice and response_format, in the OpenAI chat shape (a dataset's
 * JSONL `messages` or `prompt` objects): undefined when it has none, a sentence when one is malformed.
 */
export function structuredOfRow(o: Record<string, unknown>): Structured | string | undefined {
  if (o.tools === undefined && o.response_format === undefined) return undefined;
  const tools: ToolDef[] = [];
  if (o.tools !== undefined) {
    if (!Array.isArray(o.tools) || o.tools.length === 0) return 'tools must be a non-empty list of {"type": "function", "function": {name, parameters}}';
    for (const t of o.tools) {
      const f = isObject(t) && isObject(t.function) ? t.function : null;
      if (f === null || typeof f.name !== 'string' || f.name === '')
        return 'each tool must be {"type": "function", "function": {"name": …, "parameters": {…}}}';
      tools.push({ name: f.name, description: typeof f.description === 'string' ? f.description : '', parameters: isObject(f.parameters) ? f.parameters : {} });
    }
  }
  const c = o.tool_choice;
  let toolChoice: ToolChoice | undefined;
  if (c === 'auto' || c === 'required' || c === 'none') toolChoice = c;
  else if (isObject(c) && isObject(c.function) && typeof c.function.name === 'string') toolChoice = { name: c.function.name };
  else if (c !== undefined) return 'tool_choice must be auto, required, none or {"type": "function", "function": {"name": …}}';
  const f = o.response_format;
  let responseFormat: ResponseFormat | undefined;
  if (isObject(f) && f.type === 'json_object') responseFormat = { type: 'json_object' };
  else if (isObject(f) && f.type === 'json_schema' && isObject(f.json_schema) && isObject(f.json_schema.schema))
    responseFormat = { type: 'json_schema', name: typeof f.json_schema.name === 'string' ? f.json_schema.name : 'reply', schema: f.json_schema.schema };
  else if (f !== undefined) return 'response_format must be {"type": "json_object"} or {"type": "json_schema", "json_schema": {"name": …, "schema": {…}}}';
  return {
    ...(tools.length > 0 ? { tools, toolChoice: toolChoice ?? 'auto' } : {}),
    ...(responseFormat ? { responseFormat } : {}),
  };
}
