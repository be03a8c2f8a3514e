// The `k6/x/sse` extension (phymbert/xk6-sse, sse.go), available only when the run enables it.
// sse.open(url, [params], setup) blocks the VU for the whole stream: the main thread reads the
// stream and forwards each parsed event the moment it arrives, and this loop runs the script's
// handlers as each one is delivered, so Date.now() inside a handler is the arrival time.
//
// Behaviour copied from the extension, including its sharp edges:
//  - a failed request (refused, DNS, timeout before headers) returns {error, status: 0, url: ''}
//    without calling any handler: handlers are registered by the setup function, which only
//    runs once the response headers are in;
//  - after a read error (e.g. the `timeout` expiring mid-stream) the 'error' handler runs and
//    then the call keeps blocking until a handler calls client.close() (or the VU is stopped);
//  - lines other than id:, event:, data:, retry:, comments and blank lines produce an 'error'
//    event "unknown event: <line>"; non-2xx responses are read like any other stream.

import { parseGoDuration } from '../../shared/duration';
import { canonicalHeaderKey } from '../../shared/http-names';
import type { RpcReply, SseMessage, SseOpenArgs } from '../../shared/protocol';
import { isFunction, isNullish } from '../realm';
import { applyUserTags, type VUState } from '../state';

type Handler = (...args: unknown[]) => unknown;

export function createSseModule(vu: VUState, userAgent: string): Record<string, unknown> {
  const { realm } = vu;

  function parseArgs(url: string, rest: unknown[]): { args: SseOpenArgs; setup: Handler } {
    let params: unknown;
    let setup: unknown;
    if (rest.length === 2) [params, setup] = rest;
    else if (rest.length === 1) [setup] = rest;
    else throw realm.goError('invalid number of arguments to sse.open');
    if (!isFunction(setup)) throw realm.goError('last argument to sse.open must be a function');
    const args: SseOpenArgs = {
      url,
      method: '',
      body: '',
      headers: { 'User-Agent': userAgent },
      tags: { ...vu.tags },
      timeoutMs: 0,
    };
    if (!isNullish(params)) {
      const p = Object(params) as Record<string, unknown>;
      for (const key of Object.keys(p)) {
        const v = p[key];
        switch (key) {
          case 'headers':
            if (isNullish(v)) break;
            for (const [k, hv] of Object.entries(Object(v) as Record<string, unknown>)) {
              args.headers[canonicalHeaderKey(k)] = String(hv);
            }
            break;
          case 'tags':
            try {
              applyUserTags(args.tags, v);
            } catch (e) {
              throw realm.goError(`invalid sse.open() metric tags: ${(e as Error).message}`);
            }
            break;
          case 'method':
            args.method = String(v).trim();
            break;
          case 'body':
            args.body = String(v).trim();
            break;
          case 'timeout':
            if (isNullish(v)) break;
            try {
              args.timeoutMs = parseGoDuration(String(v));
            } catch (e) {
              throw realm.goError(`invalid sse.open() timeout: ${(e as Error).message}`);
            }
            break;
          default:
            break;
        }
      }
    }
    args.tags.url = url;
    return { args, setup: setup as Handler };
  }

  function open(url: unknown, ...rest: unknown[]): Record<string, unknown> {
    if (vu.inInit) throw realm.goError('using sse in the init context is not supported');
    const { args, setup } = parseArgs(String(url), rest);
    const id = vu.rpc.start('sse.open', args);
    const handlers = new Map<string, Handler[]>();
    let closed = false;
    const close = () => {
      if (!closed) vu.post({ type: 'sse.close', id });
      closed = true;
    };
    const dispatch = (event: string, arg?: unknown) => {
      for (const handler of handlers.get(event) ?? []) handler(arg);
    };
    try {
      const first = vu.rpc.next(id) as RpcReply & SseMessage;
      if (first.kind === 'openError') {
        return response(vu, { url: '', status: 0, headers: {}, error: first.error });
      }
      if (first.kind !== 'response') throw new Error(`k6 double: unexpected first SSE message ${first.kind}`);

      const client = realm.object();
      client.on = (event: unknown, handler: unknown) => {
        if (!isFunction(handler)) return;
        const name = String(event);
        handlers.set(name, [...(handlers.get(name) ?? []), handler]);
      };
      client.close = () => close();
      setup(client);
      dispatch('open');

      const eventTags = { ...args.tags, status: String(first.status) };
      while (!closed) {
        const msg = vu.rpc.next(id) as RpcReply & SseMessage;
        if (msg.kind === 'event') {
          vu.emitOne('sse_event', 1, eventTags);
          dispatch('event', realm.copy(msg.event));
        }
        else if (msg.kind === 'error') dispatch('error', goErrorValue(vu, msg.error));
        else if (msg.kind === 'end') close();
      }
      return response(vu, { url: String(url), status: first.status, headers: first.headers, error: '' });
    } finally {
      // Tell main the call is over (it emits the request's end metrics then) and forget replies.
      close();
      vu.rpc.finish(id);
    }
  }

  const exports = realm.object();
  exports.open = open;
  return exports;
}

function response(
  vu: VUState,
  res: { url: string; status: number; headers: Record<string, string>; error: string },
): Record<string, unknown> {
  return vu.realm.copy(res) as unknown as Record<string, unknown>;
}

/** What sobek makes of a Go error value: an object whose error() returns the message. */
function goErrorValue(vu: VUState, message: string): Record<string, unknown> {
  const obj = vu.realm.object();
  obj.error = () => message;
  obj.toString = () => message;
  return obj;
}
