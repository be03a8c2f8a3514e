// Mutation fuzzing of every dialect reader (issue 39): SGLang, the OpenAI completions and chat
// routes, llama.cpp's native route, Anthropic Messages and OpenAI Responses. Each case takes a real
// reply (the corpus and test/fixtures/replies) and mutates it as a bad network or a failing server
// would: cut at any byte (a third of the cuts between two events), TCP reads ending anywhere (inside
// a UTF-8 character too), multi-byte text, error objects, `event: error` and `error:` lines injected
// (Anthropic's error object among them), the completing event ([DONE], message_stop,
// response.completed) dropped or doubled, a Messages or Responses reply ending as its API says one
// may (response.failed or response.incomplete, a refusal, an error event), usage counts changed
// (backwards, negative), events reordered or sent twice, an event's JSON over several data: lines,
// SSE comments and fields, an HTML error page, an empty body, CRLF line ends, or two of these at
// once. It is read through all six dialects (a fifth of the cases with THINK_TAGS) on every path:
// the whole body, one event at a time, kept and read in random batches, and after the reply it came
// from (the dialect's template warm).
// No byte is garbled: TCP and TLS do not deliver a changed byte, and readers skip parts of some
// chunks by design (llama.cpp's echoed settings, the text beside SGLang's meta_info).
//
// Properties: no path throws; a stream with no event that completes it for the dialect reading it
// ([DONE] or a finish reason; for Messages message_stop, for Responses response.completed,
// .incomplete or .failed), or a cut JSON body, is never ok; an injected error, or an error as the
// dialect's API words one (event: error, response.failed, response.incomplete other than at
// max_output_tokens, stop_reason refusal), is never ok; token counts are never negative nor above
// the largest count the server sent (output_tokens too) plus the token events streamed; the whole
// body and the events agree; a mutation that keeps the content (reads, CRLF, data: lines, SSE
// comments, a second completing event) reads as the reply did; the reply read after a mutated one
// by the same dialect reads as it does alone.
//
// Seeded: FUZZ_SEED (default below) and FUZZ_CASES (default 12,000; millions locally), FUZZ_CASE=i
// runs case i alone, FUZZ_EVERY_BYTE=1 adds every reply cut at each of its bytes. A failure prints
// the seed, the case and its smallest failing input found (events dropped one at a time while the
// same property still fails).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createDialect, DIALECT_NAMES, type DialectName, type GenerationResult } from '../../../lib/dialects/index';
import { batched, CTX, oneByOne, sseEvents, type StreamRead } from './read-paths';
import { mulberry32 } from '../../../lib/stats/rng';
import { FIXTURE_DIALECTS } from '../fixtures';

const SEED = envInt('FUZZ_SEED', 39);
const CASES = envInt('FUZZ_CASES', 12_000);
const ONLY = process.env.FUZZ_CASE === undefined ? null : envInt('FUZZ_CASE', 0);
/** FUZZ_EVERY_BYTE=1: every reply cut at each of its bytes too (about 107,000 cases more). */
const EVERY_BYTE = process.env.FUZZ_EVERY_BYTE === '1';

function envInt(name: string, dflt: number): number {
  const v = process.env[name];
  if (v === undefined || v === '') return dflt;
  const n = Number(v);
  if (!Number.isSafeInteger(n) || n < 0) throw new Error(`${name}=${v}: a non-negative integer`);
  return n;
}

// --- the replies --------------------------------------------------------------------------------

interface Reply {
  name: string;
  dialect: DialectName;
  status: number;
  stream: boolean;
  text: string;
}

const FIXTURES = join(__dirname, '..', '..', 'fixtures');

function loadReplies(): Reply[] {
  const out: Reply[] = [];
  const manifest = JSON.parse(readFileSync(join(FIXTURES, 'corpus', 'manifest.json'), 'utf8')) as Array<{
    file: string;
    kind: string;
    dialect?: DialectName;
    status?: number;
    stream?: boolean;
  }>;
  for (const e of manifest) {
    if (e.kind !== 'generation' || !e.dialect) continue;
    out.push({
      name: `corpus/${e.file}`,
      dialect: e.dialect,
      status: e.status ?? 200,
      stream: e.stream === true,
      text: readFileSync(join(FIXTURES, 'corpus', e.file), 'utf8'),
    });
  }
  for (const f of readdirSync(join(FIXTURES, 'replies'))) {
    const dialect = FIXTURE_DIALECTS.find(([re]) => re.test(f))?.[1];
    if (!dialect) continue;
    const status = Number(/-(\d{3})-/.exec(f)?.[1] ?? 200);
    out.push({ name: `replies/${f}`, dialect, status, stream: f.endsWith('.txt'), text: readFileSync(join(FIXTURES, 'replies', f), 'utf8') });
  }
  return out;
}

// --- a seeded generator ---------------------------------------------------------------------------

/** Each case its own stream of numbers, so that one case replays alone (FUZZ_CASE). */
const caseRng = (seed: number, i: number) => mulberry32(Math.imul(seed ^ 0x9e3779b9, 0x85ebca6b) ^ Math.imul(i + 1, 0xc2b2ae35));

