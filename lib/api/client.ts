// LlmClient: one variant (URL, dialect, model, transport) whose calls each send one request through
// the project's single request path (lib/k6/request.ts: the dialect builds it, the transport sends
// and times it, lib/metrics/samples.ts records it) into the user's own k6 test, with the metric
// names and tags the benchmarks use. Create clients in the init context (top level of the script).
import { createDialect, DIALECT_NAMES, DIALECT_TRAITS, isDialectName, type DialectName, type DialectSetting, type Prompt } from '../dialects/index';
import type { AddSample, SloLimits, Window } from '../metrics/samples';
import type { MetricKey } from '../metrics/catalog';
import { identifyVariant, PreflightError, preflightVariant } from '../preflight/run';
import { requestHeaders, type ResolvedVariant, type VariantInfo } from '../variants';
import { TRANSPORTS, type TransportName } from '../transports';
import { turnsText } from '../dataset/format';
import { llmRequest } from '../k6/request';
import { httpSender, k6Port, libraryMetrics, scenarioNow, sseSender, testScenarios, type Send } from '../k6/library';
import type { K6Metrics } from '../k6/metrics';
import { durationMs, NO_WINDOW, scenarioWindow, windowMode, type WindowMode } from './plan';
import { CLIENT_VARS, libraryConfig, variantConfig, type ClientSpec, type PreflightSettings } from './config';
import { libraryWording, notSent, toResult, type LlmResult } from './result';
import { register, state } from './state';
import { PREFLIGHT_REASONS, type PreflightReason } from '../preflight/diagnose';

export type Transport = TransportName;

export interface LlmClientOptions {
  /** The server's base URL, e.g. http://127.0.0.1:30000 (the dialect adds the route). */
  url: string;
  /** The API spoken: a DialectName (docs/dialects.md has each one's route), or auto (found from GETs, once per VU). Default auto. */
  dialect?: DialectSetting;
  /** Model name for the OpenAI and llama.cpp dialects; empty: the one GET /v1/models lists. */
  model?: string;
  /** Sent to this server only: as `Authorization: Bearer …`, and for Anthropic Messages as `x-api-key` with `anthropic-version` too. */
  apiKey?: string;
  /** http (any k6: e2e and tokens) or sse (xk6-sse: TTFT and per-token ITL too). Default http. */
  transport?: Transport;
  /** Deadline of each call: a duration such as '30s', or milliseconds. Default 30s. */
  timeout?: string | number;
  /** Tags added to every sample of this client (keep them low-cardinality). */
  tags?: Record<string, string>;
  /** The `variant` tag of this client's samples and its label in the report. Default 'target'. */
  name?: string;
  /** The xk6-sse module, when the script imports it (`import sse from 'k6/x/sse'`); else it is loaded here for transport 'sse'. */
  sse?: unknown;
  /** Defaults of every call (maxTokens, temperature …). */
  defaults?: CallOptions;
}

export interface CallOptions {
  /** Output budget in tokens. Default 256. */
  maxTokens?: number;
  /** Default 0. */
  temperature?: number;
  /** Generate exactly maxTokens (servers that accept ignore_eos: SGLang, vLLM). Default false. */
  ignoreEos?: boolean;
  /** Ask for a streamed reply. Transport sse always streams; over http a stream is received whole. Default: the transport's. */
  stream?: boolean;
  /** Tags for this call's samples only, e.g. { turn: '2' } (low-cardinality values only). */
  tags?: Record<string, string>;
  /** This call's deadline, overriding the client's. */
  timeout?: string | number;
  /**
   * The API this call speaks on the client's server, e.g. 'anthropic' (/v1/messages) or
   * 'responses' (/v1/responses) on a vLLM, SGLang or llama.cpp otherwise spoken to in another;
   * same model, key and transport. Default: the client's dialect.
   */
  dialect?: DialectName;
}

/** A chat message. */
export interface Message {
  role: string;
  content: string;
}

/** What `generate` takes: exactly one of prompt (text), tokenIds or messages. */
export interface GenerateRequest extends CallOptions {
  prompt?: string;
  tokenIds?: readonly number[];
  messages?: readonly Message[];
}

export interface PreflightOptions {
  /** Deadline of the one-token test generation (and of the health wait): no token by then is a stalled server. Default 10s. */
  timeout?: string | number;
  /** Requests sent after the check, not measured. Default 0. */
  warmup?: number;
  /** The longest prompt (tokens) the script sends: checked against the server's context length. Default 8. */
  maxPromptTokens?: number;
  /** The largest maxTokens the script asks for (same check). Default 1. */
  maxTokens?: number;
}

