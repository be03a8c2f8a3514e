// A dialect the suite does not ship, added as a new one is: one module (here inline) exporting its
// descriptor, and one entry in the dialect table (registerDialect, as DIALECTS lists the built-in
// ones). From that alone DIALECT accepts it, its name, help, traits and key headers are known, the
// docs' tables and the `dialect` tag's help list it, preflight speaks it to a server and its replies are read, whole and streamed.
// One Node process per test file (test/run.mjs): the entry stays in this file's table only.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  authHeaders,
  createDialect,
  defineDialect,
  dialectHelp,
  DIALECT_NAMES,
  DIALECT_TRAITS,
  DIALECTS,
  isDialectName,
  registerDialect,
  type DialectName,
} from '../../../lib/dialects/index';
import { Accumulator, num, type ChunkReader, type ChunkUpdate } from '../../../lib/reading';
import { parseReply } from '../../../lib/reading';
import { VARIABLES } from '../../../lib/config/variables';
import { TAGS } from '../../../lib/metrics/catalog';
import { loadConfig } from '../../../lib/config/load';
import { BENCHMARKS } from '../../../lib/benchmarks';
import { preflightVariant } from '../../../lib/preflight/run';
import type { BatchPort, HttpReply } from '../../../lib/http-port';
import { dialectsTable, offeredTable } from '../../../scripts/docs';

// --- The module: POST /acme/generate, {input, limit, stream}; replies {delta | text, used: {in, out}, end}.
const acmeReader = (): ChunkReader => ({
  read(chunk: Record<string, unknown>): ChunkUpdate {
    const u: ChunkUpdate = { carriesToken: false };
    const text = typeof chunk.delta === 'string' ? chunk.delta : typeof chunk.text === 'string' ? chunk.text : '';
    if (text !== '') {
      u.textDelta = text;
      u.carriesToken = true;
    }
    const used = chunk.used as Record<string, unknown> | undefined;
    if (used) {
      u.promptTokens = num(used.in);
      u.completionTokens = num(used.out);
    }
    if (typeof chunk.end === 'string') u.finishReason = chunk.end;
    return u;
  },
});

const acme = defineDialect({
  name: 'acme',
  path: '/acme/generate',
  api: 'Acme Generate',
  traits: { chat: false, tokenIds: false, needsModel: false },
  docs: { prompt: '`input` (text)', budget: '`limit`', counts: '`used.in`, `used.out`' },
  keyHeaders: (key): Record<string, string> => (key ? { 'x-acme-key': key } : {}),
  create: (ctx) => ({
    build: (req) => ({
      method: 'POST',
      path: '/acme/generate',
      body: JSON.stringify({ input: req.prompt.kind === 'text' ? req.prompt.text : '', limit: req.maxTokens, stream: req.stream }),
    }),
    parseBody: (status, body, contentType) => parseReply(acmeReader(), ctx, status, body, contentType),
    streamReader: () => new Accumulator(acmeReader(), ctx, 200),
  }),
});

// --- The entry.
registerDialect(acme);
const ACME = 'acme' as DialectName;

const WHOLE = '{"text":"Hello there","used":{"in":5,"out":2},"end":"length"}';
const STREAM = ['{"delta":"Hello"}', '{"delta":" there"}', '{"used":{"in":5,"out":2},"end":"length"}', '[DONE]'];
const ctx = { dialectVar: 'DIALECT', modelVar: 'MODEL' };

test('its name, traits and help come from the one entry', () => {
  assert.equal(DIALECTS.at(-1), acme);
  assert.ok(DIALECT_NAMES.includes(ACME) && isDialectName('acme'));
  assert.deepEqual(DIALECT_TRAITS[ACME], { chat: false, tokenIds: false, needsModel: false });
  assert.match(dialectHelp(), /responses \(OpenAI Responses, POST \/v1\/responses\), acme \(Acme Generate, POST \/acme\/generate\) or auto/);
  assert.equal(VARIABLES.find((v) => v.name === 'DIALECT')?.help, dialectHelp());
  assert.match(TAGS.dialect, /anthropic, responses or acme\.$/);
  assert.deepEqual(authHeaders(ACME, 'k'), { 'x-acme-key': 'k', Authorization: 'Bearer k' });
  assert.throws(() => registerDialect(acme), /already in the table/);
});