type Rand = () => number;
const int = (r: Rand, n: number) => Math.floor(r() * n);
const pick = <T>(r: Rand, xs: readonly T[]): T => xs[int(r, xs.length)];

// --- mutations ------------------------------------------------------------------------------------

/** What a case feeds the readers. */
interface Input {
  /** The reply as bytes: a cut may end inside a UTF-8 character. */
  body: Buffer;
  status: number;
  contentType: string;
  /** Where TCP reads end (byte offsets), and the batch sizes the sse transport reads events in. */
  cuts: number[];
  batches: number[];
  /** A JSON body cut or replaced: whatever it held is not a complete reply. */
  cutWhole: boolean;
  /** The content is the reply's own (cut into other reads, other line ends, a second [DONE]): read as it was. */
  same: boolean;
  /** Only by this dialect's reader (a second message_stop or response.completed: only their reader stops at the first). */
  sameFor?: DialectName;
  /** Read with THINK_TAGS (the OpenAI readers then parse every chunk, with no template). */
  think: boolean;
}

interface Case {
  index: number;
  reply: Reply;
  mutation: string;
  input: Input;
}

/** Marks injected errors, so that whether a (shrunk) input still carries one is read from it. */
const MARK = 'fuzz-injected';
const ERROR_EVENTS = [
  `data: {"error":{"message":"${MARK}: engine dead","code":500}}`,
  `data: {"error":"${MARK}"}`,
  `event: error\ndata: {"message":"${MARK}"}`,
  `event: error\ndata: ${MARK}: upstream reset`,
  `error: {"code":500,"message":"${MARK}","type":"server_error"}`,
  `data: {"object":"error","error":{"message":"${MARK}: out of memory"},"code":503}`,
  // Anthropic's error event (its data an object with an error object, as every reader reads one).
  `event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"${MARK}: Overloaded"}}`,
];
/** Marks an error only the dialect whose API words it so reads as one (see apiError). */
const API_MARK = 'fuzz-api-error';
const HTML =
  `<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad ` +
  `Gateway</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n`;
const COUNT_RE =
  /"(completion_tokens|prompt_tokens|tokens_predicted|tokens_evaluated|cached_tokens|output_tokens|input_tokens|cache_read_input_tokens|cache_creation_input_tokens|reasoning_tokens)":\s*(-?\d+(?:\.\d+)?)/g;
/** The completion counts among them: the bound on what a reader may report. */
const COMPLETION_COUNTS = new Set(['completion_tokens', 'tokens_predicted', 'output_tokens']);
const TEXT_RE = /"(text|content|delta|thinking)":"/g;

/** A stream's complete events as blocks of lines (a blank line ends each). */
function blocks(text: string): string[] {
  const all = text.replace(/\r\n/g, '\n').split('\n\n');
  return all.slice(0, -1).filter((b) => b.trim() !== '');
}
/** The blocks as a stream, with what followed the reply's last complete event (a cut one) kept after them. */
const joinBlocks = (bs: readonly string[], reply: string) => bs.map((b) => `${b}\n\n`).join('') + (reply.replace(/\r\n/g, '\n').split('\n\n').pop() ?? '');
const isDone = (b: string) => b.trim() === 'data: [DONE]' || b.trim() === 'data:[DONE]';
/** The named events that end a Messages stream and a Responses stream: nothing after them is read. */
const ANTHROPIC_END = new Set(['message_stop']);
const RESPONSES_END = new Set(['response.completed', 'response.incomplete', 'response.failed']);
/** An event after which the reader of some dialect reads no more: [DONE], message_stop, response.completed… */
const isEnd = (b: string) => isDone(b) || endsFor(undefined, dataOf(b));

