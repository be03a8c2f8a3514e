// The bundles against two real llama.cpp servers (test/real-engine/servers.ts: `spec` drafts with
// a small model, `plain` does not), on real k6.
// The suite's figures are checked against the engine's own accounting, taken around each k6 run:
//
// - /metrics (scraped just before and just after the run): llama.cpp's counters grow when a
//   request finishes, by that request's own counts. Over a run that is the measured requests plus
//   the preflight's. With WARMUP_REQUESTS=w the preflight sends, when healthy (no retry),
//   exactly: the one-token check (an 8-token prompt, 1 output token), beside it one probe of each
//   other layer llama.cpp offers (1 output token; 8 prompt tokens on a prompt route, on the chat
//   route c, its answer's usage, through the proxy), and, if w ≥ 1, warm-up 1 (the longest prompt,
//   1 output token). Requests that generate one token never draft. Hence, per server, with n
//   probes of other layers:
//     Δ tokens_predicted_total                            = suite output_tokens + 1 + n + min(w, 1)
//     Δ (prompt_tokens_total + prompt_tokens_cached_total) = suite input_tokens + 8 + (probes' prompts) + 64·min(w, 1)
//     Δ spec_decode_num_draft_tokens_total                = suite draft_tokens
//     Δ spec_decode_num_accepted_tokens_total             = suite draft_accepted_tokens
//   (w ≤ 1 here; warm-up 2 would add 16 more tokens, drafted.) A prompt found in the slot's cache
//   moves tokens from prompt_tokens to prompt_tokens_cached, never out of their sum.
// - the server's log (--log-file, one per server): llama.cpp prints each finished request's
//   timings (prompt eval ms and tokens, eval ms and tokens, total ms; with a draft model, accepted
//   and generated draft tokens). /metrics has no request counter (n_decode_total counts
//   llama_decode() calls, not requests), so these records count requests:
//   the measured ones are those that generated OSL tokens (preflight requests generate 1), and
//   the others must be exactly the preflight's. Their timings are what the client's latencies
//   must contain: a request's TTFT covers its prompt evaluation (the first token is sampled right
//   after it), and its e2e covers prompt + generation (the log's total time), plus transport.
//   At CONCURRENCY=1 nothing queues, so the client's means sit above the server's by little.
// - the window figures the suite takes from /metrics (for llama.cpp: the acceptance length
//   1 + Δaccepted/Δdrafts and the generation time per token Δtokens_predicted_seconds/Δtokens)
//   come from two scrapes of its own, at the steady window's ends. The bundles reach each server
//   through a recording proxy here, so those two very pages are known and the figures can be
//   recomputed exactly (the per-request sums above are over the whole run, the window's over the
//   requests that finished inside it: the two acceptance figures differ).
// test-runner: alone (llama.cpp uses both cores; its timings are checked against the server's own)
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { explain, RUNNERS, type Run } from '../scenarios/harness';
import { llamaUnavailableReason, prepareLlama, startLlamaServer, type LlamaServer } from './servers';
import { DIALECT_TRAITS, type DialectName } from '../../lib/dialects/index';
import { engineById } from '../../lib/engines/index';
import { stallProbeDialects } from '../../lib/preflight/diagnose';

const ISL = 64;
const OSL = 32;
const PROBE_PROMPT = 8; // tokens of the preflight's one-token check (lib/preflight/run.ts)
// A request takes about 1 s (c=1) or 2 s (c=2) here. k6 reserves GRACEFUL_STOP after each A/B
// cell, so it is kept short; a request it cut would fail the accounting checks, saying so.
const GRACE = '6s';

// --- what the engine says -------------------------------------------------------------------

type Counters = Record<string, number>;

async function scrape(url: string): Promise<Counters> {
  const res = await fetch(`${url}/metrics`, { signal: AbortSignal.timeout(5_000) });
  assert.equal(res.status, 200, `GET ${url}/metrics`);
  return counters(await res.text());
}

/** The unlabelled llamacpp: counters and gauges of a /metrics page, by name without the prefix. */
function counters(page: string): Counters {
  const out: Counters = {};
  for (const line of page.split('\n')) {
    const m = /^llamacpp:(\w+) (\S+)$/.exec(line);
    if (m) out[m[1]] = Number(m[2]);
  }
  return out;
}

/** What the bundles see of a server: every request forwarded as it is, /metrics pages and chat usage kept. */
interface Proxy {
  url: string;
  /** The 200 answers to GET /metrics since the last reset, with the proxy's clock. */
  scrapes: Array<{ atMs: number; page: string }>;
  /**
   * The prompt tokens of each whole (non-streamed) 200 answer to POST /v1/chat/completions since the
   * last reset, from its usage: a chat prompt's templated length is the server's to say.
   */
  chatPrompts: number[];
  close(): Promise<void>;
}

