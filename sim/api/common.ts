// HTTP plumbing shared by every route: routing with FastAPI's 404/405 bodies, JSON replies, request
// bodies, the one SSE writer, and error bodies in each server's own shape.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/** Error body shapes. 'detail': FastAPI's own ({"detail": ...}); 'sglang': SGLang native
 * ({"error": {"message"}}); 'openai': vLLM ({"error": {message, type, param, code}});
 * 'openai-flat': SGLang's OpenAI routes ({"object": "error", message, type, param, code});
 * 'anthropic': the Messages route ({"type": "error", "error": {type, message}}). */
export type ErrorStyle = 'detail' | 'sglang' | 'openai' | 'openai-flat' | 'anthropic';

/** Anthropic's error types by status (its API's errors page). */
const ANTHROPIC_TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  503: 'overloaded_error',
  529: 'overloaded_error',
};

const ERROR_TYPES: Record<number, string> = {
  400: 'BadRequestError',
  401: 'UnauthorizedError',
  404: 'NotFoundError',
  429: 'TooManyRequestsError',
  500: 'InternalServerError',
  503: 'ServiceUnavailableError',
};

export function errorBody(style: ErrorStyle, status: number, message: string, param: string | null = null): unknown {
  const type = ERROR_TYPES[status] ?? 'BadRequestError';
  switch (style) {
    case 'detail':
      return { detail: message };
    case 'sglang':
      return { error: { message } };
    case 'openai':
      return { error: { message, type, param, code: status } };
    case 'openai-flat':
      return { object: 'error', message, type, param, code: status };
    case 'anthropic':
      return { type: 'error', error: { type: ANTHROPIC_TYPES[status] ?? 'api_error', message } };
  }
}

/** A client-facing failure carrying its HTTP status, thrown by request parsers. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly param: string | null = null,
    /** Ground-truth error class, e.g. 'context_length', 'bad_request'. */
    readonly errorClass = 'bad_request',
  ) {
    super(message);
  }
}

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  if (res.headersSent || res.destroyed) return;
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), server: 'uvicorn' });
  res.end(text);
}

/** An empty-bodied reply, as FastAPI's Response(status_code=N) sends for the health routes. */
export function sendEmpty(res: ServerResponse, status: number): void {
  if (res.headersSent || res.destroyed) return;
  res.writeHead(status, { 'content-length': 0, server: 'uvicorn' });
  res.end();
}

export function sendText(res: ServerResponse, status: number, text: string, contentType: string): void {
  res.writeHead(status, { 'content-type': contentType, 'content-length': Buffer.byteLength(text), server: 'uvicorn' });
  res.end(text);
}

const MAX_BODY = 64 * 1024 * 1024;

export function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY) {
        reject(new HttpError(413, 'Request body too large.'));
        req.destroy();
      } else chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

export type Json = Record<string, unknown>;

export async function readJsonObject(req: IncomingMessage): Promise<Json> {
  const text = await readBody(req);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw new HttpError(400, `JSON decode error: ${(e as Error).message}`, 'body', 'bad_json');
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new HttpError(400, 'Input should be a valid dictionary or object to extract fields from.', 'body', 'bad_json');
  }
  return value as Json;
}

/** Texts to send as HTTP chunks, framed ahead of time when the response is chunked. */
export interface PreparedChunks {
  texts: readonly string[];
  /** The texts as HTTP/1.1 chunks, ready for one socket write; null when not writing to the socket directly. */
  framed: string | null;
}

/**
 * How a route frames its events: OpenAI's routes send bare `data:` events and end with
 * `data: [DONE]`; Messages and Responses name each event after the `type` its data starts with
 * (`event: NAME`) and end without [DONE].
 */
export interface SseStyle {
  named: boolean;
  done: boolean;
}

const OPENAI_SSE: SseStyle = { named: false, done: true };
const TYPE_HEAD = '{"type":"';

/**
 * The one server-sent-events writer. Headers go out at once, before the first token, as uvicorn
 * does for a StreamingResponse; each event is one `data: ...\n\n` text (after `event: NAME\n` when named).
 */
export class SseWriter {
  private readonly socket: Socket | null;

