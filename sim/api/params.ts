// Typed reads of request fields with pydantic-like messages that name the field.
import type { SimContext } from '../context';
import { HttpError, type Json } from './common';

function invalid(field: string, what: string, value: unknown): never {
  throw new HttpError(
    400,
    `[{'type': '${what}', 'loc': ('body', '${field}'), 'msg': 'Input should be a valid ${what}', 'input': ${JSON.stringify(value)}}]`,
    field,
  );
}

export function optInt(o: Json, field: string): number | undefined {
  const v = o[field];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'number' || !Number.isInteger(v)) invalid(field, 'integer', v);
  return v;
}

export function optBool(o: Json, field: string): boolean | undefined {
  const v = o[field];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'boolean') invalid(field, 'boolean', v);
  return v;
}

export function optObject(o: Json, field: string): Json | undefined {
  const v = o[field];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'object' || Array.isArray(v)) invalid(field, 'dictionary', v);
  return v as Json;
}

export function optString(o: Json, field: string): string | undefined {
  const v = o[field];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') invalid(field, 'string', v);
  return v;
}

export function stopList(o: Json, field = 'stop'): string[] {
  const v = o[field];
  if (v === undefined || v === null) return [];
  if (typeof v === 'string') return [v];
  if (Array.isArray(v) && v.every((s) => typeof s === 'string')) return v as string[];
  return invalid(field, 'list of strings', v);
}

export function missing(field: string): never {
  throw new HttpError(400, `[{'type': 'missing', 'loc': ('body', '${field}'), 'msg': 'Field required'}]`, field);
}

/** Token ids must be integers inside the vocabulary. */
export function tokenIds(value: unknown, field: string, ctx: SimContext): number[] {
  if (!Array.isArray(value) || value.length === 0) invalid(field, 'non-empty list of integers', value);
  for (const id of value) {
    if (typeof id !== 'number' || !Number.isInteger(id) || id < 0 || id >= ctx.o.vocabSize) {
      throw new HttpError(400, `Token id ${JSON.stringify(id)} is out of vocabulary (vocab size ${ctx.o.vocabSize}).`, field);
    }
  }
  return value as number[];
}