/** One client's preflight. */
export interface PreflightOutcome {
  ok: boolean;
  client: string;
  /**
   * Why it failed: unreachable, not_ready, auth, unknown_api, unknown_model, context_length, stalled,
   * stalled_layer, wrong_dialect, generation_failed, warmup_failed.
   */
  reason: PreflightReason | null;
  /** Its short meaning, e.g. "healthy but hung: no token within the deadline". */
  headline: string | null;
  /** The whole diagnosis, with what to change. */
  message: string | null;
  /** The server, dialect and model found (null when it failed). */
  info: VariantInfo | null;
  warnings: string[];
}

const DEFAULT_TIMEOUT_MS = 30_000;
const DEFAULT_MAX_TOKENS = 256;
const NO_SLO: SloLimits = { ttftP99Ms: null, ttftOf: 'first', itlP99Ms: null, e2eP99Ms: null };

function ms(v: string | number | undefined, fallback: number, what: string): number {
  if (v === undefined) return fallback;
  const x = durationMs(v);
  if (x === null || x <= 0) throw new Error(`k6-llm-bench: ${what}: '${v}' is not a duration such as 500ms, 30s or 1m30s (or a number of ms).`);
  return x;
}

/** The window of the scenario this VU runs, decided once per VU from the test's scenarios. */
let mode: WindowMode | null = null;
function currentMode(): WindowMode {
  if (mode === null) mode = windowMode(testScenarios() ?? {}, state.slices);
  return mode;
}

interface Resolved {
  variant: ResolvedVariant;
  tags: Record<string, string>;
}

export class LlmClient {
  /** The `variant` tag of this client's samples. */
  readonly name: string;
  readonly url: string;
  readonly transport: Transport;
  private readonly spec: ClientSpec;
  private readonly send: Send;
  private readonly metrics: K6Metrics;
  private readonly defaults: CallOptions;
  private resolved: Resolved | null = null;
  /** The same variant in the dialects calls asked for besides the client's own. */
  private readonly also = new Map<DialectName, Resolved>();
  private readonly windows = new Map<string, Window>();
  private readonly logged = new Set<string>();

  constructor(o: LlmClientOptions) {
    if (!o || typeof o.url !== 'string' || !/^https?:\/\/[^/\s]+/.test(o.url)) {
      throw new Error(`k6-llm-bench: LlmClient needs a url such as http://127.0.0.1:30000, got ${JSON.stringify(o?.url)}.`);
    }
    const dialect = o.dialect ?? 'auto';
    if (dialect !== 'auto' && !isDialectName(dialect)) throw new Error(`k6-llm-bench: dialect '${dialect}' is not one of auto, ${DIALECT_NAMES.join(', ')}.`);
    const transport = o.transport ?? 'http';
    if (!(transport in TRANSPORTS)) throw new Error(`k6-llm-bench: transport '${transport}' is not http or sse.`);
    const name = o.name ?? 'target';
    if (!/^[A-Za-z0-9_.-]{1,64}$/.test(name)) throw new Error(`k6-llm-bench: name '${name}' must be letters, digits, '.', '_' or '-' (it is a tag value).`);
    this.spec = {
      name,
      url: o.url.replace(/\/+$/, ''),
      dialect,
      model: (o.model ?? '').trim(),
      apiKey: (o.apiKey ?? '').trim(),
      transport,
      timeoutMs: ms(o.timeout, DEFAULT_TIMEOUT_MS, 'timeout'),
      tags: { ...(o.tags ?? {}) },
    };
    this.name = name;
    this.url = this.spec.url;
    this.transport = transport;
    this.defaults = { ...(o.defaults ?? {}) };
    register(this.spec);
    this.metrics = libraryMetrics();
    this.send = transport === 'sse' ? sseSender(o.sse) : httpSender();
  }

  /** Sends `prompt` as a plain text completion (chat dialects: as one user message). */
  complete(prompt: string, o: CallOptions = {}): LlmResult {
    return this.call({ kind: 'text', text: prompt }, o);
  }

  /**
   * Sends chat messages (chat dialects get them as they are; completion dialects their contents joined by blank
   * lines, no chat template). A string is one user message.
   */
  chat(messages: readonly Message[] | string, o: CallOptions = {}): LlmResult {
    const list = typeof messages === 'string' ? [{ role: 'user', content: messages }] : messages;
    return this.call({ kind: 'text', text: turnsText(list as Array<{ role: 'user'; content: string }>), messages: list }, o);
  }

  /**
   * Anthropic Messages: POST /v1/messages on this client's server (x-api-key and anthropic-version
   * sent), whatever dialect the client speaks otherwise. Messages as for chat(); system turns go in
   * the API's `system` field.
   */
  messages(messages: readonly Message[] | string, o: CallOptions = {}): LlmResult {
    return this.chat(messages, { ...o, dialect: 'anthropic' });
  }

