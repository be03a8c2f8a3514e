// TOOLS, TOOL_CHOICE, RESPONSE_FORMAT and RESPONSE_SCHEMA: what every generated request asks of
// its reply's form (tool calls, JSON). The tools are a fixed, built-in set, so every deployment
// gets the same request; a dataset's rows may bring their own (lib/dataset). Refused where it has
// no place: a variant whose dialect cannot carry it (DIALECT=auto is checked in setup).
import { DIALECT_TRAITS } from '../dialects/index';
import { schemaProblem, type JsonSchema } from '../dialects/json-schema';
import { structuredRefusal, type ResponseFormat, type Structured, type ToolChoice, type ToolDef } from '../dialects/structured';
import { ConfigError, invalid } from './parse';
import type { BenchConfig } from './config-types';

/** The built-in tools, in the order TOOLS=<n> takes them. */
export const BUILT_IN_TOOLS: readonly ToolDef[] = [
  {
    name: 'get_weather',
    description: 'The weather forecast for a city.',
    parameters: {
      type: 'object',
      properties: { city: { type: 'string' }, unit: { type: 'string', enum: ['celsius', 'fahrenheit'] }, days: { type: 'integer' } },
      required: ['city', 'unit'],
      additionalProperties: false,
    },
  },
  {
    name: 'search_web',
    description: 'Search the web and return the top results.',
    parameters: {
      type: 'object',
      properties: { query: { type: 'string' }, limit: { type: 'integer' }, sites: { type: 'array', items: { type: 'string' } } },
      required: ['query'],
      additionalProperties: false,
    },
  },
  {
    name: 'create_event',
    description: 'Put an event in the calendar.',
    parameters: {
      type: 'object',
      properties: { title: { type: 'string' }, start: { type: 'string' }, minutes: { type: 'integer' }, private: { type: 'boolean' } },
      required: ['title', 'start'],
      additionalProperties: false,
    },
  },
  {
    name: 'convert_units',
    description: 'Convert a quantity from one unit to another.',
    parameters: {
      type: 'object',
      properties: { value: { type: 'number' }, from: { type: 'string' }, to: { type: 'string' } },
      required: ['value', 'from', 'to'],
      additionalProperties: false,
    },
  },
];

/** RESPONSE_FORMAT=json_schema's schema when RESPONSE_SCHEMA is unset. */
export const DEFAULT_RESPONSE_SCHEMA: JsonSchema = {
  type: 'object',
  properties: {
    title: { type: 'string' },
    rating: { type: 'integer' },
    tags: { type: 'array', items: { type: 'string' } },
    verdict: { type: 'string', enum: ['buy', 'hold', 'sell'] },
  },
  required: ['title', 'rating', 'tags', 'verdict'],
  additionalProperties: false,
};

function tools(raw: string): readonly ToolDef[] {
  const s = raw.trim();
  if (s === '' || s === '0') return [];
  const n = Number(s);
  if (!Number.isInteger(n) || n < 0 || n > BUILT_IN_TOOLS.length)
    throw invalid(
      'TOOLS',
      raw,
      `the number of built-in tools sent with every request, 0–${BUILT_IN_TOOLS.length} (${BUILT_IN_TOOLS.map((t) => t.name).join(', ')})`,
    );
  return BUILT_IN_TOOLS.slice(0, n);
}

function toolChoice(raw: string, sent: readonly ToolDef[], toolsRaw: string): ToolChoice {
  const s = raw.trim();
  if (s === 'auto' || s === 'required' || s === 'none') return s;
  const t = sent.find((x) => x.name === s);
  if (t !== undefined) return { name: t.name };
  throw invalid('TOOL_CHOICE', raw, `required, auto, none or the name of a tool sent (TOOLS=${toolsRaw} sends ${sent.map((x) => x.name).join(', ')})`);
}

function responseFormat(raw: string, schemaRaw: string): ResponseFormat | undefined {
  const s = raw.trim();
  if (s === '') {
    if (schemaRaw.trim() !== '') throw new ConfigError('RESPONSE_SCHEMA is the schema of RESPONSE_FORMAT=json_schema: set RESPONSE_FORMAT=json_schema too.');
    return undefined;
  }
  if (s === 'json_object') return { type: 'json_object' };
  if (s !== 'json_schema') throw invalid('RESPONSE_FORMAT', raw, 'json_object (any JSON object) or json_schema (JSON matching RESPONSE_SCHEMA)');
  if (schemaRaw.trim() === '') return { type: 'json_schema', name: 'reply', schema: DEFAULT_RESPONSE_SCHEMA };
  let schema: unknown;
  try {
    schema = JSON.parse(schemaRaw);
  } catch (e) {
    throw new ConfigError(
      `RESPONSE_SCHEMA is not JSON (${(e as Error).message}): give the JSON schema itself, e.g. {"type":"object",` +
        `"properties":{"a":{"type":"string"}},"required":["a"]}.`,
    );
  }
  const why = schemaProblem(schema);
  if (why !== null) throw new ConfigError(`RESPONSE_SCHEMA cannot be checked: ${why} (docs/metrics.md names the subset the validity check reads).`);
  return { type: 'json_schema', name: 'reply', schema: schema as JsonSchema };
}

/**
 * What every generated request asks of its reply's form; null when nothing. A variant whose named
 * dialect cannot carry it is refused here, in one sentence.
 */
export function structuredConfig(get: (name: string) => string, cfg: Pick<BenchConfig, 'variants'>): Structured | null {
  const sent = tools(get('TOOLS'));
  const choiceRaw = get('TOOL_CHOICE');
  if (sent.length === 0 && choiceRaw.trim() !== '' && choiceRaw.trim() !== 'required')
    throw new ConfigError(`TOOL_CHOICE=${choiceRaw} says how the tools of TOOLS are used: set TOOLS to 1–${BUILT_IN_TOOLS.length} too.`);
  const format = responseFormat(get('RESPONSE_FORMAT'), get('RESPONSE_SCHEMA'));
  if (sent.length === 0 && format === undefined) return null;
  const s: Structured = {
    ...(sent.length > 0 ? { tools: sent, toolChoice: toolChoice(choiceRaw.trim() === '' ? 'required' : choiceRaw, sent, get('TOOLS')) } : {}),
    ...(format !== undefined ? { responseFormat: format } : {}),
  };
  for (const v of cfg.variants) {
    const why = v.dialect === 'auto' ? null : structuredRefusal(s, DIALECT_TRAITS, v.dialect, v.vars.dialect);
    if (why !== null) throw new ConfigError(why);
  }
  return s;
}
