// Real prompts from a user's file: ShareGPT JSON, JSONL of OpenAI `messages` or of `prompt`
// objects, or plain text with one prompt per line. The format is detected from the content.
//
// Runs inside k6 (no Node APIs, no TextDecoder): the text comes from k6's open(). To stay fast on
// k6's JavaScript engine the parser never walks characters in JavaScript: it splits on '\n' and
// hands each line (or the whole JSON array) to the engine's native JSON.parse.
//
// A bad file stops the run with one DatasetError naming the file, where (line N, 1-based, for JSONL
// and text; item [i], 0-based, for a JSON array), the field and what was expected, e.g.
//   DATASET=data.jsonl: line 17: output_tokens must be a positive whole number, got 'abc'
import { ConfigError, quote } from '../config/parse';
import { rngFor } from '../stats/rng';
import { structuredOfRow, type Structured } from '../dialects/structured';
import type { ImageInput } from '../dialects/types';

export type Role = 'system' | 'user' | 'assistant';

export interface Turn {
  role: Role;
  content: string;
}

export interface DatasetItem {
  /** The item's own `id` when it has one, else where it came from (`line-17`, `item-16`). */
  id: string;
  /** A name of letters, digits, _ or - (a tag value), or null when the item has none. */
  domain: string | null;
  /** A single-turn prompt is one user turn; conversations keep every turn, assistant replies included. */
  turns: Turn[];
  /** The output budget the item asks for (`output_tokens`); null: the benchmark's OSL applies. */
  outputTokens: number | null;
  /** The row's own tools, tool_choice and response_format (lib/dialects/structured.ts); absent: none. */
  structured?: Structured;
  /** The row's `images`: image files, relative to the dataset file (or absolute); absent: none. */
  imageFiles?: string[];
  /** Those files read (lib/dataset/row-images.ts, at init), sent with the row's first request. */
  images?: ImageInput[];
}

/** How the file was read: a JSON array (ShareGPT or any object kind below), JSON Lines, or plain text. */
export type DatasetFormat = 'json' | 'jsonl' | 'text';

export interface Dataset {
  /** `DATASET=data.jsonl`: the prefix of every message about this dataset. */
  source: string;
  format: DatasetFormat;
  items: DatasetItem[];
  /**
   * Conversations with no user turn of non-empty text (ShareGPT dumps have some): left out and
   * counted, not an error. `first` says where the first one was (`line 12`, `item [3]`).
   */
  skipped: { count: number; first: string | null };
}

export class DatasetError extends ConfigError {
  constructor(message: string) {
    super(message);
    this.name = 'DatasetError';
  }
}

export interface ParseOptions {
  /** The file's name as the user gave it, e.g. data.jsonl. */
  file: string;
  /** The variable that named it (default DATASET). */
  variable?: string;
  /** Skip detection: force a format (e.g. a plain-text file whose first prompt starts with '['). */
  format?: DatasetFormat;
}

/** At most this many distinct domains: each is a tag value, so the series count stays small. */
export const MAX_DOMAINS = 32;
const DOMAIN_RE = /^[A-Za-z][A-Za-z0-9_-]{0,31}$/;