// Connections: the client's are kept as long as it likes (k6 reuses them, and a connection the
// proxy closed under it would lose a POST); each request goes upstream on a fresh connection, so
// none is reused just as llama-server closes it.
function recordingProxy(upstream: string): Promise<Proxy> {
  const up = new URL(upstream);
  const scrapes: Proxy['scrapes'] = [];
  const chatPrompts: number[] = [];
  const server = createServer({ keepAliveTimeout: 600_000 }, (req, res) => {
    const headers = { ...req.headers };
    delete headers.connection;
    delete headers['keep-alive'];
    const fwd = request({ host: up.hostname, port: up.port, path: req.url, method: req.method, headers, agent: false }, (ur) => {
      res.writeHead(ur.statusCode ?? 502, ur.headers);
      if (req.method === 'GET' && req.url === '/metrics' && ur.statusCode === 200) {
        const chunks: Buffer[] = [];
        ur.on('data', (c: Buffer) => chunks.push(c));
        ur.on('end', () => scrapes.push({ atMs: Date.now(), page: Buffer.concat(chunks).toString('utf8') }));
      }
      if (req.method === 'POST' && req.url === '/v1/chat/completions' && ur.statusCode === 200 && /json/.test(ur.headers['content-type'] ?? '')) {
        const chunks: Buffer[] = [];
        ur.on('data', (c: Buffer) => chunks.push(c));
        ur.on('end', () => {
          let n = NaN; // an answer without usage: the accounting check says so
          try {
            n = (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { usage?: { prompt_tokens?: number } }).usage?.prompt_tokens ?? NaN;
          } catch {
            // not JSON after all: NaN
          }
          chatPrompts.push(n);
        });
      }
      ur.pipe(res);
    });
    fwd.on('error', () => res.destroy());
    // A client that goes away (a stream closed early) takes the upstream request with it.
    res.on('close', () => {
      if (!res.writableFinished) fwd.destroy();
    });
    req.pipe(fwd);
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const port = (server.address() as AddressInfo).port;
      resolve({
        url: `http://127.0.0.1:${port}`,
        scrapes,
        chatPrompts,
        close: () =>
          new Promise<void>((r) => {
            server.closeAllConnections();
            server.close(() => r());
          }),
      });
    });
  });
}

function delta(a: Counters, b: Counters, name: string): number {
  assert.ok(name in a && name in b, `llamacpp:${name} missing from /metrics`);
  return b[name] - a[name];
}

/** One finished request, from the print_timing lines llama-server logs. */
interface Timing {
  task: number;
  promptMs: number;
  promptTokens: number;
  evalMs: number;
  evalTokens: number;
  totalMs: number;
  draftAccepted: number;
  draftGenerated: number;
}

const F = '([\\d.]+)';
const PROMPT = new RegExp(`task (\\d+) \\| prompt eval time = +${F} ms / +(\\d+) tokens`);
const EVAL = new RegExp(`task (\\d+) \\| +eval time = +${F} ms / +(\\d+) tokens`);
const TOTAL = new RegExp(`task (\\d+) \\| +total time = +${F} ms`);
const DRAFT = new RegExp(`task (\\d+) \\| draft acceptance = +${F} \\( *(\\d+) accepted / *(\\d+) generated\\), mean len = +${F}`);

/** A server's log file: where it is on the host, and the records written after a mark. */
class ServerLog {
  constructor(readonly hostPath: string) {}

  mark(): number {
    return existsSync(this.hostPath) ? statSync(this.hostPath).size : 0;
  }

  /** Records written since `from`, once the file has stopped growing (the log is written by a thread). */
  async since(from: number): Promise<Timing[]> {
    let size = -1;
    for (let i = 0; i < 20 && size !== this.mark(); i++) {
      size = this.mark();
      await new Promise((r) => setTimeout(r, 150));
    }
    const text = readFileSync(this.hostPath).subarray(from).toString('utf8');
    const byTask = new Map<number, Partial<Timing>>();
    const rec = (task: string) => {
      const id = Number(task);
      let t = byTask.get(id);
      if (!t) byTask.set(id, (t = { task: id, draftAccepted: 0, draftGenerated: 0 }));
      return t;
    };
    for (const line of text.split('\n')) {
      if (!line.includes('print_timing')) continue;
      let m: RegExpExecArray | null;
      if ((m = PROMPT.exec(line))) Object.assign(rec(m[1]), { promptMs: +m[2], promptTokens: +m[3] });
      else if ((m = EVAL.exec(line))) Object.assign(rec(m[1]), { evalMs: +m[2], evalTokens: +m[3] });
      else if ((m = TOTAL.exec(line))) Object.assign(rec(m[1]), { totalMs: +m[2] });
      else if ((m = DRAFT.exec(line))) Object.assign(rec(m[1]), { draftAccepted: +m[3], draftGenerated: +m[4] });
    }
    const out = [...byTask.values()];
    for (const t of out)
      assert.ok(
        t.totalMs !== undefined && t.evalTokens !== undefined && t.promptTokens !== undefined,
        `incomplete timing record in the log: ${JSON.stringify(t)}`,
      );
    return out as Timing[];
  }
}

interface Engine {
  name: string;
  server: LlamaServer;
  log: ServerLog;
  proxy: Proxy;
}

interface Before {
  counters: Counters;
  logAt: number;
}

