// ADAPTERS=name:weight,…: the LoRA adapters to spread requests over, read and checked. A name is
// what the server serves the adapter as (a tag value too, so plain characters only); `base` is the
// base model; a weight left out is 1.
import { ConfigError, quote } from './parse';
import type { AdapterWeight } from './config-types';

/** At most this many adapters: each one is a tag value and its own report rows. */
export const MAX_ADAPTERS = 16;
const NAME_RE = /^[A-Za-z0-9][A-Za-z0-9._/-]{0,127}$/;

export function parseAdapters(raw: string): AdapterWeight[] | null {
  if (raw.trim() === '') return null;
  const bad = (why: string) => new ConfigError(`ADAPTERS=${quote(raw)} is not valid: ${why}; expected name:weight,… e.g. sql:3,chat:1,base:1.`);
  const out: AdapterWeight[] = [];
  for (const part of raw.split(',').map((s) => s.trim())) {
    if (part === '') throw bad('an empty entry');
    const colon = part.lastIndexOf(':');
    const name = colon === -1 ? part : part.slice(0, colon).trim();
    const w = colon === -1 ? '1' : part.slice(colon + 1).trim();
    if (!NAME_RE.test(name)) throw bad(`'${name}' is not an adapter name (letters, digits, . _ / -, starting with a letter or digit)`);
    const weight = Number(w);
    if (w === '' || !Number.isFinite(weight) || weight <= 0) throw bad(`the weight of ${name}, '${w}', is not a positive number`);
    if (out.some((a) => a.name === name)) throw bad(`${name} is named twice`);
    out.push({ name, weight });
  }
  if (out.length > MAX_ADAPTERS) throw bad(`${out.length} adapters, at most ${MAX_ADAPTERS}`);
  return out;
}
