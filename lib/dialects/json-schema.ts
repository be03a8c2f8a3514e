// A small JSON-schema checker for the structured-output validity share: the subset that tool
// parameters and response_format schemas use in practice, and nothing more. Supported keywords:
// type (one name or a list; integer is a number with no fraction), properties, required, enum,
// items (one schema for every element), additionalProperties (false, or a schema). Any other
// keyword is ignored (docs/metrics.md says so): a schema using it is checked only on this subset.
export type JsonSchema = { readonly [key: string]: unknown };

const TYPES = new Set(['object', 'array', 'string', 'number', 'integer', 'boolean', 'null']);

function typeOf(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  return typeof v;
}

function isType(v: unknown, t: string): boolean {
  if (t === 'integer') return typeof v === 'number' && Number.isInteger(v);
  return typeOf(v) === t;
}

function isSchema(v: unknown): v is JsonSchema {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** Deep equality of JSON values, for enum. */
function same(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  return ka.every((k) => same((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}

/**
 * Where `v` first breaks `schema` (a JSON-pointer-like path and why), or null when it matches on
 * the supported subset.
 */
export function schemaViolation(v: unknown, schema: JsonSchema, path = '$'): string | null {
  const t = schema.type;
  if (t !== undefined) {
    const types = Array.isArray(t) ? t : [t];
    if (!types.some((x) => typeof x === 'string' && isType(v, x))) return `${path}: ${typeOf(v)}, not ${types.join(' or ')}`;
  }
  if (Array.isArray(schema.enum) && !schema.enum.some((e) => same(e, v))) return `${path}: not one of the enum`;
  if (Array.isArray(v) && isSchema(schema.items)) {
    for (let i = 0; i < v.length; i++) {
      const bad = schemaViolation(v[i], schema.items, `${path}[${i}]`);
      if (bad !== null) return bad;
    }
  }
  if (isSchema(v) && typeOf(v) === 'object') return objectViolation(v as Record<string, unknown>, schema, path);
  return null;
}

function objectViolation(v: Record<string, unknown>, schema: JsonSchema, path: string): string | null {
  const props = isSchema(schema.properties) ? (schema.properties as Record<string, unknown>) : {};
  if (Array.isArray(schema.required)) for (const k of schema.required) if (typeof k === 'string' && !(k in v)) return `${path}: no '${k}' (required)`;
  const extra = schema.additionalProperties;
  for (const k of Object.keys(v)) {
    const p = props[k];
    if (isSchema(p)) {
      const bad = schemaViolation(v[k], p, `${path}.${k}`);
      if (bad !== null) return bad;
    } else if (extra === false) {
      return `${path}: '${k}' is not allowed (additionalProperties false)`;
    } else if (isSchema(extra)) {
      const bad = schemaViolation(v[k], extra, `${path}.${k}`);
      if (bad !== null) return bad;
    }
  }
  return null;
}

/** Parses `text` as JSON and checks it: null when valid, else why not. */
export function jsonViolation(text: string, schema: JsonSchema | null): string | null {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return 'not JSON';
  }
  if (schema === null) return v !== null && typeof v === 'object' && !Array.isArray(v) ? null : 'not a JSON object';
  return schemaViolation(v, schema);
}

/** Why `schema` cannot be used (a ConfigError's reason), or null: a type name the checker does not know, a non-object schema. */
export function schemaProblem(schema: unknown, path = '$'): string | null {
  if (!isSchema(schema)) return `${path} is not a JSON object`;
  const t = schema.type;
  if (t !== undefined) {
    const types = Array.isArray(t) ? t : [t];
    const bad = types.find((x) => typeof x !== 'string' || !TYPES.has(x));
    if (bad !== undefined) return `${path}.type '${String(bad)}' is not one of ${[...TYPES].join(', ')}`;
  }
  if (schema.properties !== undefined) {
    if (!isSchema(schema.properties)) return `${path}.properties is not an object`;
    for (const [k, p] of Object.entries(schema.properties)) {
      const bad = schemaProblem(p, `${path}.properties.${k}`);
      if (bad !== null) return bad;
    }
  }
  if (schema.items !== undefined) return schemaProblem(schema.items, `${path}.items`);
  return null;
}