async function mark(e: Engine): Promise<Before> {
  e.proxy.scrapes.length = 0;
  e.proxy.chatPrompts.length = 0;
  return { counters: await scrape(e.server.url), logAt: e.log.mark() };
}

interface Observed {
  d: (name: string) => number;
  measured: Timing[];
  preflight: Timing[];
  /** The /metrics pages the bundle fetched: preflight's engine check, window start, window end. */
  scrapes: Proxy['scrapes'];
  /** The prompt tokens of the whole chat answers (preflight's probe of the chat layer). */
  chatPrompts: number[];
}

async function observe(e: Engine, b: Before): Promise<Observed> {
  const after = await scrape(e.server.url);
  const records = await e.log.since(b.logAt);
  return {
    d: (name) => delta(b.counters, after, name),
    measured: records.filter((r) => r.evalTokens === OSL),
    preflight: records.filter((r) => r.evalTokens !== OSL),
    scrapes: [...e.proxy.scrapes],
    chatPrompts: [...e.proxy.chatPrompts],
  };
}

// --- what the suite says --------------------------------------------------------------------

interface Dist {
  avg: number;
  count: number;
}
interface RecordJson {
  variant: string;
  requests: number;
  requests_ok: number;
  requests_failed: number;
  output_tokens: number;
  input_tokens: number;
  draft_tokens: number | null;
  draft_accepted_tokens: number | null;
  draft_acceptance_rate: number | null;
  acceptance_length_tokens_per_step: number | null;
  acceptance_length_source: string | null;
  ttft_ms: Dist | null;
  e2e_ms: Dist | null;
  itl_ms: Dist | null;
  itl_per_chunk_ms: Dist | null;
  itl_rule: string | null;
  itl_rule_requests: Record<string, number>;
  server_time_per_token_ms: number | null;
  server_output_throughput_tokens_per_s: number | null;
}
interface Summary {
  variants: Array<{ variant: string; dialect: string; engineLabel: string; serverMetrics: string | null }>;
  records: RecordJson[];
  comparisons: Array<{ a: string; b: string; throughput_ratio_a_over_b: number | null; verdict: string }>;
  warnings: string[];
}

function summaryOf(run: Run): Summary {
  assert.equal(run.result.exitCode, 0, explain(run));
  assert.ok(run.summary, `no summary.json\n${explain(run)}`);
  return run.summary as unknown as Summary;
}

/** A preflight request retried would add to the engine's counts; the log check below counts them too. */
function noPreflightRetry(s: Summary): void {
  assert.ok(!s.warnings.some((w) => /preflight requests failed transiently/.test(w)), `preflight retried: ${s.warnings.join('\n')}`);
}

const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
const mean = (xs: number[]) => sum(xs) / xs.length;
const f1 = (x: number) => x.toFixed(1);

/**
 * Client means must contain the server's and exceed them by at most max(50 ms, `share` of it).
 * The client clock counts whole milliseconds: 1 ms of slack below.
 */
function within(what: string, client: number, server: number, share: number): string {
  const bound = Math.max(50, share * server);
  const msg = `${what}: client mean ${f1(client)} ms, server mean ${f1(server)} ms (allowed: − 1 … + ${f1(bound)} ms)`;
  assert.ok(client >= server - 1 && client <= server + bound, msg);
  return msg;
}

/**
 * The checks every run gets, per server: requests, tokens and prompt tokens against the engine,
 * and the preflight's requests exactly as expected.
 */