/** Parses the text of a dataset file. Throws DatasetError on the first problem. */
export function parseDataset(text: string, opts: ParseOptions): Dataset {
  const source = `${opts.variable ?? 'DATASET'}=${opts.file}`;
  const fail = (where: string | null, what: string): never => {
    throw new DatasetError(`${source}: ${where ? `${where}: ` : ''}${what}`);
  };
  // A UTF-8 byte-order mark survives k6's open() as U+FEFF.
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  if (body.trim() === '') fail(null, 'the file is empty: expected ShareGPT JSON, JSONL of {"messages": …} or {"prompt": …} objects, or one prompt per line');
  const format = opts.format ?? detectFormat(body);
  const ds: Dataset = { source, format, items: [], skipped: { count: 0, first: null } };
  const domains = new Set<string>();
  const add = (obj: unknown, where: string, defaultId: string): void => {
    const item = itemFromObject(obj, where, defaultId, fail);
    if (item === null) {
      ds.skipped.count++;
      ds.skipped.first ??= where;
      return;
    }
    if (item.domain !== null && !domains.has(item.domain)) {
      domains.add(item.domain);
      if (domains.size > MAX_DOMAINS) fail(where, `more than ${MAX_DOMAINS} distinct domains (each is a tag value): group them into fewer`);
    }
    ds.items.push(item);
  };

  if (format === 'json') {
    let all: unknown;
    try {
      all = JSON.parse(body);
    } catch (e) {
      fail(jsonErrorLine(body, e), `not valid JSON (${errorText(e)}); a JSON dataset is one array of conversations`);
    }
    if (!Array.isArray(all)) fail(null, `expected a JSON array of conversations, got ${show(all)}`);
    const arr = all as unknown[];
    for (let i = 0; i < arr.length; i++) add(arr[i], `item [${i}]`, `item-${i}`);
  } else {
    const lines = body.split('\n');
    for (let i = 0; i < lines.length; i++) {
      let line = lines[i];
      if (line.length > 0 && line.charCodeAt(line.length - 1) === 13) line = line.slice(0, -1);
      if (line.trim() === '') continue;
      const where = `line ${i + 1}`;
      if (format === 'text') {
        ds.items.push({ id: `line-${i + 1}`, domain: null, turns: [{ role: 'user', content: line }], outputTokens: null });
        continue;
      }
      let obj: unknown;
      try {
        obj = JSON.parse(line);
      } catch (e) {
        fail(where, `not valid JSON (${errorText(e)}); JSONL needs one JSON object per line`);
      }
      add(obj, where, `line-${i + 1}`);
    }
  }
  if (ds.items.length === 0) {
    const why =
      ds.skipped.count > 0 ? `all ${ds.skipped.count} conversations have no user turn with text (first: ${ds.skipped.first})` : 'no prompts in the file';
    fail(null, `${why}: nothing to send`);
  }
  return ds;
}

/**
 * The format, from the content: a JSON array starts with '[' followed by '{' or ']'; JSONL's first
 * line starts with '{"' or '{}' (or is '{' alone: a pretty-printed object, reported as bad JSONL); anything
 * else is one prompt per line, so "[INST] …" or "{curly} …" prompts stay text.
 */