  /**
   * OpenAI Responses: POST /v1/responses on this client's server, whatever dialect it speaks otherwise. A string
   * is sent as the `input` text, messages as a conversation.
   */
  responses(input: readonly Message[] | string, o: CallOptions = {}): LlmResult {
    if (typeof input === 'string') return this.call({ kind: 'text', text: input }, { ...o, dialect: 'responses' });
    return this.chat(input, { ...o, dialect: 'responses' });
  }

  /** The general form: a text prompt, exact token ids (not for openai-chat) or messages, with the call's options. */
  generate(req: GenerateRequest): LlmResult {
    const given = [req.prompt !== undefined, req.tokenIds !== undefined, req.messages !== undefined].filter(Boolean).length;
    if (given !== 1) throw new Error('k6-llm-bench: generate() takes exactly one of prompt, tokenIds or messages.');
    if (req.messages !== undefined) return this.chat(req.messages, req);
    if (req.prompt !== undefined) return this.complete(req.prompt, req);
    const ids = req.tokenIds as readonly number[];
    return this.call({ kind: 'tokens', json: JSON.stringify(ids), length: ids.length }, req);
  }

  /**
   * Can this server be measured? The benchmarks' preflight (lib/preflight/run.ts): reachable, which
   * API and model, a one-token generation under a deadline (a healthy-but-hung server is named as
   * such, and which layer hangs), optional warm-ups. Call it in setup(); it never throws for a
   * server's fault: `ok` and the diagnosis say. On success this VU's client uses what it found.
   */
  preflight(o: PreflightOptions = {}): PreflightOutcome {
    const pf: PreflightSettings = {
      timeoutMs: ms(o.timeout, 10_000, 'preflight timeout'),
      warmupRequests: o.warmup ?? 0,
      maxPromptTokens: o.maxPromptTokens ?? 8,
      maxTokens: o.maxTokens ?? 1,
      requestTimeoutMs: this.spec.timeoutMs,
    };
    const cfg = libraryConfig('preflight', 'preflight', [this.spec], this.transport, pf);
    try {
      const r = preflightVariant(k6Port('preflight'), cfg, variantConfig(this.spec));
      this.adoptInfo(r.info);
      return { ok: true, client: this.name, reason: null, headline: null, message: null, info: r.info, warnings: r.warnings.map(libraryWording) };
    } catch (e) {
      if (!(e instanceof PreflightError)) throw e;
      this.metrics.preflightFailed.add(1, { variant: this.name, reason: e.reason });
      return {
        ok: false,
        client: this.name,
        reason: e.reason,
        headline: libraryWording(PREFLIGHT_REASONS[e.reason]),
        message: libraryWording(e.message),
        info: null,
        warnings: [],
      };
    }
  }

  /** Uses what preflight found in setup() (its `info`, or an LlmSetup), so this VU does not look the dialect and model up itself. */
  adopt(found: VariantInfo | { variants?: readonly VariantInfo[]; targets?: readonly VariantInfo[] } | null | undefined): void {
    if (!found) return;
    // An LlmSetup of the last release has `targets` alone.
    const list = 'variants' in found ? found.variants : 'targets' in found ? found.targets : undefined;
    const info = 'variants' in found || 'targets' in found ? list?.find((v) => v.variant === this.name) : (found as VariantInfo);
    if (info && info.variant === this.name) this.adoptInfo(info);
  }

  private adoptInfo(info: VariantInfo): void {
    this.resolved = this.resolveAs(info.dialect, info.model);
    this.also.clear();
  }

  private resolveAs(dialectName: DialectName, model: string): Resolved {
    const s = this.spec;
    const dialect = createDialect(dialectName, { dialectVar: CLIENT_VARS.dialect, modelVar: CLIENT_VARS.model, model });
    const headers = requestHeaders(s, TRANSPORTS[s.transport].accept ?? undefined, dialectName);
    const variant: ResolvedVariant = {
      variant: s.name,
      url: s.url,
      dialect,
      model,
      promptKind: dialect.acceptsTokenIds ? 'tokens' : 'text',
      headers,
      params: { headers, timeout: s.timeoutMs },
      probeHeaders: requestHeaders(s),
      metrics: null,
    };
    return { variant, tags: { variant: s.name, dialect: dialectName, ...s.tags } };
  }