function accountingChecks(label: string, rec: RecordJson, o: Observed, warmup: number, dialect: DialectName): void {
  assert.equal(rec.requests_failed, 0, `${label}: failed requests`);
  // Requests: the log's records of OSL-token requests are the measured ones; the rest are the
  // preflight's, 1 token each: the one-token check (8-token prompt), beside it a probe of each
  // other layer llama.cpp offers (lib/preflight: 8 tokens on a prompt route, on the chat route
  // what its template makes of the 8-token text, which its answer's usage says), then warm-up 1
  // (the ISL prompt).
  assert.equal(rec.requests, o.measured.length, `${label}: suite requests vs the server's log`);
  const layers = stallProbeDialects(engineById('llamacpp'), dialect);
  const chatLayers = layers.filter((d) => DIALECT_TRAITS[d].chat).length;
  assert.equal(o.chatPrompts.length, chatLayers, `${label}: the chat layer's probe answered (${o.chatPrompts.join(', ')} prompt tokens)`);
  assert.ok(
    o.chatPrompts.every((n) => n >= PROBE_PROMPT),
    `${label}: chat probe prompt tokens ${o.chatPrompts.join(', ')}`,
  );
  // The log counts the prompt tokens evaluated, not those found in the cache: at most the prompt.
  const expectPreflight = [
    { p: PROBE_PROMPT, e: 1 },
    ...layers.filter((d) => !DIALECT_TRAITS[d].chat).map(() => ({ p: PROBE_PROMPT, e: 1 })),
    ...o.chatPrompts.map((p) => ({ p, e: 1 })),
    ...(warmup >= 1 ? [{ p: ISL, e: 1 }] : []),
  ].sort((x, y) => x.p - y.p);
  const seen = o.preflight.map((r) => ({ p: r.promptTokens, e: r.evalTokens })).sort((x, y) => x.p - y.p);
  const what = `${label}: the requests besides the measured ones are exactly the preflight's: ${JSON.stringify(seen)} vs ${JSON.stringify(expectPreflight)}`;
  assert.ok(seen.length === expectPreflight.length && seen.every((x, i) => x.e === expectPreflight[i].e && x.p >= 1 && x.p <= expectPreflight[i].p), what);
  const preflightTokens = expectPreflight.length; // one output token each
  const preflightPrompt = sum(expectPreflight.map((x) => x.p));
  // Output tokens: every generated token is counted once by the engine, when its request ends.
  assert.equal(rec.output_tokens, rec.requests * OSL, `${label}: ignore_eos gives OSL tokens per request`);
  assert.equal(
    o.d('tokens_predicted_total'),
    rec.output_tokens + preflightTokens,
    `${label}: Δ tokens_predicted_total = suite output_tokens + ${preflightTokens} (preflight)`,
  );
  assert.equal(sum(o.measured.map((r) => r.evalTokens)), rec.output_tokens, `${label}: the log's eval tokens`);
  // Prompt tokens: evaluated or taken from the cache, each prompt token counts once.
  const promptDelta = o.d('prompt_tokens_total') + o.d('prompt_tokens_cached_total');
  assert.equal(
    promptDelta,
    rec.input_tokens + preflightPrompt,
    `${label}: Δ prompt tokens (evaluated + cached) = suite input_tokens + ${preflightPrompt} (preflight)`,
  );
  assert.equal(rec.input_tokens, rec.requests * ISL, `${label}: input tokens`);
  // Preflight requests never draft: their single token comes from the prompt's evaluation.
  assert.ok(
    o.preflight.every((r) => r.draftGenerated === 0),
    `${label}: a preflight request drafted`,
  );
}

/** Draft figures of the speculative server: the suite's per-request sums against the engine's. */
function acceptanceChecks(label: string, rec: RecordJson, o: Observed): string {
  const drafted = o.d('spec_decode_num_draft_tokens_total');
  const accepted = o.d('spec_decode_num_accepted_tokens_total');
  const steps = o.d('spec_decode_num_drafts_total');
  assert.ok(drafted > 0 && steps > 0, `${label}: the speculative server drafted nothing`);
  assert.equal(rec.draft_tokens, drafted, `${label}: suite draft_tokens vs Δ spec_decode_num_draft_tokens_total`);
  assert.equal(rec.draft_accepted_tokens, accepted, `${label}: suite draft_accepted_tokens vs Δ spec_decode_num_accepted_tokens_total`);
  assert.equal(rec.draft_acceptance_rate, accepted / drafted, `${label}: draft acceptance rate`);
  assert.equal(sum(o.measured.map((r) => r.draftGenerated)), drafted, `${label}: the log's drafted tokens`);
  assert.equal(sum(o.measured.map((r) => r.draftAccepted)), accepted, `${label}: the log's accepted tokens`);
  return (
    `${label}: drafted ${drafted}, accepted ${accepted} (rate ${(accepted / drafted).toFixed(3)}) in ${steps} ` +
    `verify steps (acceptance length over the run ${(1 + accepted / steps).toFixed(3)})`
  );
}

const close = (a: number, b: number) => Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(b));

/**
 * The suite's window figures from the two pages its probe fetched (through the proxy): exactly
 * the engine's counters over that window.
 */
function windowChecks(label: string, rec: RecordJson, o: Observed, speculative: boolean): string {
  assert.equal(o.scrapes.length, 3, `${label}: GET /metrics fetched ${o.scrapes.length} times (preflight, window start, window end expected)`);
  const [start, end] = o.scrapes.slice(1).map((x) => counters(x.page));
  const d = (name: string) => delta(start, end, name);
  const tokens = d('tokens_predicted_total');
  if (tokens === 0) {
    // No request finished inside the window (a slow machine): nothing to divide, nothing reported.
    assert.equal(rec.server_time_per_token_ms, null, `${label}: time per token over an empty window`);
    assert.equal(rec.acceptance_length_tokens_per_step, null, `${label}: acceptance length over an empty window`);
    return `${label}: no request finished inside the window; no window figures reported`;
  }
  const perToken = (d('tokens_predicted_seconds_total') / tokens) * 1000;
  assert.ok(
    rec.server_time_per_token_ms !== null && close(rec.server_time_per_token_ms, perToken),
    `${label}: window time per token ${rec.server_time_per_token_ms} vs ${perToken} ms`,
  );
  // Throughput divides by the time between the scrapes on k6's clock, which the proxy sees a
  // moment earlier: only close.
  const seconds = (o.scrapes[2].atMs - o.scrapes[1].atMs) / 1000;
  const tps = rec.server_output_throughput_tokens_per_s;
  assert.ok(tps !== null && Math.abs(tps / (tokens / seconds) - 1) < 0.02, `${label}: window throughput ${tps} vs ${tokens} tokens in ${seconds} s`);
  let out = `${label}: window of ${seconds.toFixed(2)} s, ${tokens} tokens, ${perToken.toFixed(2)} ms per token`;
  if (speculative) {
    // Each verify step commits its accepted draft tokens plus the target's own token.
    const al = 1 + d('spec_decode_num_accepted_tokens_total') / d('spec_decode_num_drafts_total');
    assert.equal(rec.acceptance_length_source, 'server-metrics', `${label}: acceptance length source`);
    const got = rec.acceptance_length_tokens_per_step;
    assert.ok(got !== null && close(got, al), `${label}: window acceptance length ${got} vs ${al} from the probe's pages`);
    out += `, acceptance length ${al.toFixed(3)}`;
  } else {
    assert.equal(rec.acceptance_length_tokens_per_step, null, `${label}: acceptance length`);
  }
  return out;
}