export function detectFormat(text: string): DatasetFormat {
  const head = text.slice(0, 4096).replace(/^\s+/, '');
  if (/^\[\s*[{\]]/.test(head) || head === '[') return 'json';
  const first = head.split('\n', 1)[0].trim();
  if (/^\{\s*("|\}|$)/.test(first)) return 'jsonl';
  return 'text';
}

type Fail = (where: string | null, what: string) => never;

function itemFromObject(obj: unknown, where: string, defaultId: string, fail: Fail): DatasetItem | null {
  if (obj === null || typeof obj !== 'object' || Array.isArray(obj)) fail(where, `expected a JSON object, got ${show(obj)}`);
  const o = obj as Record<string, unknown>;
  const id =
    o.id === undefined || o.id === null
      ? defaultId
      : typeof o.id === 'string' || typeof o.id === 'number'
        ? String(o.id)
        : fail(where, `id must be a string or a number, got ${show(o.id)}`);
  const domain = optDomain(o, where, fail);
  const outputTokens = optPositiveInt(o, 'output_tokens', where, fail);
  let turns: Turn[];
  if (o.conversations !== undefined) turns = readTurns(SHAREGPT, o.conversations, where, fail);
  else if (o.messages !== undefined) turns = readTurns(MESSAGES, o.messages, where, fail);
  else if (o.prompt !== undefined) {
    if (typeof o.prompt !== 'string' || o.prompt.trim() === '') fail(where, `prompt must be a non-empty string, got ${show(o.prompt)}`);
    turns = [{ role: 'user', content: o.prompt as string }];
  } else {
    const keys = Object.keys(o);
    return fail(
      where,
      `expected an object with "conversations" (ShareGPT), "messages" (OpenAI chat) or "prompt", got ` +
        `${keys.length ? `one with ${keys.slice(0, 6).join(', ')}` : 'an empty object'}`,
    );
  }
  if (!turns.some((t) => t.role === 'user' && t.content.trim() !== '')) return null;
  const structured = structuredOfRow(o);
  if (typeof structured === 'string') fail(where, structured);
  const item: DatasetItem = structured === undefined ? { id, domain, turns, outputTokens } : { id, domain, turns, outputTokens, structured };
  const imageFiles = optImageFiles(o, where, fail);
  return imageFiles === null ? item : { ...item, imageFiles };
}

/** `images`: a list of 1 to 8 file names (the most IMAGES sends too). */
function optImageFiles(o: Record<string, unknown>, where: string, fail: Fail): string[] | null {
  const v = o.images;
  if (v === undefined || v === null) return null;
  if (!Array.isArray(v) || v.length < 1 || v.length > 8 || v.some((f) => typeof f !== 'string' || f.trim() === ''))
    fail(where, `images must be a list of 1 to 8 image file names, got ${show(v)}`);
  return v as string[];
}

/** How a format lists its turns: what differs between ShareGPT conversations and OpenAI messages. */
interface TurnList {
  /** The list's field, e.g. "conversations", and what its items are called. */
  list: string;
  item: string;
  roleKey: string;
  contentKey: string;
  roles: Record<string, Role>;
  /** The roles as the error message names them. */
  rolesText: string;
  content: (c: unknown, field: string, where: string, fail: Fail) => string;
}

const SHAREGPT: TurnList = {
  list: 'conversations',
  item: 'turns',
  roleKey: 'from',
  contentKey: 'value',
  roles: { human: 'user', user: 'user', gpt: 'assistant', assistant: 'assistant', system: 'system' },
  rolesText: 'human, gpt, system (or user, assistant)',
  content: (c, field, where, fail) => {
    if (typeof c !== 'string') fail(where, `${field} must be a string, got ${show(c)}`);
    return c as string;
  },
};

const MESSAGES: TurnList = {
  list: 'messages',
  item: 'messages',
  roleKey: 'role',
  contentKey: 'content',
  roles: { system: 'system', developer: 'system', user: 'user', assistant: 'assistant' },
  rolesText: 'system, user, assistant',
  content: (c, field, where, fail) => messageContent(c, field, where, fail),
};

function readTurns(shape: TurnList, v: unknown, where: string, fail: Fail): Turn[] {
  const pair = `{"${shape.roleKey}", "${shape.contentKey}"}`;
  if (!Array.isArray(v)) fail(where, `${shape.list} must be a list of ${pair} ${shape.item}, got ${show(v)}`);
  const arr = v as unknown[];
  const turns: Turn[] = [];
  for (let i = 0; i < arr.length; i++) {
    const t = arr[i];
    const field = `${shape.list}[${i}]`;
    if (t === null || typeof t !== 'object' || Array.isArray(t)) fail(where, `${field} must be an object ${pair}, got ${show(t)}`);
    const o = t as Record<string, unknown>;
    const name = o[shape.roleKey];
    const role = typeof name === 'string' ? shape.roles[name] : undefined;
    if (role === undefined) fail(where, `${field}.${shape.roleKey} must be one of ${shape.rolesText}, got ${show(name)}`);
    turns.push({ role: role as Role, content: shape.content(o[shape.contentKey], `${field}.${shape.contentKey}`, where, fail) });
  }
  return turns;
}

function messageContent(c: unknown, field: string, where: string, fail: Fail): string {
  if (typeof c === 'string') return c;
  if (Array.isArray(c)) {
    let s = '';
    for (let j = 0; j < c.length; j++) {
      const p = c[j] as Record<string, unknown> | null;
      if (p === null || typeof p !== 'object' || p.type !== 'text' || typeof p.text !== 'string') {
        fail(where, `${field}[${j}] must be a text part {"type": "text", "text": …} (only text is sent), got ${show(p)}`);
      }
      s += (p as { text: string }).text;
    }
    return s;
  }
  return fail(where, `${field} must be a string or a list of text parts, got ${show(c)}`);
}

function optDomain(o: Record<string, unknown>, where: string, fail: Fail): string | null {
  const d = o.domain;
  if (d === undefined || d === null) return null;
  if (typeof d !== 'string' || !DOMAIN_RE.test(d))
    fail(where, `domain must be a name of letters, digits, _ or -, starting with a letter (at most 32), got ${show(d)}`);
  return d as string;
}

function optPositiveInt(o: Record<string, unknown>, key: string, where: string, fail: Fail): number | null {
  const v = o[key];
  if (v === undefined || v === null) return null;
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 1) fail(where, `${key} must be a positive whole number, got ${show(v)}`);
  return v as number;
}

/** A value as it reads in a message: strings quoted and cut, lists and objects by kind. */
function show(v: unknown): string {
  if (v === undefined) return 'nothing';
  if (typeof v === 'string') return quote(v.length > 40 ? `${v.slice(0, 40)}…` : v);
  if (Array.isArray(v)) return `a list of ${v.length}`;
  if (v !== null && typeof v === 'object') return 'an object';
  return String(v);
}

function errorText(e: unknown): string {
  const m = e instanceof Error ? e.message : String(e);
  return m.length > 120 ? `${m.slice(0, 120)}…` : m;
}

/**
 * Where a JSON.parse error is, as "line N": from the engine's message when it says (V8: "position N"
 * or "line N"), else (k6's engine gives no offset) from locateJsonError for texts up to
 * LOCATE_LIMIT characters; null when unknown.
 */
function jsonErrorLine(text: string, e: unknown): string | null {
  const m = e instanceof Error ? e.message : '';
  const line = /line (\d+)/.exec(m);
  if (line) return `line ${line[1]}`;
  const pos = /(?:position|offset) (\d+)/.exec(m);
  const at = pos ? Number(pos[1]) : text.length <= LOCATE_LIMIT ? locateJsonError(text) : -1;
  return at < 0 ? null : `line ${lineOf(text, at)}`;
}

function lineOf(text: string, at: number): number {
  return text.slice(0, at).split('\n').length;
}

/** Locating a syntax error walks the text token by token: bounded, as it only runs after a failure. */
export const LOCATE_LIMIT = 20_000_000;

// One JSON token (or a run of whitespace) at a time; anything else is the error. JSON strings may
// not hold raw control characters, hence the range in the string's class.
// eslint-disable-next-line no-control-regex
const TOKEN_RE = /\s+|"(?:[^"\\\u0000-\u001f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*"|-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null|[{}[\],:]/y;

/**
 * The offset of the first syntax error in a JSON text (a tokenizer plus the grammar's states), or
 * −1 when none is found. Token by token with a sticky regex: no per-character JavaScript loop.
 */
export function locateJsonError(text: string): number {
  // What may come next: a value, an object key (or '}' right after '{'), ':', ',' or the container's end.
  type Want = 'value' | 'value-or-end' | 'key' | 'key-or-end' | 'colon' | 'comma-or-end' | 'eof';
  const stack: string[] = [];
  let want: Want = 'value';
  TOKEN_RE.lastIndex = 0;
  let at = 0;
  const afterValue = (): Want => (stack.length === 0 ? 'eof' : 'comma-or-end');
  while (at < text.length) {
    TOKEN_RE.lastIndex = at;
    const m = TOKEN_RE.exec(text);
    if (!m) return at;
    const tok = m[0];
    const c = tok.charCodeAt(0);
    if (c === 32 || c === 10 || c === 13 || c === 9) {
      at += tok.length;
      continue;
    }
    switch (want) {
      case 'eof':
        return at;
      case 'colon':
        if (tok !== ':') return at;
        want = 'value';
        break;
      case 'key':
      case 'key-or-end':
        if (tok === '}' && want === 'key-or-end') {
          stack.pop();
          want = afterValue();
        } else if (c === 34) want = 'colon';
        else return at;
        break;
      case 'comma-or-end': {
        const top = stack[stack.length - 1];
        if (tok === ',') want = top === '{' ? 'key' : 'value';
        else if ((tok === '}' && top === '{') || (tok === ']' && top === '[')) {
          stack.pop();
          want = afterValue();
        } else return at;
        break;
      }
      default:
        if (tok === ']' && want === 'value-or-end') {
          stack.pop();
          want = afterValue();
        } else if (tok === '{') {
          stack.push('{');
          want = 'key-or-end';
        } else if (tok === '[') {
          stack.push('[');
          want = 'value-or-end';
        } else if (tok === '}' || tok === ']' || tok === ',' || tok === ':') return at;
        else want = afterValue();
    }
    at += tok.length;
  }
  return want === 'eof' ? -1 : text.length;
}

// ---- Selection and order -------------------------------------------------------------------------

/** The items of the given domains; throws when none is left, saying which domains there are. */
export function selectDomains(ds: Dataset, domains: readonly string[]): Dataset {
  const want = new Set(domains);
  const items = ds.items.filter((it) => it.domain !== null && want.has(it.domain));
  if (items.length === 0) {
    const have = [...new Set(ds.items.map((it) => it.domain ?? '(none)'))].sort();
    throw new DatasetError(`${ds.source}: no prompt of domain ${[...want].join(', ')}: the dataset's domains are ${have.join(', ')}`);
  }
  return { ...ds, items };
}

/**
 * A seeded permutation of 0..n−1: the order in which the items are sent. The same seed gives the
 * same order on every machine and for every variant, so both sides of an A/B get the same prompts
 * in the same order.
 */
export function seededOrder(n: number, seed: number): number[] {
  const rng = rngFor(seed, `dataset-order:${n}`);
  const out = new Array<number>(n);
  for (let i = 0; i < n; i++) out[i] = i;
  for (let i = n - 1; i > 0; i--) {
    const j = Math.floor(rng() * (i + 1));
    const t = out[i];
    out[i] = out[j];
    out[j] = t;
  }
  return out;
}

// ---- Turns ---------------------------------------------------------------------------------------

/** How many user turns a conversation has (the requests a multi-turn replay sends). */
export function userTurns(item: DatasetItem): number {
  let n = 0;
  for (const t of item.turns) if (t.role === 'user') n++;
  return n;
}

/**
 * The messages of the request for the k-th user turn (1-based): every turn before it (system
 * prompts and the recorded assistant replies included) and that turn. k = 1 is the single-turn
 * prompt. Throws a RangeError when the item has fewer user turns.
 */
export function requestTurns(item: DatasetItem, k = 1): Turn[] {
  let seen = 0;
  for (let i = 0; i < item.turns.length; i++) {
    if (item.turns[i].role === 'user' && ++seen === k) return item.turns.slice(0, i + 1);
  }
  throw new RangeError(`item ${item.id} has ${seen} user turns, not ${k}`);
}

/** Turns as one text (for routes that take a text prompt, and for length estimates): contents joined by blank lines. */
export function turnsText(turns: readonly Turn[]): string {
  return turns.map((t) => t.content).join('\n\n');
}

// ---- Domain marker (simulator tests only) --------------------------------------------------------

/**
 * The line that tells the simulator a prompt's domain, so its per-domain acceptance can be checked
 * (docs/simulator.md). Added only when a test option asks for it: a real server would see it as
 * prompt text. The simulator reads the first `[domain: NAME]` in the prompt text.
 */
export function domainMarker(domain: string): string {
  return `[domain: ${domain}]`;
}

/** The turns with the marker line put before the first user turn's text (unchanged when domain is null). */
export function markTurns(turns: readonly Turn[], domain: string | null): Turn[] {
  if (domain === null) return turns.slice();
  let done = false;
  return turns.map((t) => {
    if (done || t.role !== 'user') return t;
    done = true;
    return { role: t.role, content: `${domainMarker(domain)}\n${t.content}` };
  });
}
