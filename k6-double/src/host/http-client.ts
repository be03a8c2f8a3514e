// One HTTP round trip with real timings, measured the way k6's httptrace-based Tracer does
// (lib/netext/httpext/tracer.go):
//   blocked      request start -> connection ready (includes dialing and TLS for a new one, as
//                Go's GetConn -> GotConn does)
//   connecting   TCP connect;  tls_handshaking  TLS handshake
//   sending      connection ready -> request fully written
//   waiting      request written -> response headers (Go: first response byte; the headers of a
//                streaming response arrive first, so this is NOT the time to the first event)
//   receiving    headers -> end of body
//   duration     sending + waiting + receiving
// Errors are mapped to k6's error codes and messages (lib/netext/httpext/error_codes.go).

import * as http from 'node:http';
import * as https from 'node:https';
import type { Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { goHeaders, urlErrorOp } from '../shared/http-names';
import type { HttpTimings } from '../shared/protocol';

export interface HopRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: Buffer | null;
}

export interface HopError {
  /** k6 error_code. */
  code: number;
  /** k6's res.error text, e.g. "dial: connection refused". */
  message: string;
  /** What Go's client would have returned, for k6's "Request Failed" log line. */
  goError: string;
}

export interface HopResult {
  url: string;
  status: number;
  statusText: string;
  proto: string;
  headers: Record<string, string>;
  /** Received body bytes (also the partial body when reading it failed); null if none was read. */
  body: Buffer | null;
  error: HopError | null;
  timings: HttpTimings;
  remoteIP: string;
  remotePort: number;
  tlsVersion: string;
  bytesSent: number;
  bytesReceived: number;
  /** ms since the epoch, when the exchange ended. */
  endTime: number;
}

export interface HopOptions {
  agent: http.Agent | false;
  /** ms since the epoch; the whole exchange, body included, must end by then (k6's timeout). */
  deadline: number;
  discardBody: boolean;
  /** Aborts the exchange (VU interrupted); the result then carries code 0 and is not reported. */
  signal: AbortSignal;
}

/** The request's k6 timeout expired (destroy() reason). */
export class RequestTimeout extends Error {
  constructor() {
    super('request timeout');
  }
}

/** Marks taken on the request's way, in performance.now() ms. */
interface Marks {
  start: number;
  gotSocket?: number;
  connectStart?: number;
  connectDone?: number;
  tlsDone?: number;
  reused?: boolean;
  wrote?: number;
  firstByte?: number;
  end?: number;
}

export function roundTrip(req: HopRequest, opts: HopOptions): Promise<HopResult> {
  return new Promise((resolve) => {
    const marks: Marks = { start: performance.now() };
    const wall0 = Date.now();
    let socket: Socket | undefined;
    let sock0 = { written: 0, read: 0 };
    let response: http.IncomingMessage | undefined;
    const chunks: Buffer[] = [];
    let settled = false;

    let url: URL;
    try {
      url = new URL(req.url);
      if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error(`unsupported protocol scheme "${url.protocol.slice(0, -1)}"`);
    } catch (e) {
      const msg = e instanceof TypeError ? `parse "${req.url}": invalid URL` : (e as Error).message;
      resolve(failed(req, marks, { code: 1000, message: msg, goError: `${urlErrorOp(req.method)} "${req.url}": ${msg}` }));
      return;
    }

    const finish = (error: HopError | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      opts.signal.removeEventListener('abort', onAbort);
      marks.end = performance.now();
      const result = buildResult(req, marks, response, error, opts.discardBody ? null : response ? Buffer.concat(chunks) : null);
      if (socket) {
        result.bytesSent = socket.bytesWritten - sock0.written;
        result.bytesReceived = socket.bytesRead - sock0.read;
        result.remoteIP = socket.remoteAddress ?? '';
        result.remotePort = socket.remotePort ?? 0;
        if ('getProtocol' in socket) result.tlsVersion = tlsVersion((socket as TLSSocket).getProtocol());
      }
      result.endTime = wall0 + (marks.end - marks.start);
      resolve(result);
    };

    const mod = url.protocol === 'https:' ? https : http;
    const headers: Record<string, string> = { ...req.headers };
    if (req.body) headers['Content-Length'] = String(req.body.length);
    const cr = mod.request(url, { method: req.method, headers, agent: opts.agent });

    const onAbort = () => cr.destroy(new Error('context canceled'));
    opts.signal.addEventListener('abort', onAbort);
    const timer = setTimeout(() => cr.destroy(new RequestTimeout()), Math.max(0, opts.deadline - Date.now()));

    cr.on('socket', (s: Socket) => {
      socket = s;
      sock0 = { written: s.bytesWritten, read: s.bytesRead };
      marks.gotSocket = performance.now();
      if (s.connecting) {
        marks.connectStart = marks.gotSocket;
        s.once('lookup', () => (marks.connectStart = performance.now()));
        s.once('connect', () => (marks.connectDone = performance.now()));
        s.once('secureConnect', () => (marks.tlsDone = performance.now()));
      } else {
        marks.reused = true;
      }
    });
    cr.on('finish', () => (marks.wrote = performance.now()));
    cr.on('response', (res) => {
      marks.firstByte = performance.now();
      response = res;
      res.on('data', (chunk: Buffer) => {
        if (!opts.discardBody) chunks.push(chunk);
      });
      res.on('end', () => finish(null));
      res.on('aborted', () => finish(describeRequestError(new Error('aborted'), req, dialing(marks), true)));
      res.on('error', (err) => finish(describeRequestError(err, req, dialing(marks), true)));
    });
    cr.on('error', (err) => finish(describeRequestError(err, req, dialing(marks), response !== undefined)));
    cr.end(req.body ?? undefined);
  });
}

