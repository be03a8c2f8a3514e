// Two ways to send a generation request, behind one signature. The http transport (stock k6)
// receives the whole body at once; the sse transport (xk6-sse) timestamps every event.
import http from 'k6/http';
import { classifyTransport } from '../dialects/errors';
import { failed, asErrorData, ARRIVAL_BATCH, arrivals, restart, tokenColumns } from '../reading';
import type { ClassifiedError } from '../dialects/types';
import type { WireRequest } from '../dialects/types';
import type { Outcome } from '../metrics/samples';
import type { ResolvedVariant } from '../variants';
import type { TransportName } from '../transports';

export type Send = (variant: ResolvedVariant, wire: WireRequest, timeoutMs: number) => Outcome;

/** The http sender (stock k6). */
export const sendHttp: Send = (variant, wire, timeoutMs) => {
  const startMs = Date.now();
  const res = http.post(variant.url + wire.path, wire.body, variant.params);
  const endMs = Date.now();
  if (res.status === 0) {
    const route = `${wire.method} ${wire.path}`;
    return { result: failed(0, classifyTransport(res.error_code, res.error, route, variant.url, timeoutMs)), startMs, endMs, events: null };
  }
  const contentType = (res.headers['Content-Type'] as string | undefined) ?? '';
  const body = typeof res.body === 'string' ? res.body : '';
  const connection = { connectMs: res.timings.connecting, tlsMs: res.timings.tls_handshaking };
  return { result: variant.dialect.parseBody(res.status, body, contentType), startMs, endMs, events: null, connection };
};

interface SseEvent {
  data: string;
  /** The `event:` field; "" when the server sent none. */
  name: string;
}
interface SseClient {
  on(event: 'event', fn: (e: SseEvent) => void): void;
  on(event: 'error', fn: (e: { error(): string }) => void): void;
  close(): void;
}
/** The xk6-sse module (`k6/x/sse`), as far as the sse sender uses it. */
export interface SseModule {
  open(url: string, params: Record<string, unknown>, setup: (client: SseClient) => void): { status: number; error: string };
}

// k6's require, left alone by webpack: resolves k6 modules at run time.
declare const __non_webpack_require__: (id: string) => unknown;

let sse: SseModule | null = null;

/**
 * Loads the xk6-sse module; call in the init context. Required only when asked for, so stock k6 runs the
 * http transport without ever touching the extension.
 */
function loadSse(): void {
  let said: string;
  try {
    // k6 >= 1.0 scans a script for literal require() calls of extension modules before running it and, with
    // automatic extension resolution on (its default), provisions a k6 build with those extensions. The sse bundles
    // (dist/sse/) name the extension literally for that; the others build the name at run time, so that http runs
    // never trigger a download. Webpack keeps only the branch of the bundle being built.
    const loaded = (__SSE_BUNDLE__ ? __non_webpack_require__('k6/x/sse') : __non_webpack_require__(['k6', 'x', 'sse'].join('/'))) as SseModule;
    // k6 v1 throws for an unknown module; k6 v2 hands back an empty placeholder and fails only after the init
    // context, with its own message. Stopping here first lets a v2 user read how to get the extension.
    if (typeof loaded?.open === 'function') {
      sse = loaded;
      return;
    }
    said = 'the extension is not in this build';
  } catch (e) {
    said = String(e);
  }
  // Thrown at init, where k6 v2 would fail anyway with only its own words; as a string, which k6
  // prints alone (an Error would bring its stack frames: one line is what a user should read).
  throw (
    'k6-llm-bench: TRANSPORT=sse needs a k6 binary with the xk6-sse extension. Build one with ' +
    '`xk6 build --with github.com/phymbert/xk6-sse` and set K6_BIN to it, ' +
    (__SSE_BUNDLE__
      ? 'or let k6 (v1.0 or newer) provision one for this bundle by itself: run it with automatic extension resolution on ' +
        '(K6_AUTO_EXTENSION_RESOLUTION unset or true, the default; it needs network access). '
      : 'run the bundle of the same name in dist/sse/ (k6 v1.0 or newer provisions the extension for it by itself), ' + 'or use TRANSPORT=http. ') +
    `(k6: ${said})`
  );
}

/** The clock, read once per event: Date.now without the global and property lookups. */
const now = Date.now;

/** xk6-sse reports a line that is not SSE as an error and goes on reading; every other error ends the stream. */
const NOT_SSE_LINE = 'unknown event';

/** The end marker of OpenAI's and SGLang's streams, as xk6-sse hands it over (data, trailing newline trimmed). */
const DONE = '[DONE]';

/** This VU's event buffers: its streams run one after another. */
const log = arrivals();