test('the docs tables list it', () => {
  assert.ok(dialectsTable().includes('| `acme` | `POST /acme/generate` (Acme Generate) | `input` (text) | `limit` | `used.in`, `used.out` |'));
  assert.ok(offeredTable().includes(`| \`acme\` |${' — |'.repeat(8)}`), 'offered by no built-in server');
});

test('it builds its request and reads a reply, whole and streamed', () => {
  const d = createDialect(ACME, ctx);
  assert.deepEqual([d.name, d.path, d.acceptsTokenIds], ['acme', '/acme/generate', false]);
  const wire = d.build({ prompt: { kind: 'text', text: 'hi' }, maxTokens: 2, ignoreEos: true, temperature: 0, stream: true });
  assert.deepEqual(wire, { method: 'POST', path: '/acme/generate', body: '{"input":"hi","limit":2,"stream":true}' });

  const whole = d.parseBody(200, WHOLE, 'application/json');
  assert.deepEqual([whole.ok, whole.text, whole.promptTokens, whole.completionTokens, whole.finishReason], [true, 'Hello there', 5, 2, 'length']);
  const sse = d.parseBody(200, STREAM.map((e) => `data: ${e}\n\n`).join(''), 'text/event-stream');
  assert.deepEqual([sse.ok, sse.text, sse.completionTokens, sse.tokenEvents], [true, 'Hello there', 2, 2]);

  const r = d.streamReader();
  for (const e of STREAM) r.onData(e);
  const streamed = r.finish();
  assert.deepEqual([streamed.ok, streamed.text, streamed.completionTokens, streamed.tokenEvents], [true, 'Hello there', 2, 2]);

  const err = d.parseBody(404, '{"error":"no such route"}', 'application/json');
  assert.equal(err.error?.class, 'wrong_dialect');
  assert.match(err.error?.message ?? '', /POST \/acme\/generate/);
});

test('DIALECT=acme: loaded, and preflight speaks it to the server', () => {
  const sent: string[] = [];
  let clock = 0;
  const reply = (status: number, body: string): HttpReply => ({ status, body, contentType: 'application/json', error: '', errorCode: 0 });
  const port: BatchPort = {
    batch: (reqs) => reqs.map((r) => port.post(r.url, r.body ?? '', r.req)),
    now: () => clock,
    sleep: (ms) => void (clock += ms),
    get: (url) => {
      clock += 5;
      return url.endsWith('/v1/models') ? reply(200, '{"object":"list","data":[{"id":"acme-1","object":"model","owned_by":"acme"}]}') : reply(404, '');
    },
    post: (url, body, o) => {
      clock += 5;
      sent.push(`${url.replace(/^https?:\/\/[^/]+/, '')} ${body} ${JSON.stringify(o.headers)}`);
      return url.endsWith('/acme/generate') ? reply(200, WHOLE) : reply(404, '');
    },
  };
  const c = loadConfig(
    BENCHMARKS.smoke,
    { TARGET_URL: 'http://acme:1', DIALECT: 'acme', API_KEY: 'k', ISL: '64', OSL: '16', WARMUP_REQUESTS: '0', SERVER_METRICS: 'off' },
    new Date(0),
  );
  assert.equal(c.variants[0].dialect, 'acme');
  const { info } = preflightVariant(port, c, c.variants[0]);
  assert.equal(info.dialect, 'acme');
  // Beside it, the other layers' probes (the OpenAI routes this OpenAI-compatible server offers).
  const acme = sent.filter((s) => s.startsWith('/acme/generate'));
  assert.equal(acme.length, 1);
  assert.match(acme[0], /^\/acme\/generate \{"input":".+","limit":1,"stream":false\} .*"x-acme-key":"k".*"Authorization":"Bearer k"/);
});