function noDraftChecks(label: string, rec: RecordJson, o: Observed): void {
  assert.equal(o.d('spec_decode_num_draft_tokens_total'), 0, `${label}: the plain server drafted`);
  assert.equal(rec.draft_tokens, null, `${label}: draft tokens`);
}

/**
 * TTFT (sse only) and e2e against the log's prompt and total times of the same requests; the
 * client may exceed them by max(50 ms, `share` of them).
 */
function latencyChecks(label: string, rec: RecordJson, o: Observed, sse: boolean, share: number): string[] {
  const notes: string[] = [];
  assert.ok(rec.e2e_ms && rec.e2e_ms.count === o.measured.length, `${label}: one e2e sample per request`);
  notes.push(within(`${label} e2e vs prompt + eval`, rec.e2e_ms.avg, mean(o.measured.map((r) => r.totalMs)), share));
  if (sse) {
    assert.ok(rec.ttft_ms && rec.ttft_ms.count === o.measured.length, `${label}: one TTFT sample per request`);
    notes.push(within(`${label} TTFT vs prompt eval`, rec.ttft_ms.avg, mean(o.measured.map((r) => r.promptMs)), share));
  } else {
    assert.equal(rec.ttft_ms, null, `${label}: http transport measures no TTFT`);
  }
  return notes;
}

// --- the tests --------------------------------------------------------------------------------

/** A text-prompt dialect's run on one engine (anthropic, responses): requests, tokens, latencies and, streamed, per-token ITL. */
function textDialectChecks(label: string, rec: RecordJson, o: Observed, sse: boolean, dialect: DialectName): string[] {
  assert.equal(rec.requests_failed, 0, `${label}: failed requests`);
  assert.ok(rec.requests >= 2, `${label}: ${rec.requests} requests`);
  assert.equal(rec.requests, o.measured.length, `${label}: suite requests vs the server's log`);
  // The preflight: the one-token check and, beside it, one probe of each other layer it asks (a chat
  // route speaks for every chat layer, so here the native route alone): one token each.
  const preflight = 1 + stallProbeDialects(engineById('llamacpp'), dialect).length;
  assert.equal(o.preflight.length, preflight, `${label}: besides the measured requests, the preflight's one-token check and its layer probes`);
  assert.ok(
    o.preflight.every((r) => r.evalTokens === 1),
    `${label}: one token each`,
  );
  assert.equal(rec.output_tokens, rec.requests * OSL, `${label}: ignore_eos gives OSL tokens per request on this route too`);
  assert.equal(
    o.d('tokens_predicted_total'),
    rec.output_tokens + preflight,
    `${label}: Δ tokens_predicted_total = suite output_tokens + ${preflight} (preflight)`,
  );
  assert.equal(sum(o.measured.map((r) => r.evalTokens)), rec.output_tokens, `${label}: the log's eval tokens`);
  // Prompt tokens as the server counted them (usage), each once: evaluated or cached.
  const promptDelta = o.d('prompt_tokens_total') + o.d('prompt_tokens_cached_total');
  assert.ok(rec.input_tokens >= rec.requests * ISL && promptDelta > rec.input_tokens, `${label}: input tokens ${rec.input_tokens}, Δ prompt ${promptDelta}`);
  const notes = latencyChecks(label, rec, o, sse, 0.1);
  if (sse) {
    // One token per content event, confirmed by the final count (a token ending inside a UTF-8
    // character comes with the next one: that request is read per chunk, never per token).
    const perToken = rec.itl_rule_requests['one-token-per-event'] ?? 0;
    assert.equal(perToken + (rec.itl_rule_requests['per-chunk'] ?? 0), rec.requests, `${label}: ${JSON.stringify(rec.itl_rule_requests)}`);
    if (perToken === rec.requests) assert.ok(rec.itl_ms && rec.itl_ms.count === rec.requests * (OSL - 1), `${label}: one ITL sample per token after the first`);
  } else assert.equal(rec.itl_rule, null, `${label}: no ITL over http`);
  notes.push(`${label}: requests ${rec.requests}, output tokens ${rec.output_tokens}, itl rules ${JSON.stringify(rec.itl_rule_requests)}`);
  return notes;
}