const sendSse: Send = (variant, wire, timeoutMs) => {
  if (sse === null) throw new Error('sse transport used before loadSse()');
  const route = `${wire.method} ${wire.path}`;
  const reader = variant.dialect.streamReader();
  // The handler below runs once per event on k6's slow JavaScript engine, where a property read is
  // a map lookup: it only stamps and keeps the event, through local variables, and the reader
  // takes the kept events a batch at a time (lib/reading/stream-arrivals.ts says why).
  restart(log);
  const at = log.at;
  const data = log.data;
  let m = 0;
  let transportError = '';
  let pastDeadline = false;
  const startMs = Date.now();
  // The extension's own `timeout` bounds the exchange (Go's http.Client.Timeout); this check also
  // ends a stream that keeps trickling events past the deadline, on any build of the extension.
  const deadline = startMs + timeoutMs;
  const res = sse.open(
    variant.url + wire.path,
    { method: 'POST', body: wire.body, headers: variant.headers, timeout: `${timeoutMs}ms`, tags: { name: route } },
    (client) => {
      client.on('event', (e) => {
        const t = now();
        // `event: error` (the name is "" otherwise): the data is the error, whatever its shape.
        const d = e.name === 'error' ? asErrorData(e.data) : e.data;
        at[m] = t;
        data[m++] = d;
        if (d === DONE) {
          client.close();
          return;
        }
        if (m === ARRIVAL_BATCH) {
          reader.readKept(log, m);
          m = 0;
        }
        if (t > deadline) {
          pastDeadline = true;
          client.close();
        }
      });
      client.on('error', (e) => {
        const message = typeof e?.error === 'function' ? e.error() : String(e);
        if (message.startsWith(NOT_SSE_LINE)) {
          // An `error:` field line (llama.cpp before late 2025): kept as an error event for the
          // reader. Any other line that is not SSE: the reader judges what the stream carried.
          const line = message.slice(NOT_SSE_LINE.length).replace(/^:\s*/, '');
          if (line.startsWith('error:')) {
            at[m] = now();
            data[m++] = asErrorData(line.slice(6));
            if (m === ARRIVAL_BATCH) {
              reader.readKept(log, m);
              m = 0;
            }
          }
          return;
        }
        transportError = message;
        // After a read error (reset, deadline) xk6-sse keeps the VU blocked until the script
        // closes the client: without this the request would hang until the scenario ends and
        // vanish from the numbers.
        client.close();
      });
    },
  );
  const closedMs = Date.now();
  reader.readKept(log, m);
  // When the stream's end marker arrived: the reply's last byte, and so the end of e2e. Closing
  // the stream and returning from sse.open cost the client milliseconds more under load (see
  // docs/fidelity.md): that is the client's time, not the server's, and shows in llm_client_gap.
  const endMs = log.doneMs || closedMs;
  if (res.error || (res.status === 0 && transportError)) {
    const cls = classifyTransport(0, res.error || transportError, route, variant.url, timeoutMs);
    return { result: failed(res.status ?? 0, cls), startMs, endMs, events: null };
  }
  if (res.status < 200 || res.status >= 300) {
    return { result: failed(res.status, diagnoseStatus(variant, wire, res.status)), startMs, endMs, events: null };
  }
  const result = reader.finish();
  if (!result.ok && result.error?.class === 'truncated' && (pastDeadline || transportError)) {
    // The stream stopped because of the transport (deadline, reset): say that, not "truncated".
    result.error = classifyTransport(0, pastDeadline ? 'deadline exceeded' : transportError, route, variant.url, timeoutMs);
  }
  return { result, startMs, endMs, events: result.ok ? tokenColumns(log) : null };
};

/** What each non-2xx status of a variant and route turned out to mean, in this VU. */
const diagnosed = new Map<string, ClassifiedError>();

/**
 * The extension exposes no body of a non-2xx reply, and the status alone cannot tell a context
 * overflow from another bad request or a missing model from a missing route. So the first time a
 * variant answers a status, the same request goes once over http, and its body classifies this and
 * every later reply with that status (per VU; the message says how it was learned).
 */
function diagnoseStatus(variant: ResolvedVariant, wire: WireRequest, status: number): ClassifiedError {
  const key = `${variant.url} ${wire.path} ${status}`;
  const known = diagnosed.get(key);
  if (known) return known;
  const res = http.post(variant.url + wire.path, wire.body, {
    headers: variant.probeHeaders,
    timeout: variant.params.timeout,
    tags: { name: 'diagnosis (sse error body)' },
  });
  const body = typeof res.body === 'string' ? res.body : '';
  let error: ClassifiedError;
  if (res.status === status && body !== '') {
    const e = variant.dialect.parseBody(status, body, '').error as ClassifiedError;
    error = { class: e.class, message: `${e.message} (Body fetched by sending the request once more over http: xk6-sse exposes none.)` };
  } else {
    const e = variant.dialect.parseBody(status, '', '').error as ClassifiedError;
    error = {
      class: e.class,
      message: `${e.message} (Classified by status alone: xk6-sse exposes no body, and the request sent again over http got ${res.status || res.error}.)`,
    };
  }
  diagnosed.set(key, error);
  return error;
}

/**
 * The sse sender over an xk6-sse module the caller loaded itself (the public library, whose users'
 * bundlers must not see a require: lib/k6/library.ts). Call in the init context.
 */
export function sseSenderWith(module: SseModule): Send {
  sse = module;
  return sendSse;
}

/** Each transport's sender, loaded in the init context (the sse one requires its extension then). */
export const SENDERS: Record<TransportName, () => Send> = {
  http: () => sendHttp,
  sse: () => {
    loadSse();
    return sendSse;
  },
};
