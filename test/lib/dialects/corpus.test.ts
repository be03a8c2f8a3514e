// Every reply in the captured corpus (test/fixtures/corpus: real servers' replies, each with its
// source) read on every path the suite has: the http transport's whole body, the sse transport one
// event at a time and in batches (as xk6-sse hands events over, `error:` lines and `event: error`
// included), and a second time through a warm chunk template. Each must give what the server
// itself said: no reported error read as a success, the class, the finish reason and token counts.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createDialect, type DialectName, type GenerationResult } from '../../../lib/dialects/index';
import { batched, CTX as ctx, oneByOne, sseEvents, warm } from './read-paths';
import { identify, type Probe } from '../../../lib/preflight/diagnose';
import { ENGINES, engineById, engineOfMetrics } from '../../../lib/engines/index';

const DIR = join(__dirname, '..', '..', 'fixtures', 'corpus');

interface Entry {
  file: string;
  server: string;
  version: string;
  source: string;
  captured: boolean;
  kind: string;
  route?: string;
  dialect?: DialectName;
  status?: number;
  stream?: boolean;
  expect?: {
    ok: boolean;
    class: string | null;
    finish_reason: string | null;
    completion_tokens: number | null;
    prompt_tokens: number | null;
    /** vLLM's per-request speculative counts (metrics.speculative_decoding), where the reply has them. */
    spec_steps?: { steps: number; accepted: number; drafted: number | null; histogram: number[] | null };
  };
}

/** Servers of a manifest entry that are an API's documentation, not an engine. */
const API_DOCS = ['anthropic-api', 'openai-api'];
const MANIFEST = JSON.parse(readFileSync(join(DIR, 'manifest.json'), 'utf8')) as Entry[];
const read = (e: Entry) => readFileSync(join(DIR, e.file), 'utf8');

function check(e: Entry, r: GenerationResult, path: string): void {
  const x = e.expect!;
  const where = `${e.file} (${path})`;
  assert.equal(r.ok, x.ok, `${where}: ok — ${r.error?.message ?? ''}`);
  assert.equal(r.error?.class ?? null, x.class, `${where}: class — ${r.error?.message ?? ''}`);
  if (x.ok) assert.equal(r.finishReason, x.finish_reason, `${where}: finish reason`);
  if (x.completion_tokens !== null) assert.equal(r.completionTokens, x.completion_tokens, `${where}: completion tokens`);
  if (x.prompt_tokens !== null) assert.equal(r.promptTokens, x.prompt_tokens, `${where}: prompt tokens`);
  assert.deepEqual(r.specSteps ?? null, x.spec_steps ?? null, `${where}: per-request speculative counts`);
}

test('the Messages and Responses dialects: at least 8 replies each, with success, reasoning and every error shape', () => {
  for (const dialect of ['anthropic', 'responses'] as const) {
    const own = MANIFEST.filter((e) => e.dialect === dialect);
    assert.ok(own.length >= 8, `${dialect}: ${own.length} replies`);
    const classes = new Set(own.map((e) => e.expect?.class ?? 'ok'));
    for (const c of ['ok', 'truncated', 'stream_error', 'auth', 'context_length']) assert.ok(classes.has(c), `${dialect}: a reply read as ${c}`);
    assert.ok(
      own.some((e) => /reasoning|thinking/.test(e.file)),
      `${dialect}: a reply with reasoning`,
    );
  }
});

test('the corpus: at least 40 replies, every one with its source, server version and whether it was captured', () => {
  const generation = MANIFEST.filter((e) => e.kind === 'generation');
  assert.ok(generation.length >= 40, `${generation.length} generation replies`);
  for (const e of MANIFEST) {
    assert.ok(e.source && e.version && typeof e.captured === 'boolean', `${e.file}: source, version, captured`);
    // An API's own documentation (Anthropic's, OpenAI's) is a source of error shapes no self-hosted server was seen sending.
    if (API_DOCS.includes(e.server)) assert.equal(e.captured, false, `${e.file}: a documentation example is not a capture`);
    else assert.ok(engineById(e.server) !== null, `${e.file}: ${e.server} has a profile`);
    read(e);
  }
  for (const p of ENGINES)
    assert.ok(
      MANIFEST.some((e) => e.server === p.id),
      `${p.label} has captured replies`,
    );
});

describe('every generation reply, on every path', () => {
  for (const e of MANIFEST.filter((x) => x.kind === 'generation')) {
    test(`${e.file}: ${e.expect?.class ?? 'ok'}`, () => {
      const body = read(e);
      const dialect = e.dialect as DialectName;
      const status = e.status ?? 200;
      const contentType = e.stream ? 'text/event-stream' : 'application/json';
      check(e, createDialect(dialect, ctx).parseBody(status, body, contentType), 'http body');
      // Over sse a non-2xx has no body; the transport fetches it once over http (the path above).
      if (!e.stream || status < 200 || status >= 300) return;
      const events = sseEvents(body);
      check(e, oneByOne(dialect, events).result, 'sse, one event at a time');
      check(e, batched(dialect, events).result, 'sse, in batches');
      check(e, batched(dialect, events, [2]).result, 'sse, in batches of 2');
      check(e, warm(dialect, events), 'sse, warm template');
    });
  }
});

describe('every identity reply names its server', () => {
  const probe = (route: string, status: number, body: string): Probe => ({ route, status, body, error: '' });
  const none = (route: string) => probe(route, 404, '{"detail":"Not Found"}');
  for (const e of MANIFEST.filter((x) => x.kind !== 'generation')) {
    test(`${e.file} (${e.kind})`, () => {
      const body = read(e);
      if (e.kind === 'metrics') {
        const profile = engineById(e.server);
        assert.equal(engineOfMetrics(body)?.id ?? null, profile?.metrics ? profile.id : null, 'the /metrics page is read by its own profile, or by none');
        return;
      }
      if (!['models', 'props', 'info'].includes(e.kind)) {
        // Kept for the record (GET /version, SGLang's /get_server_info): preflight does not need them to tell the server.
        assert.ok(JSON.parse(body) !== null);
        return;
      }
      // As preflight sees it: the server's model list (or a 404 when this reply is the only one) and
      // the GETs its profile asks for (/props, /info), from the same server's captured replies.
      const own = (kind: string) => MANIFEST.find((x) => x.server === e.server && x.kind === kind);
      const list = e.kind === 'models' ? e : e.kind === 'info' ? undefined : own('models');
      const models = list ? probe('GET /v1/models', 200, read(list)) : none('GET /v1/models');
      const extra = ['props', 'info']
        .map((k) => (k === e.kind ? e : own(k)))
        .filter((x): x is Entry => x !== undefined)
        .map((x) => probe(`GET ${x.route ?? `/${x.kind}`}`, 200, read(x)));
      const id = identify(none('GET /get_model_info'), models, extra);
      assert.equal(id.engine, e.server, `${e.file}: ${id.engineLabel} (${id.evidence})`);
    });
  }
});