function tlsVersion(protocol: string | null): string {
  // "TLSv1.3" -> "tls1.3", the tls_version tag value k6 uses.
  return protocol ? protocol.replace(/^TLSv/, 'tls') : '';
}

function connReady(m: Marks): number | undefined {
  return m.tlsDone ?? m.connectDone ?? (m.reused ? m.gotSocket : undefined);
}

function timings(m: Marks): HttpTimings {
  const end = m.end ?? performance.now();
  const ready = connReady(m);
  const blocked = ready !== undefined ? ready - m.start : 0;
  const connecting = m.connectDone !== undefined && m.connectStart !== undefined ? m.connectDone - m.connectStart : 0;
  const tls = m.tlsDone !== undefined && m.connectDone !== undefined ? m.tlsDone - m.connectDone : 0;
  let sending = 0;
  let waiting = 0;
  if (m.wrote !== undefined) {
    sending = ready !== undefined ? Math.max(0, m.wrote - ready) : 0;
    // Go: no response at all means waiting lasted until the end.
    waiting = m.firstByte !== undefined ? Math.max(0, m.firstByte - m.wrote) : end - m.wrote;
  }
  const receiving = m.firstByte !== undefined ? end - m.firstByte : 0;
  return {
    duration: sending + waiting + receiving,
    blocked,
    looking_up: 0,
    connecting,
    tls_handshaking: tls,
    sending,
    waiting,
    receiving,
  };
}

function buildResult(
  req: HopRequest,
  marks: Marks,
  res: http.IncomingMessage | undefined,
  error: HopError | null,
  body: Buffer | null,
): HopResult {
  const headers = res ? goHeaders(res.rawHeaders) : {};
  return {
    url: req.url,
    status: res?.statusCode ?? 0,
    statusText: res ? `${res.statusCode} ${res.statusMessage ?? ''}`.trim() : '',
    proto: res ? `HTTP/${res.httpVersion}` : '',
    headers,
    body,
    error,
    timings: timings(marks),
    remoteIP: '',
    remotePort: 0,
    tlsVersion: '',
    bytesSent: 0,
    bytesReceived: 0,
    endTime: 0,
  };
}

function failed(req: HopRequest, marks: Marks, error: HopError): HopResult {
  marks.end = marks.start;
  const result = buildResult(req, marks, undefined, error, null);
  result.endTime = Date.now();
  return result;
}

/** True while a new connection is still being dialled. */
function dialing(m: Marks): boolean {
  return m.gotSocket !== undefined && connReady(m) === undefined;
}

/**
 * Node's error -> k6's (code, message) and Go's client error text. `dialing`: no connection yet;
 * `afterHeaders`: the response headers had arrived.
 */
export function describeRequestError(
  err: Error,
  req: { method: string; url: string },
  dialing: boolean,
  afterHeaders: boolean,
): HopError {
  const e = err as NodeJS.ErrnoException & { address?: string; port?: number; hostname?: string };
  const op = `${urlErrorOp(req.method)} "${req.url}"`;
  const host = new URL(req.url).host;
  const k6 = (code: number, message: string, goTail: string = message): HopError => ({ code, message, goError: `${op}: ${goTail}` });
  if (err instanceof RequestTimeout) {
    // A deadline hit while dialing is Go's dial i/o timeout; anywhere later it is k6's request timeout.
    if (dialing) return k6(1211, 'dial: i/o timeout', `dial tcp ${host}: i/o timeout`);
    return k6(1050, 'request timeout');
  }
  if (err.message === 'context canceled') return k6(0, 'context canceled');
  switch (e.code) {
    case 'ECONNREFUSED':
      return k6(1212, 'dial: connection refused', `dial tcp ${e.address ?? host}${e.port ? `:${e.port}` : ''}: connect: connection refused`);
    case 'ENOTFOUND':
      return k6(1101, 'lookup: no such host', `dial tcp: lookup ${e.hostname ?? host}: no such host`);
    case 'EAI_AGAIN':
      return k6(1100, `lookup ${e.hostname ?? host}: temporary failure in name resolution`);
    case 'EPIPE':
      return k6(1201, 'write: broken pipe');
    case 'ETIMEDOUT':
      return k6(1211, 'dial: i/o timeout');
    case 'ECONNRESET':
      // Node says "socket hang up" when the server closed the connection without answering: Go
      // reports that as EOF; a reset in the middle of a body is Go's "unexpected EOF".
      if (afterHeaders) return k6(1000, 'unexpected EOF');
      if (err.message === 'socket hang up') return k6(1000, 'EOF');
      return k6(1220, 'read: connection reset by peer', `read tcp ${host}: read: connection reset by peer`);
    default:
      if (err.message === 'aborted') return k6(1000, 'unexpected EOF');
      return k6(1000, err.message);
  }
}
