// Turns HTTP statuses, transport failures and error bodies into one ClassifiedError each, with a
// message that says what happened and what to change.
import type { AdapterNaming } from './adapter';
import type { ClassifiedError, ErrorClass } from './types';

export function classified(cls: ErrorClass, message: string): ClassifiedError {
  return { class: cls, message };
}

/** Pulls the server's own message out of an error body in any of the shapes SGLang and vLLM use. */
export function serverMessage(body: string | null | undefined): string {
  if (!body) return '';
  const trimmed = body.trim();
  let obj: unknown;
  try {
    obj = JSON.parse(trimmed);
  } catch {
    return clip(trimmed);
  }
  return clip(messageOf(obj) ?? trimmed);
}

/** The message inside an error object: {error:{message}}, {error:"…"}, {message}, {detail}. */
export function messageOf(obj: unknown): string | null {
  if (obj === null || typeof obj !== 'object') return typeof obj === 'string' ? obj : null;
  const o = obj as Record<string, unknown>;
  if (o.error !== undefined && o.error !== null) {
    if (typeof o.error === 'string') return o.error;
    const inner = messageOf(o.error);
    if (inner !== null) return inner;
  }
  if (typeof o.message === 'string') return o.message;
  if (typeof o.detail === 'string') return o.detail;
  if (Array.isArray(o.detail) && o.detail.length > 0) {
    // FastAPI validation errors: [{loc, msg, type}]
    const d = o.detail[0] as Record<string, unknown>;
    if (d && typeof d.msg === 'string') {
      const loc = Array.isArray(d.loc) ? d.loc.join('.') : '';
      return loc ? `${loc}: ${d.msg}` : d.msg;
    }
  }
  return null;
}

function clip(s: string, max = 300): string {
  const one = s.replace(/\s+/g, ' ').trim();
  return one.length > max ? one.slice(0, max) + '…' : one;
}

/** A prompt token id the model does not have: llama.cpp, vLLM, SGLang and the simulator's wording. */
const VOCAB_RE = /invalid tokens?\b|out of vocab|vocab(ulary)?[ _]size|token ids? .*out of range/i;
/**
 * Prompt plus output longer than the model's context, in the servers' words: vLLM ("maximum context
 * length"), SGLang ("longer than the model's context length"), llama.cpp (exceed_context_size_error,
 * "exceeds the available context size", "Context size has been exceeded", "the context window is
 * full"), TGI ("`inputs` tokens + `max_new_tokens` must be <= N"), trtllm-serve ("max_seq_len (2048) -
 * `splited_prompt_len` (2160)"), and the simulator's.
 */
const CONTEXT_RE =
  /context length|maximum context|longer than the model|too long|max_model_len|max_seq_len|exceeds|exceed_context_size|context (size|window)|max_new_tokens` must be <=|must have less than \d+ tokens/i;
const MODEL_RE = /model/i;

export interface RequestContext {
  /** e.g. "POST /v1/completions" */
  route: string;
  /** The variable that chooses the dialect for this variant, e.g. DIALECT or DFLASH_DIALECT. */
  dialectVar: string;
  /** The variable that names the model, e.g. MODEL. */
  modelVar: string;
  model?: string;
  /** THINK_TAGS: the content's <think>…</think> is reasoning (OpenAI routes; see think.ts). */
  thinkTags?: boolean;
  /** How this variant's requests name an adapter: the server's own way (its profile's adapters.naming), else the dialect's. */
  adapterNaming?: AdapterNaming;
}

/** Whether an error body or message says the request exceeds the model's context, at any status. */
export function isContextOverflow(body: string): boolean {
  return CONTEXT_RE.test(body) && !VOCAB_RE.test(body);
}

const OVERFLOW_ADVICE = "Prompt plus output exceed the model's context: lower ISL or OSL.";

/** Classifies a reply with a non-2xx status. */
export function classifyStatus(status: number, body: string, ctx: RequestContext): ClassifiedError {
  const msg = serverMessage(body);
  const said = msg ? `: '${msg}'` : '';
  const head = `${ctx.route} → ${status}${said}`;
  // Servers answer an overflow with 400, 413, 422 or even 500 (llama.cpp between two 2025 changes):
  // the wording, or llama.cpp's error type, decides, whatever the status.
  if (status !== 404 && status !== 401 && status !== 403 && (isContextOverflow(msg) || body.includes('exceed_context_size_error'))) {
    return classified('context_length', `${head}. ${OVERFLOW_ADVICE}`);
  }
  if (status === 401 || status === 403) {
    return classified('auth', `${head}. The server rejected the credentials: set API_KEY to the key it expects.`);
  }
  if (status === 404) {
    if (msg && MODEL_RE.test(msg) && !/^not found$/i.test(msg)) {
      return classified(
        'unknown_model',
        `${head}. The server does not serve ${ctx.model ? `model '${ctx.model}'` : 'that model'}: set ${ctx.modelVar} to a served name (GET ` +
          `/v1/models lists them) or leave it empty to detect it.`,
      );
    }
    return classified('wrong_dialect', `${head}. This server has no such route, so it speaks another API: set ${ctx.dialectVar}=auto to detect it.`);
  }
  if (status === 405) {
    return classified('wrong_dialect', `${head}. The route exists but not for POST: set ${ctx.dialectVar}=auto to detect the API.`);
  }
  if (status === 400 || status === 413 || status === 422) {
    if (msg && VOCAB_RE.test(msg)) {
      return classified(
        'bad_request',
        `${head}. A prompt token id is outside the model's vocabulary (token-id prompts are drawn below VOCAB_SIZE): ` +
          `set VOCAB_SIZE to the model's vocabulary size or less.`,
      );
    }
    if (msg && MODEL_RE.test(msg) && /not exist|not found|unknown/i.test(msg)) {
      return classified('unknown_model', `${head}. Set ${ctx.modelVar} to a model the server serves.`);
    }
    // A server that keeps to an API's own fields (Anthropic's, OpenAI's Responses) refuses ignore_eos.
    if (msg.includes('ignore_eos')) {
      return classified(
        'bad_request',
        `${head}. The server does not take ignore_eos on this route: set IGNORE_EOS=false (replies may then end before OSL tokens).`,
      );
    }
    return classified('bad_request', `${head}. The server rejected the request body.`);
  }
  if (status === 429) {
    return classified('rate_limited', `${head}. The server is rate limiting: lower CONCURRENCY or the arrival rate.`);
  }
  // 529 and overloaded_error: Anthropic's Messages API saying it is overloaded.
  if (status === 503 || status === 529 || (status >= 500 && body.includes('"overloaded_error"'))) {
    return classified('overloaded', `${head}. The server is unavailable (still loading, queue full or engine down): wait for it or lower the load.`);
  }
  if (status >= 500) {
    return classified('server_error', `${head}. The server failed: check its logs.`);
  }
  return classified('bad_request', `${head}.`);
}