describe('real llama.cpp servers', async () => {
  const reason = await llamaUnavailableReason();
  if (reason) console.log(`# real-engine tests skipped: ${reason}`);
  const engines: { spec?: Engine; plain?: Engine } = {};
  const logs: string[] = [];

  before(async () => {
    if (reason) return;
    const outcome = await prepareLlama();
    assert.ok(outcome.ok);
    const setup = outcome.setup;
    // A log file per server, named as the server sees it (inside the chroot in chroot mode).
    const start = async (name: 'spec' | 'plain'): Promise<Engine> => {
      const file = `k6-llm-bench-${process.pid}-${name}.log`;
      const serverPath = setup.mode === 'chroot' ? `/tmp/${file}` : join(tmpdir(), file);
      const hostPath = setup.mode === 'chroot' ? join(setup.root as string, 'tmp', file) : serverPath;
      rmSync(hostPath, { force: true });
      logs.push(hostPath);
      // --slot-save-path lets CACHE_RESET erase the slots (llama-server answers 501 without it);
      // --cache-ram 0 keeps no prompts in host memory, which an erase would leave behind.
      const server = await startLlamaServer({
        draft: name === 'spec',
        extraArgs: ['--log-file', serverPath, '--slot-save-path', '/tmp', '--cache-ram', '0'],
      });
      return { name, server, log: new ServerLog(hostPath), proxy: await recordingProxy(server.url) };
    };
    [engines.spec, engines.plain] = await Promise.all([start('spec'), start('plain')]);
  });

  after(async () => {
    await Promise.all([engines.spec?.proxy.close(), engines.plain?.proxy.close()]);
    await Promise.all([engines.spec?.server.stop(), engines.plain?.server.stop()]);
    for (const f of logs) rmSync(f, { force: true });
  });

  for (const runner of RUNNERS) {
    const sseSkip = reason ?? runner.skip ?? runner.sseSkip ?? undefined;
    describe(`on ${runner.name}`, { skip: reason ?? runner.skip ?? undefined }, () => {
      test('dflash-vs-mtp, speculative (native /completion) vs plain (/v1/completions) over sse: figures match the engines', { skip: sseSkip }, async () => {
        const spec = engines.spec as Engine;
        const plain = engines.plain as Engine;
        const [bs, bp] = [await mark(spec), await mark(plain)];
        const run = await runner.run(
          'dflash-vs-mtp',
          {
            DFLASH_URL: spec.proxy.url,
            MTP_URL: plain.proxy.url,
            MTP_DIALECT: 'openai', // DFLASH_DIALECT stays auto: it must pick llamacpp
            TRANSPORT: 'sse',
            ISL: String(ISL),
            OSL: String(OSL),
            CONCURRENCY: '1',
            DURATION: '9s',
            SLICES: '3',
            WARMUP_REQUESTS: '0',
            REQUEST_TIMEOUT: '20s',
            GRACEFUL_STOP: GRACE,
          },
          150_000,
        );
        const s = summaryOf(run);
        const [os, op] = [await observe(spec, bs), await observe(plain, bp)];
        noPreflightRetry(s);
        // Both identified as llama.cpp, with the dialects expected and the llamacpp engine's /metrics.
        for (const t of s.variants) {
          assert.match(t.engineLabel, /^llama\.cpp b\d+$/, `${t.variant} engine`);
          assert.equal(t.serverMetrics, 'llamacpp', `${t.variant} /metrics engine`);
        }
        assert.deepEqual(
          s.variants.map((t) => [t.variant, t.dialect]),
          [
            ['dflash', 'llamacpp'],
            ['mtp', 'openai'],
          ],
        );
        const a = s.records.find((r) => r.variant === 'dflash') as RecordJson;
        const b = s.records.find((r) => r.variant === 'mtp') as RecordJson;
        accountingChecks('spec', a, os, 0, 'llamacpp');
        accountingChecks('plain', b, op, 0, 'openai');
        const notes = [acceptanceChecks('spec', a, os), windowChecks('spec', a, os, true), windowChecks('plain', b, op, false)];
        noDraftChecks('plain', b, op);
        // One request at a time: nothing waits, so 10 % (or 50 ms) covers the transport.
        notes.push(...latencyChecks('spec', a, os, true, 0.1), ...latencyChecks('plain', b, op, true, 0.1));

        // Per-token ITL: /completion counts tokens in every event; /v1/completions streams one
        // token per chunk, which the final count confirms. (Except a token that ends inside a
        // UTF-8 character: llama.cpp sends it with the next one, and that request is per-chunk.
        // The prompts are fixed by SEED and the replies by temperature 0; these have none.)
        assert.deepEqual(a.itl_rule_requests, { 'server-counts': a.requests }, 'spec (llamacpp) itl rule');
        assert.deepEqual(b.itl_rule_requests, { 'one-token-per-event': b.requests }, 'plain (openai) itl rule');
        for (const [label, r] of [
          ['spec', a],
          ['plain', b],
        ] as const) {
          assert.ok(r.itl_ms && r.itl_ms.count === r.requests * (OSL - 1), `${label}: one ITL sample per token after the first`);
          assert.equal(r.itl_per_chunk_ms, null, `${label}: no per-chunk ITL`);
        }

        // The A/B itself.
        assert.equal(s.comparisons.length, 1);
        const c = s.comparisons[0];
        assert.deepEqual([c.a, c.b], ['dflash', 'mtp']);
        assert.ok(c.throughput_ratio_a_over_b !== null && c.throughput_ratio_a_over_b > 0, 'throughput ratio');
        // Ten requests a cell, slices shorter than a request: no verdict rests on that.
        assert.match(c.verdict, /^(DFlash faster by|MTP faster by|no significant difference|too few samples for a verdict) /);
        notes.push(
          `requests spec ${a.requests}, plain ${b.requests}; output tokens ${a.output_tokens}/${b.output_tokens}; ` +
            `verdict: ${c.verdict}; run ${(run.wallMs / 1000).toFixed(1)} s`,
        );
        for (const n of notes) console.log(`# ${runner.name}: ${n}`);
      });

      // Anthropic Messages and OpenAI Responses: streamed (sse), an A/B of the speculative and the
      // plain server; not streamed (http), one server. The same accounting against the engines,
      // except the prompt's: these dialects send text, which the server's chat template wraps in
      // tokens the client never sees, so the preflight's prompt is the server's count alone.
      for (const [dialect, transport] of [
        ['anthropic', 'sse'],
        ['anthropic', 'http'],
        ['responses', 'sse'],
        ['responses', 'http'],
      ] as const) {
        const ab = transport === 'sse';
        test(
          ab
            ? `dflash-vs-mtp in ${dialect} over sse, speculative vs plain: engines named, tokens and timings match the engines`
            : `context-matrix on the plain server in ${dialect} over http: tokens and timings match the engine`,
          { skip: ab ? sseSkip : undefined },
          async () => {
            const used = ab ? [engines.spec as Engine, engines.plain as Engine] : [engines.plain as Engine];
            const marks = await Promise.all(used.map(mark));
            const common = {
              ISL: String(ISL),
              OSL: String(OSL),
              CONCURRENCY: '1',
              WARMUP_REQUESTS: '0',
              SEED: '7',
              REQUEST_TIMEOUT: '20s',
              GRACEFUL_STOP: GRACE,
            };
            const run = ab
              ? await runner.run(
                  'dflash-vs-mtp',
                  {
                    ...common,
                    DFLASH_URL: used[0].proxy.url,
                    MTP_URL: used[1].proxy.url,
                    DFLASH_DIALECT: dialect,
                    MTP_DIALECT: dialect,
                    TRANSPORT: 'sse',
                    DURATION: '9s',
                    SLICES: '3',
                  },
                  150_000,
                )
              : await runner.run(
                  'context-matrix',
                  // 10 s: a whole reply here takes about 3 s on two busy cores; 6 s left one request in CI (the checks want two).
                  { ...common, TARGET_URL: used[0].proxy.url, DIALECT: dialect, TRANSPORT: 'http', DURATION: '10s', SLICES: '2' },
                  120_000,
                );
            const s = summaryOf(run);
            const observed = await Promise.all(used.map((e, i) => observe(e, marks[i])));
            noPreflightRetry(s);
            assert.deepEqual(
              s.variants.map((t) => t.dialect),
              used.map(() => dialect),
            );
            for (const t of s.variants) assert.match(t.engineLabel, /^llama\.cpp b\d+$/, `${t.variant} engine`);
            const notes: string[] = [];
            used.forEach((e, i) => {
              const rec = ab ? (s.records.find((r) => r.variant === (i === 0 ? 'dflash' : 'mtp')) as RecordJson) : s.records[0];
              notes.push(...textDialectChecks(`${dialect}/${transport} ${e.name}`, rec, observed[i], ab, dialect));
            });
            if (ab) {
              assert.equal(s.comparisons.length, 1);
              assert.ok(s.comparisons[0].throughput_ratio_a_over_b !== null && s.comparisons[0].throughput_ratio_a_over_b > 0, 'throughput ratio');
              notes.push(`${dialect} A/B verdict: ${s.comparisons[0].verdict}`);
            }
            notes.push(`${dialect}/${transport}: run ${(run.wallMs / 1000).toFixed(1)} s`);
            for (const n of notes) console.log(`# ${runner.name}: ${n}`);
          },
        );
      }

      // The prefix cache: both variants on the plain server, the same prompts in two cells (OSL 8
      // then 12), CACHE_RESET=variant. The runs in order: dflash o8 (reset by setup), mtp o8 (reset:
      // its first run, though dflash has just sent it these prompts), mtp o12 and dflash o12 (not
      // reset: they find the o8 runs' prompts). The hit rates are the server's own counters' over
      // each run's window.
      test('CACHE_RESET=variant on the plain server: the hit rate from its counters, emptied by the slots erase', async () => {
        const plain = engines.plain as Engine;
        const b0 = await mark(plain);
        const run = await runner.run(
          'dflash-vs-mtp',
          {
            DFLASH_URL: plain.proxy.url,
            // The same server by another name: the suite refuses one URL for two variants.
            MTP_URL: plain.proxy.url.replace('127.0.0.1', 'localhost'),
            DIALECT: 'openai',
            TRANSPORT: 'http',
            ISL: String(ISL),
            OSL: '8,12',
            CONCURRENCY: '1',
            DURATION: '2s',
            SLICES: '1',
            WARMUP_REQUESTS: '0',
            REQUEST_TIMEOUT: '20s',
            GRACEFUL_STOP: '1s',
            // As many prompts as slots: with --cache-ram 0 a slot keeps its last prompt alone.
            PROMPT_POOL: '4',
            CACHE_RESET: 'variant',
          },
          120_000,
        );
        const s = summaryOf(run);
        const o = await observe(plain, b0);
        const pc = (
          s as unknown as {
            prefix_cache: {
              runs: Array<{
                variant: string;
                cell: string;
                hit_rate: number | null;
                source: string | null;
                hit_tokens: number;
                query_tokens: number;
                reset: { outcome: string | null; text: string };
              }>;
            };
          }
        ).prefix_cache;
        const row = (v: string, osl: number) => pc.runs.find((r) => r.variant === v && r.cell === `i${ISL}_o${osl}_c1`)!;
        const notes = pc.runs.map((r) => `${r.variant} ${r.cell}: hit rate ${r.hit_rate} (${r.source}: ${r.hit_tokens} of ${r.query_tokens}); ${r.reset.text}`);
        for (const n of notes) console.log(`# ${runner.name}: ${n}`);
        for (const r of pc.runs) assert.equal(r.source, 'server-counters', `${r.variant} ${r.cell}: ${JSON.stringify(r)}`);
        assert.deepEqual(
          pc.runs.map((r) => r.reset.outcome),
          ['reset', 'reset', null, null],
          'reset before each variant first run, by the slots erase',
        );
        // Reset, each variant's o8 run starts with empty slots (mtp's though dflash has just sent
        // it these prompts): its first four requests miss, and only its own repeats after them can
        // hit. Not reset, the o12 runs find the prompts left in the slots (those the o8 runs
        // reached; how many requests a 2 s run makes varies with the machine's load).
        for (const v of ['mtp', 'dflash']) {
          const [cold, warm] = [row(v, 8), row(v, 12)];
          const requests = Math.round(cold.query_tokens / ISL);
          assert.ok(cold.hit_tokens <= Math.max(0, requests - 4) * ISL, `${v} o8, reset: ${cold.hit_tokens} of ${cold.query_tokens} tokens found`);
          // The o12 run's first request sends the o8 run's first prompt, which its slot still holds
          // (all but the last token); a later one may send a prompt the o8 run never reached.
          assert.ok(warm.hit_tokens >= ISL - 1, `${v} o12, not reset: ${warm.hit_tokens} of ${warm.query_tokens} tokens found`);
          assert.ok(warm.hit_rate! > cold.hit_rate!, `${v}: o12 not reset ${warm.hit_rate} vs o8 reset ${cold.hit_rate}`);
        }
        // The windows' counts are the server's: within what its counters moved over the whole test.
        assert.ok(sum(pc.runs.map((r) => r.hit_tokens)) <= o.d('prompt_tokens_cached_total'));
        assert.ok(sum(pc.runs.map((r) => r.query_tokens)) <= o.d('prompt_tokens_total') + o.d('prompt_tokens_cached_total'));
      });

      test('context-matrix on the speculative server, /v1/completions over http, c=2 and one warm-up: figures match the engine', async () => {
        const spec = engines.spec as Engine;
        const b0 = await mark(spec);
        const run = await runner.run(
          'context-matrix',
          {
            TARGET_URL: spec.proxy.url,
            DIALECT: 'openai',
            TRANSPORT: 'http',
            ISL: String(ISL),
            OSL: String(OSL),
            CONCURRENCY: '2',
            DURATION: '8s',
            SLICES: '2',
            WARMUP_REQUESTS: '1',
            SEED: '7',
            REQUEST_TIMEOUT: '20s',
            GRACEFUL_STOP: GRACE,
          },
          120_000,
        );
        const s = summaryOf(run);
        const o = await observe(spec, b0);
        noPreflightRetry(s);
        assert.match(s.variants[0].engineLabel, /^llama\.cpp b\d+$/);
        const rec = s.records[0];
        accountingChecks('spec', rec, o, 1, 'openai');
        const notes = [acceptanceChecks('spec', rec, o), windowChecks('spec', rec, o, true)];
        // Two requests share the server: a new one waits for the other's decode step in progress
        // before its prompt is evaluated, a wait the log's times do not include (about 14 % on
        // top here). The lower bound is exact; the upper one only catches a client clock that
        // counts something else (the pause between iterations, another request).
        notes.push(...latencyChecks('spec', rec, o, false, 0.5));
        assert.equal(rec.itl_rule, null, 'no ITL over http');
        notes.push(`requests ${rec.requests}, output tokens ${rec.output_tokens}; run ${(run.wallMs / 1000).toFixed(1)} s`);
        for (const n of notes) console.log(`# ${runner.name}: ${n}`);
      });
    });
  }
});
