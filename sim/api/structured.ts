// Tool calls and structured output on the simulated chat route. A request with `tools` (and a
// tool_choice other than none) is answered with one call, streamed in vLLM's shape (the first
// delta names the function, the next carry the arguments); one with `response_format` is answered
// with JSON content. Either document is an instance of the schema (every property, the first enum
// value) cut into exactly as many pieces as the reply's output budget, padded with trailing
// whitespace where the document is shorter, so that under ignore_eos the reply has the forced
// length and the JSON ends with its last token. --schema-violation-rate makes a share of them
// invalid (the document's last character dropped: not JSON); the ground truth says which.
import type { SimContext } from '../context';
import { deriveSeed, Rng } from '../rng';
import type { Json } from './common';
import type { SessionState } from './session';

export interface StructuredPlan {
  /** A tool call (its function's name) or JSON content. */
  kind: 'tool' | 'json';
  name: string;
  /** The piece of text each output token carries, in order. */
  pieces: string[];
  /** The document was spoiled (--schema-violation-rate). */
  violated: boolean;
}

type Schema = Record<string, unknown>;

const isObj = (v: unknown): v is Schema => v !== null && typeof v === 'object' && !Array.isArray(v);

/** An instance of a schema on the subset the suite's checker reads. */
export function instanceOf(schema: unknown, depth = 0): unknown {
  if (!isObj(schema) || depth > 8) return {};
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0];
  const t = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  switch (t) {
    case 'string':
      return 'sim';
    case 'integer':
      return 7;
    case 'number':
      return 2.5;
    case 'boolean':
      return true;
    case 'null':
      return null;
    case 'array':
      return [instanceOf(schema.items, depth + 1)];
    default: {
      const out: Record<string, unknown> = {};
      const props = isObj(schema.properties) ? schema.properties : {};
      for (const [k, p] of Object.entries(props)) out[k] = instanceOf(p, depth + 1);
      return out;
    }
  }
}

/** `text` as `n` pieces, each at least one character (padded with spaces at the end). */
function cut(text: string, n: number): string[] {
  const padded = text.length >= n ? text : text + ' '.repeat(n - text.length);
  const out: string[] = [];
  for (let i = 0; i < n; i++) out.push(padded.slice(Math.floor((i * padded.length) / n), Math.floor(((i + 1) * padded.length) / n)));
  return out;
}

/** The tool a request's tool_choice asks for (chat and Responses shapes); null: none asked (tool_choice none, or no tools). */
function chosenTool(body: Json): { name: string; parameters: unknown } | null {
  const tools = Array.isArray(body.tools) ? body.tools : [];
  const defs = tools.map((t) => {
    const o = isObj(t) ? t : {};
    const f = isObj(o.function) ? o.function : o;
    return { name: typeof f.name === 'string' ? f.name : 'tool', parameters: f.parameters ?? o.input_schema };
  });
  if (defs.length === 0) return null;
  const c = body.tool_choice;
  if (c === 'none') return null;
  const named = isObj(c) ? ((isObj(c.function) ? c.function.name : c.name) as unknown) : undefined;
  return defs.find((d) => d.name === named) ?? defs[0];
}

/** The JSON schema response_format asks for (null: any object), or undefined when it asks for none. */
function formatSchema(body: Json): Schema | null | undefined {
  const f = isObj(body.response_format) ? body.response_format : isObj(body.text) && isObj(body.text.format) ? body.text.format : undefined;
  if (f === undefined || f.type === 'text') return undefined;
  if (f.type === 'json_schema') {
    const js = isObj(f.json_schema) ? f.json_schema.schema : f.schema;
    return isObj(js) ? js : null;
  }
  return null;
}

/** What a request's reply will say in place of generated text; null for a plain request. */
export function planStructured(ctx: SimContext, body: Json, ordinal: number, maxNew: number): StructuredPlan | null {
  const tool = chosenTool(body);
  const schema = tool === null ? formatSchema(body) : tool.parameters;
  if (tool === null && schema === undefined) return null;
  let doc = JSON.stringify(instanceOf(schema ?? { type: 'object', properties: { answer: { type: 'string' } } }));
  const rate = ctx.o.faults.schemaViolationRate;
  const violated = rate > 0 && new Rng(deriveSeed(ctx.o.seed, ordinal, 0x5c)).next() < rate;
  if (violated) doc = doc.slice(0, -1);
  return { kind: tool === null ? 'json' : 'tool', name: tool?.name ?? '', pieces: cut(doc, Math.max(1, maxNew)), violated };
}

/** The chat delta of a tool-call event, in vLLM's shape: the first names the function. */
export function toolCallDelta(id: string, name: string, args: string, first: boolean): Json {
  return first
    ? { tool_calls: [{ id: `chatcmpl-tool-${id.slice(-16)}`, type: 'function', index: 0, function: { name, arguments: args } }] }
    : { tool_calls: [{ index: 0, function: { arguments: args } }] };
}

/**
 * A chat chunk's choice for a tool-call event, as vLLM's tool parser sends it: a delta of
 * tool_calls only (SGLang, every field: content and reasoning null beside it).
 */
export function toolCallChoice(
  s: SessionState,
  d: { content: string; ids: readonly number[] },
  f: { finish_reason: string | null; stop: string | number | null },
  sparse: boolean,
  stopKey: string,
): Json {
  const calls = toolCallDelta(s.req.id, s.req.structured?.name ?? '', d.content, s.ids.length === d.ids.length);
  const delta = sparse ? calls : { role: null, content: null, reasoning_content: null, ...calls };
  if (sparse) return { index: 0, delta, logprobs: null, finish_reason: f.finish_reason, ...(s.finish ? { stop_reason: f.stop } : {}) };
  return { index: 0, delta, logprobs: null, finish_reason: f.finish_reason, [stopKey]: f.stop };
}

/** A whole reply's message when the request was answered with a tool call; null otherwise. */
export function toolCallMessage(s: SessionState, reasoningField: string): Json | null {
  const plan = s.req.structured;
  if (plan?.kind !== 'tool') return null;
  const call = { id: `chatcmpl-tool-${s.req.id.slice(-16)}`, type: 'function', function: { name: plan.name, arguments: s.content } };
  return { role: 'assistant', content: null, [reasoningField]: null, tool_calls: [call] };
}