/** Each mutation: its name and what it does to a reply, given the case's numbers. */
const MUTATIONS: Array<{
  name: string;
  weight: number;
  applies: (r: Reply) => boolean;
  apply: (r: Reply, rand: Rand) => Partial<Input> & { body: Buffer; label?: string };
}> = [
  {
    // A connection cut at any byte: a stream, or a whole JSON body.
    name: 'cut',
    weight: 6,
    applies: () => true,
    apply(r, rand) {
      // A third of the cuts between two events: a connection reset there leaves no partial event.
      const ends = r.stream ? [...r.text.matchAll(/\n\n/g)].map((m) => Buffer.byteLength(r.text.slice(0, (m.index as number) + 2))) : [];
      return cutAt(r, ends.length > 0 && rand() < 0.33 ? pick(rand, ends) : int(rand, Buffer.byteLength(r.text)));
    },
  },
  {
    // The same bytes in other TCP reads: ends anywhere, in a UTF-8 character too.
    name: 'reads',
    weight: 2,
    applies: (r) => r.stream,
    apply: (r) => ({ body: Buffer.from(r.text, 'utf8'), same: true }),
  },
  {
    // A generated text with multi-byte characters, the stream then cut inside one (or read across it).
    name: 'multibyte',
    weight: 2,
    applies: (r) => r.text.match(TEXT_RE) !== null,
    apply(r, rand) {
      const chars = ['é', '€', '𝄞', '漢字', '😀'];
      const text = r.text.replace(TEXT_RE, (m) => (rand() < 0.5 ? m + pick(rand, chars) : m));
      const bytes = Buffer.from(text, 'utf8');
      const starts: number[] = [];
      for (let i = 0; i < bytes.length; i++) if (bytes[i] >= 0xc0) starts.push(i);
      if (starts.length === 0 || rand() < 0.5) return { body: bytes, label: 'multi-byte text' };
      const at = pick(rand, starts) + 1;
      return { body: bytes.subarray(0, at), cutWhole: !r.stream, label: `multi-byte text, cut at byte ${at} inside a character` };
    },
  },
  {
    // An error the server or a gateway put in the reply, anywhere before the stream's end.
    name: 'error',
    weight: 4,
    applies: (r) => r.status >= 200 && r.status < 300,
    apply(r, rand) {
      if (!r.stream) {
        const forms = [`{"error":{"message":"${MARK}","code":500}}`, `{"error":"${MARK}"}`];
        if (rand() < 0.5 || !r.text.trimStart().startsWith('{')) return { body: Buffer.from(pick(rand, forms)), label: 'an error body' };
        return { body: Buffer.from(r.text.replace('{', `{"error":{"message":"${MARK}"},`)), label: 'an error field in the body' };
      }
      const bs = blocks(r.text);
      const end = bs.findIndex(isEnd);
      const at = int(rand, (end < 0 ? bs.length : end) + 1);
      if (rand() < 0.25 && at < bs.length && /^data: \{/m.test(bs[at])) {
        // An error field inside an event that is otherwise a chunk.
        bs[at] = bs[at].replace(/^data: \{/m, `data: {"error":{"message":"${MARK}"},`);
        return { body: Buffer.from(joinBlocks(bs, r.text)), label: `an error field in event ${at + 1}` };
      }
      const form = pick(rand, ERROR_EVENTS);
      bs.splice(at, 0, form);
      return { body: Buffer.from(joinBlocks(bs, r.text)), label: `error event before event ${at + 1}: ${form}` };
    },
  },
  {
    // The event that ends the stream ([DONE], message_stop, response.completed) dropped, or every event that completes it.
    name: 'drop-end',
    weight: 2,
    applies: (r) => r.stream,
    apply(r, rand) {
      const all = rand() < 0.5;
      const bs = blocks(r.text).filter((b) => !isEnd(b) && !(all && completes(undefined, dataOf(b))));
      return { body: Buffer.from(joinBlocks(bs, r.text)), label: all ? 'every completing event dropped' : 'the end event dropped' };
    },
  },
  {
    // The event that ends the stream twice: a proxy that retries its last write.
    name: 'double-end',
    weight: 1,
    applies: (r) => r.stream && blocks(r.text).some(isEnd),
    apply(r) {
      const bs = blocks(r.text);
      const end = bs.findIndex(isEnd);
      bs.splice(end, 0, bs[end]);
      return { body: Buffer.from(joinBlocks(bs, r.text)), same: true, sameFor: isDone(bs[end]) ? undefined : r.dialect };
    },
  },
  {
    // A Messages or Responses reply that ends as its API says one may: failed, incomplete, refused, an error event.
    name: 'api-end',
    weight: 3,
    applies: (r) => (r.dialect === 'anthropic' || r.dialect === 'responses') && ok2xx(r.status),
    apply: (r, rand) => (r.stream ? apiEndStream(r, rand) : apiEndWhole(r, rand)),
  },
  {
    // Usage counts changed: backwards, negative, another event's, zero.
    name: 'counts',
    weight: 4,
    applies: (r) => r.text.match(COUNT_RE) !== null,
    apply(r, rand) {
      const seen = [...r.text.matchAll(COUNT_RE)].map((m) => Number(m[2]));
      const changed: string[] = [];
      const text = r.text.replace(COUNT_RE, (m, key: string, v: string) => {
        if (rand() < 0.6) return m;
        const n = Number(v);
        const to = pick(rand, [n - 1 - int(rand, 5), -1 - int(rand, 9), pick(rand, seen), 0, -n]);
        changed.push(`${key} ${n}→${to}`);
        return `"${key}":${to}`;
      });
      return { body: Buffer.from(text), label: `counts: ${changed.join(', ') || 'none'}` };
    },
  },
  {
    // Two neighbouring events swapped (their usage with them).
    name: 'reorder',
    weight: 2,
    applies: (r) => r.stream && blocks(r.text).length >= 2,
    apply(r, rand) {
      const bs = blocks(r.text);
      const i = int(rand, bs.length - 1);
      [bs[i], bs[i + 1]] = [bs[i + 1], bs[i]];
      return { body: Buffer.from(joinBlocks(bs, r.text)), label: `events ${i + 1} and ${i + 2} swapped` };
    },
  },
  {
    // A gateway's HTML error page instead of the reply, with a 200 or its own status.
    name: 'html',
    weight: 1,
    applies: () => true,
    apply(r, rand) {
      const status = pick(rand, [200, 502, 503, 504]);
      return {
        body: Buffer.from(HTML),
        status,
        contentType: pick(rand, ['text/html', r.stream ? 'text/event-stream' : 'application/json']),
        cutWhole: true,
        label: `HTML page, status ${status}`,
      };
    },
  },
  {
    name: 'empty',
    weight: 1,
    applies: () => true,
    apply: () => ({ body: Buffer.alloc(0), status: 200, cutWhole: true }),
  },
  {
    // An event's JSON over several data: lines (SSE joins them with a newline, JSON reads it as space).
    name: 'data-lines',
    weight: 2,
    applies: (r) => r.stream,
    apply(r, rand) {
      const bs = blocks(r.text).map((b) =>
        b
          .split('\n')
          .map((l) => (l.startsWith('data: {') && parses(l.slice(6)) && rand() < 0.5 ? `data: ${splitOutsideStrings(l.slice(6), rand).join('\ndata: ')}` : l))
          .join('\n'),
      );
      return { body: Buffer.from(joinBlocks(bs, r.text)), same: true };
    },
  },
  {
    // SSE fields no reader needs: keep-alive comments (alone or in an event), ids, retry, a named message event.
    name: 'sse-fields',
    weight: 1,
    applies: (r) => r.stream,
    apply(r, rand) {
      const extra = [': keep-alive', 'id: 7', 'retry: 3000', 'event: message', ':'];
      const bs = blocks(r.text).flatMap((b) => {
        const out = rand() < 0.3 ? [': ping'] : [];
        out.push(rand() < 0.5 ? `${pick(rand, extra)}\n${b}` : b);
        return out;
      });
      return { body: Buffer.from(joinBlocks(bs, r.text)), same: true };
    },
  },
  {
    // An event sent twice: a proxy that retries a write.
    name: 'duplicate',
    weight: 1,
    applies: (r) => r.stream && blocks(r.text).length > 0,
    apply(r, rand) {
      const bs = blocks(r.text);
      const i = int(rand, bs.length);
      bs.splice(i, 0, bs[i]);
      return { body: Buffer.from(joinBlocks(bs, r.text)), label: `event ${i + 1} twice` };
    },
  },
  {
    // A proxy that rewrites line ends to CRLF.
    name: 'crlf',
    weight: 1,
    applies: (r) => r.stream,
    apply: (r) => ({ body: Buffer.from(r.text.replace(/\r?\n/g, '\r\n')), same: true }),
  },
];

function cutAt(r: Reply, at: number) {
  const bytes = Buffer.from(r.text, 'utf8');
  const kept = bytes.subarray(0, at);
  return { body: kept, cutWhole: !r.stream && kept.toString('utf8').trim() !== r.text.trim(), label: `cut at byte ${at} of ${bytes.length}` };
}

/** An SSE event of a named type, its data repeating the name as `type` (Messages, Responses). */
const namedEvent = (type: string, o: Record<string, unknown>) => `event: ${type}\ndata: ${JSON.stringify({ type, ...o })}`;

/** A Messages or Responses stream ending as its API says one may; apiError says which of these a reader must fail. */
function apiEndStream(r: Reply, rand: Rand): { body: Buffer; label: string } {
  const bs = blocks(r.text);
  const end = bs.findIndex(isEnd);
  const at = int(rand, (end < 0 ? bs.length : end) + 1);
  const out = (label: string) => ({ body: Buffer.from(joinBlocks(bs, r.text)), label });
  const k = int(rand, 4);
  if (r.dialect === 'anthropic') {
    const delta = bs.findIndex((b) => typeOf(dataOf(b)) === 'message_delta');
    if (k === 0 && delta >= 0) {
      const reason = pick(rand, ['refusal', 'end_turn', 'max_tokens', 'pause_turn', 'model_context_window_exceeded', 'fuzz_reason', null]);
      bs[delta] = bs[delta].replace(/"stop_reason":(null|"[^"]*")/, `"stop_reason":${JSON.stringify(reason)}`);
      return out(`stop_reason ${reason}`);
    }
    if (k === 1) {
      bs.splice(at, 0, namedEvent('message_stop', {}));
      return out(`message_stop before event ${at + 1}`);
    }
    const type = pick(rand, ['overloaded_error', 'api_error', 'rate_limit_error']);
    bs.splice(at, 0, namedEvent('error', { error: { type, message: `${MARK}: ${type}` } }));
    return out(`error event (${type}) before event ${at + 1}`);
  }
  const failed = {
    object: 'response',
    status: 'failed',
    error: { code: 'server_error', message: API_MARK },
    incomplete_details: null,
    output: [],
    usage: null,
  };
  if (k === 0 || (k === 1 && end < 0)) {
    bs.splice(at, 0, namedEvent('response.failed', { response: failed }));
    return out(`response.failed before event ${at + 1}`);
  }
  if (k === 1) {
    // The end event's type, status and reason as a server may (or should not) pair them.
    const o = parsedObject(dataOf(bs[end])) ?? {};
    const type = pick(rand, [...RESPONSES_END]);
    const status = pick(rand, ['completed', 'incomplete', 'failed']);
    const reason = pick(rand, ['max_output_tokens', 'content_filter', API_MARK]);
    const response = { ...(obj(o.response) ?? {}), status, incomplete_details: status === 'incomplete' ? { reason } : null };
    bs[end] = namedEvent(type, { ...o, type, response });
    return out(`the end event as ${type}, status ${status}${status === 'incomplete' ? `, reason ${reason}` : ''}`);
  }
  // The API's error event, with its event: line (read as any error) or without it (a Responses event like the others).
  const named = k === 2;
  const data = JSON.stringify({ type: 'error', code: 'server_error', message: API_MARK, param: null });
  bs.splice(at, 0, named ? `event: error\ndata: ${data}` : `data: ${data}`);
  return out(`error event${named ? '' : ' without its event: line'} before event ${at + 1}`);
}

/** A whole Messages or Responses body ending as its API says one may. */
function apiEndWhole(r: Reply, rand: Rand): { body: Buffer; label: string } {
  if (r.dialect === 'anthropic') {
    const reason = pick(rand, ['refusal', 'end_turn', 'max_tokens', 'tool_use', 'fuzz_reason', null]);
    return { body: Buffer.from(r.text.replace(/"stop_reason":\s*(null|"[^"]*")/, `"stop_reason":${JSON.stringify(reason)}`)), label: `stop_reason ${reason}` };
  }
  const o = parsedObject(r.text);
  // Not a response (cut, or replaced by a fault before): left as it is.
  if (o === undefined) return { body: Buffer.from(r.text), label: 'not a response: unchanged' };
  const status = pick(rand, ['completed', 'incomplete', 'failed', 'in_progress']);
  const reason = pick(rand, ['max_output_tokens', 'content_filter']);
  const changed = { ...o, status, incomplete_details: status === 'incomplete' ? { reason } : null };
  if (status === 'failed' && rand() < 0.5) Object.assign(changed, { error: { code: 'server_error', message: API_MARK } });
  return { body: Buffer.from(JSON.stringify(changed)), label: `status ${status}${status === 'incomplete' ? `, reason ${reason}` : ''}` };
}

type Applied = ReturnType<(typeof MUTATIONS)[number]['apply']> & { name: string };

function applyOne(reply: Reply, rand: Rand): Applied {
  const usable = MUTATIONS.filter((m) => m.applies(reply));
  let w = rand() * usable.reduce((s, m) => s + m.weight, 0);
  const m = usable.find((x) => (w -= x.weight) < 0) ?? usable[usable.length - 1];
  return { ...m.apply(reply, rand), name: m.name };
}

function parses(json: string): boolean {
  try {
    JSON.parse(json);
    return true;
  } catch {
    return false;
  }
}

/** A JSON text cut after some of its commas and colons outside strings. */
function splitOutsideStrings(json: string, rand: Rand): string[] {
  const out: string[] = [];
  let from = 0;
  let inString = false;
  for (let i = 0; i < json.length; i++) {
    const ch = json[i];
    if (inString) {
      if (ch === '\\') i++;
      else if (ch === '"') inString = false;
    } else if (ch === '"') inString = true;
    else if ((ch === ',' || ch === ':') && rand() < 0.2) {
      out.push(json.slice(from, i + 1));
      from = i + 1;
    }
  }
  out.push(json.slice(from));
  return out;
}

function makeCase(replies: readonly Reply[], seed: number, index: number): Case {
  const rand = caseRng(seed, index);
  const reply = replies[index % replies.length];
  let out = applyOne(reply, rand);
  let name = out.name;
  if (rand() < 0.15) {
    // Two faults at once (counts reordered, then the stream cut): the second on what the first left.
    const first = out;
    const second = applyOne({ ...reply, text: first.body.toString('utf8'), status: first.status ?? reply.status }, rand);
    out = {
      ...second,
      status: second.status ?? first.status,
      contentType: second.contentType ?? first.contentType,
      cutWhole: (first.cutWhole ?? false) || (second.cutWhole ?? false),
      same: (first.same ?? false) && (second.same ?? false),
      sameFor: first.sameFor ?? second.sameFor,
      label: `${first.label ?? first.name}, then ${second.name}${second.label ? ` (${second.label})` : ''}`,
    };
    name = `two faults`;
  }
  const body = out.body;
  const cuts = Array.from({ length: int(rand, 6) }, () => int(rand, body.length + 1));
  const batches = Array.from({ length: 1 + int(rand, 3) }, () => pick(rand, [1, 2, 3, 7, 64, 1000]));
  const input: Input = {
    body,
    status: out.status ?? reply.status,
    contentType: out.contentType ?? (reply.stream ? 'text/event-stream' : 'application/json'),
    cuts,
    batches,
    cutWhole: out.cutWhole ?? false,
    same: out.same ?? false,
    sameFor: out.sameFor,
    think: rand() < 0.2,
  };
  return { index, reply, mutation: out.label ? `${name} (${out.label})` : name, input };
}

// --- the oracle: what a reply holds, read without the readers ------------------------------------

function dataOf(block: string): string {
  return block
    .split('\n')
    .filter((l) => l.startsWith('data:'))
    .map((l) => l.slice(l.startsWith('data: ') ? 6 : 5))
    .join('\n');
}

/** An event's data as a JSON object (undefined: not one); the oracle asks of each event several times, per dialect. */
const parsedCache = new Map<string, Record<string, unknown> | undefined>();
function parsedObject(data: string): Record<string, unknown> | undefined {
  if (parsedCache.has(data)) return parsedCache.get(data);
  let o: Record<string, unknown> | undefined;
  try {
    o = obj(JSON.parse(data));
  } catch {
    o = undefined;
  }
  if (parsedCache.size >= 4096) parsedCache.clear();
  parsedCache.set(data, o);
  return o;
}
function obj(v: unknown): Record<string, unknown> | undefined {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
}
const typeOf = (data: string): unknown => parsedObject(data)?.type;
/** Messages and Responses streams end on an event of their own, which their readers need. */
const ENDS: Partial<Record<DialectName, ReadonlySet<string>>> = { anthropic: ANTHROPIC_END, responses: RESPONSES_END };

/** An event after which the reader of `dialect` (of some dialect: undefined) reads no more. */
function endsFor(dialect: DialectName | undefined, data: string): boolean {
  if (data.trim() === '[DONE]') return true;
  const t = typeOf(data);
  if (typeof t !== 'string') return false;
  return dialect === undefined ? ANTHROPIC_END.has(t) || RESPONSES_END.has(t) : ENDS[dialect]?.has(t) === true;
}

/**
 * An event that completes a reply for the reader of `dialect` (of some dialect: undefined): [DONE],
 * a finish reason, llama.cpp's stop; for Messages and Responses only their end events.
 */
function completes(dialect: DialectName | undefined, data: string): boolean {
  if (endsFor(dialect, data)) return true;
  if (dialect !== undefined && ENDS[dialect] !== undefined) return false;
  const o = parsedObject(data);
  if (o === undefined) return false;
  if (o.stop === true) return true;
  const choice = Array.isArray(o.choices) ? (o.choices[0] as Record<string, unknown> | undefined) : undefined;
  if (choice && typeof choice === 'object' && typeof choice.finish_reason === 'string' && choice.finish_reason !== '') return true;
  const meta = o.meta_info as Record<string, unknown> | undefined;
  if (meta && typeof meta === 'object') {
    const fr = meta.finish_reason as unknown;
    if (typeof fr === 'string' || (fr !== null && typeof fr === 'object' && typeof (fr as Record<string, unknown>).type === 'string')) return true;
  }
  return false;
}

/**
 * An error the reader of `dialect` must report, in an event or a whole body: an injected one, any
 * error object (every reader reads one), and the errors as the dialect's API words them: a refusal
 * (Messages), response.failed, an error event, a response incomplete other than at
 * max_output_tokens, a whole response neither completed nor cut at its budget (Responses).
 */
function apiError(dialect: DialectName, data: string): boolean {
  if (data.includes(MARK)) return true;
  const o = parsedObject(data);
  if (o === undefined) return false;
  if (o.error !== undefined && o.error !== null) return true;
  if (dialect === 'anthropic') return (o.type === 'message_delta' ? obj(o.delta)?.stop_reason : o.type === 'message' ? o.stop_reason : undefined) === 'refusal';
  if (dialect !== 'responses') return false;
  if (o.type === 'error' || o.type === 'response.failed') return true;
  const whole = o.object === 'response';
  const resp = whole ? o : typeof o.type === 'string' && RESPONSES_END.has(o.type) ? obj(o.response) : undefined;
  if (resp === undefined) return false;
  const budget = resp.status === 'incomplete' && obj(resp.incomplete_details)?.reason === 'max_output_tokens';
  if (whole) return !(resp.status === 'completed' || budget);
  return resp.status === 'failed' || (resp.status === 'incomplete' && !budget);
}

/** The largest completion count the reply states anywhere (0 when none). */
function largestCount(text: string): number {
  let max = 0;
  for (const m of text.matchAll(COUNT_RE)) if (COMPLETION_COUNTS.has(m[1]) && Number(m[2]) > max) max = Number(m[2]);
  return max;
}

// --- the properties -------------------------------------------------------------------------------

interface Violation {
  property: string;
  detail: string;
}

/** What the paths must agree on: everything the result says, its error's class and message included. */
function view(r: GenerationResult): Record<string, unknown> {
  return { ...r, text: r.text };
}

const isStreamType = (ct: string) => ct.includes('text/event-stream');
const ok2xx = (s: number) => s >= 200 && s < 300;

const framed = new Map<string, string[]>();
const replyEvents = (r: Reply): string[] => framed.get(r.name) ?? framed.set(r.name, sseEvents(r.text)).get(r.name)!;

/** The unmutated reply's reading, per dialect and THINK_TAGS. */
const baseline = new Map<string, GenerationResult>();
function baselineOf(reply: Reply, dialect: DialectName, ctx: typeof CTX): GenerationResult {
  const key = `${reply.name} ${dialect} ${ctx.thinkTags === true}`;
  let b = baseline.get(key);
  if (b === undefined) {
    b = createDialect(dialect, ctx).parseBody(reply.status, reply.text, reply.stream ? 'text/event-stream' : 'application/json');
    baseline.set(key, b);
  }
  return b;
}

function check(dialect: DialectName, c: Case, input: Input): Violation | null {
  const text = new TextDecoder().decode(input.body);
  const ctx = input.think ? { ...CTX, thinkTags: true } : CTX;
  const reads: Array<[string, GenerationResult]> = [];
  const streams: Array<[string, StreamRead]> = [];
  try {
    reads.push(['whole body', createDialect(dialect, ctx).parseBody(input.status, text, input.contentType)]);
    // Over sse a non-2xx has no body (the transport fetches it over http, the path above).
    if (ok2xx(input.status) && isStreamType(input.contentType)) {
      const events = sseEvents(input.body, input.cuts);
      streams.push(['one event at a time', oneByOne(dialect, events, ctx)]);
      streams.push([`in batches of ${input.batches.join(',')}`, batched(dialect, events, input.batches, undefined, ctx)]);
      const before = replyEvents(c.reply);
      streams.push([`in batches of ${input.batches.join(',')}, after the unmutated reply`, batched(dialect, events, input.batches, before, ctx)]);
    }
  } catch (e) {
    return { property: 'never throws', detail: (e as Error).stack ?? String(e) };
  }
  for (const [p, s] of streams) reads.push([p, s.result]);

  const events = sseEvents(input.body);
  // The reader reads up to its end event (no further when that event holds an error).
  const upToEnd = events.slice(0, events.findIndex((e) => endsFor(dialect, e)) + 1 || events.length);
  const injected = isStreamType(input.contentType) ? upToEnd.some((e) => apiError(dialect, e)) : apiError(dialect, text);
  const completed = isStreamType(input.contentType) ? events.some((e) => completes(dialect, e)) : !input.cutWhole;
  // The counts as the readers get them (an event's data lines joined).
  const bound = largestCount(isStreamType(input.contentType) ? events.join('\n') : text);
  for (const [p, r] of reads) {
    if (r.ok && !completed) return { property: 'a reply without its completion is never ok', detail: `${p}: ok` };
    if (r.ok && injected) return { property: 'an injected error is never ok', detail: `${p}: ok` };
    for (const [k, v] of [
      ['completionTokens', r.completionTokens],
      ['promptTokens', r.promptTokens],
      ['cachedTokens', r.cachedTokens],
      ['reasoning.tokens', r.reasoning?.tokens ?? null],
    ] as const) {
      if (v !== null && !(v >= 0)) return { property: 'token counts are never negative', detail: `${p}: ${k} ${v}` };
    }
    if (r.completionTokens !== null && r.completionTokens > bound + r.tokenEvents) {
      return { property: 'token counts stay within what was sent', detail: `${p}: completionTokens ${r.completionTokens} > ${bound} + ${r.tokenEvents}` };
    }
  }
  for (const [p, s] of streams) {
    const neg = s.tokens.find((t) => t < 0);
    if (neg !== undefined) return { property: 'token counts are never negative', detail: `${p}: an event of ${neg} tokens (${s.tokens.join(' ')})` };
    const sum = s.tokens.reduce((a, t) => (Number.isNaN(t) ? a : a + t), 0);
    if (sum > bound + s.tokens.length)
      return { property: 'token counts stay within what was sent', detail: `${p}: events carry ${sum} tokens > ${bound} + ${s.tokens.length}` };
  }
  // Whole and event by event agree (the sse paths only where the transport reads the body as a stream).
  const [w0, ...rest] = reads;
  for (const [p, r] of rest) {
    try {
      assert.deepEqual(view(r), view(w0[1]));
    } catch {
      return { property: 'the whole body and its events read the same', detail: `${w0[0]} ${JSON.stringify(view(w0[1]))}\n${p} ${JSON.stringify(view(r))}` };
    }
  }
  for (let i = 1; i < streams.length; i++) {
    const a = streams[0][1].tokens;
    const b = streams[i][1].tokens;
    if (a.length !== b.length || a.some((t, j) => !Object.is(t, b[j]))) {
      return {
        property: 'the whole body and its events read the same',
        detail: `token events ${streams[0][0]}: ${a.join(' ')}; ${streams[i][0]}: ${b.join(' ')}`,
      };
    }
  }
  if (input.same && (input.sameFor === undefined || input.sameFor === dialect)) {
    const b = baselineOf(c.reply, dialect, ctx);
    try {
      assert.deepEqual(view(w0[1]), view(b));
    } catch {
      return {
        property: 'a mutation that keeps the content reads as the reply did',
        detail: `reply ${JSON.stringify(view(b))}\nmutated ${JSON.stringify(view(w0[1]))}`,
      };
    }
  }
  if (streams.length > 0 && c.reply.stream && ok2xx(c.reply.status)) {
    // What a bad reply left the dialect (the template it learned) does not change how its next reply reads.
    let next: GenerationResult;
    try {
      next = batched(dialect, replyEvents(c.reply), [64], sseEvents(input.body, input.cuts), ctx).result;
    } catch (e) {
      return { property: 'never throws', detail: `the reply after this one: ${(e as Error).stack ?? String(e)}` };
    }
    const b = baselineOf(c.reply, dialect, ctx);
    try {
      assert.deepEqual(view(next), view(b));
    } catch {
      return { property: 'the next reply reads as it would have', detail: `alone ${JSON.stringify(view(b))}\nafter this one ${JSON.stringify(view(next))}` };
    }
  }
  return null;
}

/**
 * The smallest failing input found: the reads left whole and in batches of 64, then events
 * dropped one at a time, while the same property still fails.
 */
function shrink(dialect: DialectName, c: Case, v: Violation): { input: Input; violation: Violation } {
  let input = c.input;
  let violation = v;
  const still = (i: Input) => {
    const w = check(dialect, c, i);
    return w !== null && w.property === v.property ? w : null;
  };
  const plain = { ...input, cuts: [], batches: [64] };
  const p = still(plain);
  if (p) [input, violation] = [plain, p];
  // Dropping events changes the reply itself: no use where the property compares with it.
  if (!isStreamType(input.contentType) || input.same) return { input, violation };
  let bs = input.body.toString('utf8').split(/(?<=\n\n)/);
  for (let i = bs.length - 1; i >= 0; i--) {
    const fewer = [...bs.slice(0, i), ...bs.slice(i + 1)];
    const t = { ...input, body: Buffer.from(fewer.join('')) };
    const w = still(t);
    if (w) [input, violation, bs] = [t, w, fewer];
  }
  return { input, violation };
}

// --- the run --------------------------------------------------------------------------------------

const FUZZED = DIALECT_NAMES;
const REPLIES = loadReplies();

test(
  `fuzz: ${ONLY === null ? CASES.toLocaleString('en') : `case ${ONLY} of`} mutated replies (seed ${SEED}) through the ${FUZZED.join(', ')} ` +
    `readers on every path`,
  () => {
    assert.ok(REPLIES.length >= 80, `${REPLIES.length} replies`);
    const failures = new Map<string, string>();
    const counts = new Map<string, number>();
    const t0 = Date.now();
    const from = ONLY ?? 0;
    const to = ONLY === null ? CASES : ONLY + 1;
    /** Reads a case through every dialect; a failure is kept (with its smallest input) once per property, mutation and dialect. */
    const run = (c: Case, kind: string, replay: string) => {
      // The reply's own dialect first: the others read it as a misconfigured variant would.
      for (const d of [c.reply.dialect, ...FUZZED.filter((x) => x !== c.reply.dialect)]) {
        const v = check(d, c, c.input);
        if (v === null) continue;
        const key = `${v.property} / ${kind} / ${d}`;
        if (failures.has(key)) return;
        const s = shrink(d, c, v);
        failures.set(
          key,
          [
            `${v.property}: ${replay}, ${c.reply.name} read as ${d}${c.input.think ? ' with THINK_TAGS' : ''}, mutation ${c.mutation}`,
            `  ${s.violation.detail.replace(/\n/g, '\n  ')}`,
            `  smallest input: status ${s.input.status}, ${s.input.contentType}, reads ending at ${JSON.stringify(s.input.cuts)}, ` +
              `batches ${JSON.stringify(s.input.batches)}:`,
            `  ${JSON.stringify(s.input.body.toString('utf8'))}`,
          ].join('\n'),
        );
        return;
      }
    };
    for (let i = from; i < to; i++) {
      const c = makeCase(REPLIES, SEED, i);
      const kind = c.mutation.startsWith('two faults') ? 'two faults' : c.mutation.split(' ')[0];
      counts.set(kind, (counts.get(kind) ?? 0) + 1);
      run(c, kind, `FUZZ_SEED=${SEED} FUZZ_CASE=${i}`);
    }
    if (EVERY_BYTE) {
      // Every reply cut at every byte, read whole and as its events arrive.
      for (const reply of REPLIES) {
        for (let at = 0; at < Buffer.byteLength(reply.text); at++) {
          const cut = cutAt(reply, at);
          const input: Input = {
            ...cut,
            status: reply.status,
            contentType: reply.stream ? 'text/event-stream' : 'application/json',
            cuts: [],
            batches: [64],
            same: false,
            think: false,
          };
          run({ index: -1, reply, mutation: `cut (${cut.label})`, input }, 'every byte', `FUZZ_EVERY_BYTE=1 (cut at byte ${at})`);
          counts.set('every byte', (counts.get('every byte') ?? 0) + 1);
        }
      }
    }
    const ms = Date.now() - t0;
    console.log(
      `fuzz: ${to - from + (counts.get('every byte') ?? 0)} cases in ${ms} ms (seed ${SEED}); ${[...counts].map(([k, n]) => `${k} ${n}`).join(', ')}`,
    );
    // Every mutation drawn in a run of the default size (a small FUZZ_CASES may miss the rarest).
    if (ONLY === null && CASES >= 5000) for (const m of MUTATIONS) assert.ok((counts.get(m.name) ?? 0) > 0, `mutation ${m.name} never drawn`);
    assert.equal(failures.size, 0, `\n${[...failures.values()].join('\n\n')}`);
  },
);