  /** The dialect and model: as configured, else found by GETs (once per VU, tagged phase:preflight). */
  private resolve(): Resolved | { error: { class: 'unreachable' | 'wrong_dialect' | 'unknown_model' | 'auth'; message: string } } {
    if (this.resolved) return this.resolved;
    const s = this.spec;
    if (s.dialect !== 'auto' && (s.model !== '' || !DIALECT_TRAITS[s.dialect].needsModel)) {
      this.resolved = this.resolveAs(s.dialect, s.model);
      return this.resolved;
    }
    try {
      const found = identifyVariant(k6Port('preflight'), variantConfig(s));
      this.resolved = this.resolveAs(found.dialect, found.model);
      return this.resolved;
    } catch (e) {
      if (!(e instanceof PreflightError)) throw e;
      const down = e.reason === 'unknown_api' && /refused|no such host|lookup|timeout|reset|EOF/i.test(e.message);
      if (down)
        return {
          error: {
            class: 'unreachable',
            message: `${s.name}: cannot connect to ${s.url} to find its API: is the server running and the URL right? (${e.message})`,
          },
        };
      const cls = e.reason === 'auth' ? 'auth' : e.reason === 'unknown_model' ? 'unknown_model' : 'wrong_dialect';
      return { error: { class: cls, message: libraryWording(e.message) } };
    }
  }

  /** The call's variant: the client's own, or the same server in the call's dialect (its model as found for the client's). */
  private resolveFor(dialect: DialectName | undefined): ReturnType<LlmClient['resolve']> {
    const r = this.resolve();
    if (dialect === undefined || 'error' in r || dialect === r.variant.dialect.name) return r;
    if (!isDialectName(dialect)) throw new Error(`k6-llm-bench: dialect '${String(dialect)}' is not one of ${DIALECT_NAMES.join(', ')}.`);
    let other = this.also.get(dialect);
    if (other === undefined) this.also.set(dialect, (other = this.resolveAs(dialect, r.variant.model)));
    return other;
  }

  private call(prompt: Prompt, o: CallOptions): LlmResult {
    const c = { ...this.defaults, ...o, tags: o.tags || this.defaults.tags ? { ...this.defaults.tags, ...o.tags } : undefined };
    const r = this.resolveFor(c.dialect);
    const who = { client: this.name, transport: this.transport };
    if ('error' in r) {
      const tags = { variant: this.name, dialect: this.spec.dialect, ...this.spec.tags, ...c.tags };
      this.metrics.success.add(0, tags);
      this.metrics.errors.add(1, { ...tags, error_class: r.error.class });
      this.warnOnce(r.error.class, r.error.message);
      return notSent(r.error, Date.now(), { ...who, dialect: this.spec.dialect, model: this.spec.model });
    }
    let variant = r.variant;
    if (prompt.kind === 'tokens' && !variant.dialect.acceptsTokenIds) {
      throw new Error(`k6-llm-bench: ${this.name} speaks ${variant.dialect.name}, which takes text only: send prompt or messages, not tokenIds.`);
    }
    const timeoutMs = c.timeout === undefined ? this.spec.timeoutMs : ms(c.timeout, this.spec.timeoutMs, 'timeout');
    if (timeoutMs !== this.spec.timeoutMs) variant = { ...variant, params: { headers: variant.headers, timeout: timeoutMs } };
    const tags = c.tags ? { ...r.tags, ...c.tags } : r.tags;
    const add = this.adder(tags);
    const outcome = llmRequest(
      this.send,
      variant,
      {
        prompt,
        maxTokens: c.maxTokens ?? DEFAULT_MAX_TOKENS,
        ignoreEos: c.ignoreEos ?? false,
        temperature: c.temperature ?? 0,
        stream: TRANSPORTS[this.transport].streams || (c.stream ?? false),
        model: variant.model || undefined,
      },
      timeoutMs,
      { window: this.window(add), slo: NO_SLO, add },
    );
    const result = toResult(outcome, { ...who, dialect: variant.dialect.name, model: variant.model });
    if (result.error) {
      result.error.message = libraryWording(result.error.message);
      this.warnOnce(result.error.class, result.error.message);
    }
    return result;
  }

  /** Records into k6 with this client's tags (and the call's); ITL goes straight to the trend, one add per token. */
  private adder(tags: Record<string, string>): AddSample {
    const m = this.metrics;
    const add: AddSample = (metric, value, extra) => m[metric].add(value, extra ? { ...tags, ...extra } : tags);
    add.sink = (metric: MetricKey) => {
      const trend = m[metric];
      return { add: (v: number) => trend.add(v, tags) };
    };
    return add;
  }

  /** The window of the scenario this VU is running (none in setup and teardown); the first request of a VU there counts the VU. */
  private window(add: AddSample): Window {
    const s = scenarioNow();
    if (s === null) return NO_WINDOW;
    let w = this.windows.get(s.name);
    if (w === undefined) {
      w = scenarioWindow(currentMode(), s.startMs);
      this.windows.set(s.name, w);
      add('runVus', 1);
    }
    return w;
  }

  /** The first error of each class, once per client and VU (the summary counts them all). */
  private warnOnce(cls: string, message: string): void {
    if (this.logged.has(cls)) return;
    this.logged.add(cls);
    console.warn(`${this.name}: ${cls}: ${message}`);
  }
}

export type { LlmResult } from './result';