// k6 error codes (lib/netext/httpext/error_codes.go): 1050 timeout, 11xx DNS, 121x dial, 1220 reset.
/** Classifies a request that got no HTTP status (k6 status 0). */
export function classifyTransport(errorCode: number, errorText: string, route: string, baseUrl: string, timeoutMs: number): ClassifiedError {
  const text = errorText || `error code ${errorCode}`;
  if (errorCode === 1050 || /timeout|deadline exceeded/i.test(text)) {
    return classified(
      'timeout',
      `${route}: no complete reply within ${formatSeconds(timeoutMs)} (REQUEST_TIMEOUT). The server is slow ` +
        `or stalled: raise REQUEST_TIMEOUT for long outputs, or lower the load.`,
    );
  }
  if ((errorCode >= 1100 && errorCode < 1200) || (errorCode >= 1210 && errorCode <= 1213) || /refused|no such host|lookup/i.test(text)) {
    return classified('unreachable', `${route}: cannot connect to ${baseUrl} (${text}). Is the server running and the URL right?`);
  }
  // A FIN inside the body (Go's "unexpected EOF": the chunked framing never ended) and an RST
  // ("connection reset by peer") are one class, told apart in the message: a clean close mid-reply
  // is often a proxy's idle or size limit, a reset a crash or a proxy giving up (docs/faults.md).
  if (/unexpected EOF/.test(text)) {
    return classified(
      'connection_lost',
      `${route}: the connection was closed mid-reply (${text}): the server, or a proxy between, closed it before the reply ended.`,
    );
  }
  if (errorCode === 1220 || errorCode === 1201 || /reset|broken pipe|EOF|closed/i.test(text)) {
    return classified('connection_lost', `${route}: the connection was lost mid-reply (${text}). The server may have crashed or restarted.`);
  }
  return classified('unreachable', `${route}: request to ${baseUrl} failed (${text}).`);
}

export function formatSeconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${(ms / 1000).toFixed(1)} s`;
}

/**
 * An error object the server put in a 200 reply: inside a stream, or as a whole non-streamed body
 * (SGLang's OpenAI route, older llama.cpp). An overflow is `context_length`; a whole body carrying an
 * HTTP code (vLLM's {"code": 400, …}) is classed as that status would be; else `stream_error`.
 */
export function classifyErrorObject(message: string, code: number | null, streamed: boolean, ctx: RequestContext): ClassifiedError {
  const where = streamed ? 'inside the stream' : 'in a 200 reply';
  if (isContextOverflow(message)) return classified('context_length', `${ctx.route}: the server reported an error ${where}: '${message}'. ${OVERFLOW_ADVICE}`);
  // A code inside a stream is not the cause's (SGLang's OpenAI route sends every stream error as
  // BadRequestError, 400, a CUDA fault included); in a whole 200 body it is the status meant.
  if (!streamed && code !== null && code >= 400 && code < 600 && code !== 500) {
    const c = classifyStatus(code, JSON.stringify({ error: { message } }), ctx);
    return classified(c.class, `${c.message} (The code came ${where}, with HTTP status 200.)`);
  }
  return classified('stream_error', `${ctx.route}: the server reported an error ${where}: '${message}'.`);
}