  constructor(
    private readonly res: ServerResponse,
    private readonly style: SseStyle = OPENAI_SSE,
  ) {
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', server: 'uvicorn' });
    res.flushHeaders();
    // Hot path: with HTTP/1.1 chunked framing, write each event as one pre-framed chunk straight to
    // the socket (one write instead of http's cork + three writes + uncork per event). Headers
    // are already flushed, so the order on the wire is kept; res.end() still writes the final chunk.
    const chunked = (res as unknown as { chunkedEncoding?: boolean }).chunkedEncoding === true;
    this.socket = chunked && res.socket ? res.socket : null;
  }

  /** `data: <payload>\n\n` for each payload, as one text; named after the payload's leading `type` in a named style. */
  events(payloads: readonly string[]): string {
    let s = '';
    if (!this.style.named) for (const p of payloads) s += `data: ${p}\n\n`;
    else
      for (const p of payloads)
        s += `event: ${p.startsWith(TYPE_HEAD) ? p.slice(TYPE_HEAD.length, p.indexOf('"', TYPE_HEAD.length)) : 'message'}\ndata: ${p}\n\n`;
    return s;
  }

  get closed(): boolean {
    return this.res.destroyed || this.res.writableEnded;
  }

  data(payload: string): void {
    this.raw(this.events([payload]));
  }

  /** Several events in one socket write (they belong to the same step). */
  dataMany(payloads: readonly string[]): void {
    if (payloads.length === 0) return;
    this.raw(this.events(payloads));
  }

  /** Writes text as it is, e.g. a deliberately malformed line. */
  raw(text: string): void {
    this.write(this.prepare([text]));
  }

  /** Frames texts (each its own HTTP chunk) ahead of the moment they are written. */
  prepare(texts: readonly string[]): PreparedChunks {
    if (!this.socket) return { texts, framed: null };
    let framed = '';
    for (const t of texts) framed += `${Buffer.byteLength(t).toString(16)}\r\n${t}\r\n`;
    return { texts, framed };
  }

  /** Writes prepared chunks: one socket write on the hot path. */
  write(chunks: PreparedChunks): void {
    if (this.closed) return;
    if (chunks.framed !== null && this.socket && !this.socket.destroyed) this.socket.write(chunks.framed);
    else for (const t of chunks.texts) this.res.write(t);
  }

  end(): void {
    if (!this.closed) this.res.end(this.style.done ? 'data: [DONE]\n\n' : undefined);
  }

  /** Ends the HTTP body properly but without [DONE]: a stream a server closed early and cleanly. */
  endBare(): void {
    if (!this.closed) this.res.end();
  }

  /** Tears the connection down with a TCP reset, as a crashing server or a proxy timeout would. */
  reset(): void {
    const socket = this.res.socket;
    if (socket && !socket.destroyed) socket.resetAndDestroy();
    else this.res.destroy();
  }
}

export interface RouteContext {
  req: IncomingMessage;
  res: ServerResponse;
  url: URL;
  /** Epoch ms when the request's headers arrived (read by the server, before the body). */
  arrivalMs: number;
  /** How late those headers may have been read (the simulator's own intake lag bound; see LoopWatch). */
  intakeLagMs: number;
}

export type Handler = (ctx: RouteContext) => void | Promise<void>;

/** Method + exact path routing; unknown paths and methods answer as FastAPI does. */
export class Router {
  private readonly routes = new Map<string, Map<string, Handler>>();

  add(method: string, path: string, handler: Handler): this {
    let m = this.routes.get(path);
    if (!m) this.routes.set(path, (m = new Map()));
    m.set(method, handler);
    return this;
  }

  has(path: string): boolean {
    return this.routes.has(path);
  }

  async handle(ctx: RouteContext, onError: (ctx: RouteContext, e: unknown) => void): Promise<void> {
    const byMethod = this.routes.get(ctx.url.pathname);
    if (!byMethod) return sendJson(ctx.res, 404, { detail: 'Not Found' });
    const h = byMethod.get(ctx.req.method ?? 'GET');
    if (!h) return sendJson(ctx.res, 405, { detail: 'Method Not Allowed' });
    try {
      await h(ctx);
    } catch (e) {
      onError(ctx, e);
    }
  }
}
