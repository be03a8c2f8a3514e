// The `k6/http` module (js/modules/k6/http): request parsing happens here in the VU, the request
// itself on the main thread (host/http-client.ts), which also emits the http_req_* samples.

import { toDurationMs } from '../../shared/duration';
import { canonicalHeaderKey } from '../../shared/http-names';
import type { ExpectedStatuses, HttpDefaults, HttpRequestArgs, HttpResponseData } from '../../shared/protocol';
import { k6JSONParseError } from '../go-json-error';
import { selectJSON } from '../json-select';
import { isNullish, toBytes } from '../realm';
import { applyUserTags, type VUState } from '../state';

const DEFAULT_EXPECTED: ExpectedStatuses = { exact: [], ranges: [[200, 399]] };
const DEFAULT_TIMEOUT_MS = 60_000;

export function createHttpModule(vu: VUState, defaults: HttpDefaults): Record<string, unknown> {
  const { realm } = vu;
  /** Objects returned by http.expectedStatuses(), recognised by identity like k6's Go type check. */
  const expectedSpecs = new WeakMap<object, ExpectedStatuses>();
  let responseCallback: ExpectedStatuses | null = DEFAULT_EXPECTED;

  function parseRequest(method: string, url: unknown, body: unknown, params: unknown): HttpRequestArgs {
    if (vu.inInit) throw realm.goError('Making http requests in the init context is not supported');
    const headers: Record<string, string> = { 'User-Agent': defaults.userAgent };
    const args: HttpRequestArgs = {
      method,
      url: String(url),
      headers,
      body: null,
      timeoutMs: DEFAULT_TIMEOUT_MS,
      responseType: defaults.discardResponseBodies ? 'none' : 'text',
      redirects: defaults.maxRedirects,
      redirectsExplicit: false,
      tags: { ...vu.tags },
      expected: responseCallback,
    };
    if (!isNullish(body)) {
      const bytes = typeof body === 'string' ? null : toBytes(body);
      if (typeof body === 'string') args.body = body;
      else if (bytes) args.body = bytes;
      else if (typeof body === 'object') {
        args.body = encodeForm(body as Record<string, unknown>);
        headers['Content-Type'] = 'application/x-www-form-urlencoded';
      } else throw realm.goError(`unknown request body type ${typeof body}`);
    }
    if (isNullish(params)) return args;
    const p = Object(params) as Record<string, unknown>;
    for (const key of Object.keys(p)) {
      const v = p[key];
      switch (key) {
        case 'headers':
          if (isNullish(v)) break;
          for (const [k, hv] of Object.entries(Object(v) as Record<string, unknown>)) headers[canonicalHeaderKey(k)] = String(hv);
          break;
        case 'tags':
          try {
            applyUserTags(args.tags, v);
          } catch (e) {
            throw realm.goError(`invalid HTTP request metric tags: ${(e as Error).message}`);
          }
          break;
        case 'timeout':
          try {
            args.timeoutMs = toDurationMs(v);
          } catch (e) {
            throw realm.goError(`invalid timeout value: ${(e as Error).message}`);
          }
          break;
        case 'responseType': {
          const t = String(v);
          if (t !== 'text' && t !== 'binary' && t !== 'none') throw realm.goError(`${t} does not belong to ResponseType values`);
          args.responseType = t;
          break;
        }
        case 'redirects':
          args.redirects = Math.trunc(Number(v));
          args.redirectsExplicit = true;
          break;
        case 'responseCallback':
          if (isNullish(v)) args.expected = null;
          else {
            const spec = typeof v === 'object' ? expectedSpecs.get(v as object) : undefined;
            if (!spec) throw realm.goError('unsupported responseCallback');
            args.expected = spec;
          }
          break;
        default:
          // cookies, jar, auth, compression, throw: not implemented by the double (see docs).
          break;
      }
    }
    return args;
  }

  function request(method: unknown, url: unknown, body?: unknown, params?: unknown): Record<string, unknown> {
    const args = parseRequest(String(method), url, body, params);
    const { response } = vu.rpc.call('http.request', args);
    return makeResponse(vu, response);
  }

  const exports = realm.object();
  exports.request = request;
  exports.get = (url: unknown, params?: unknown) => request('GET', url, undefined, params);
  exports.head = (url: unknown, params?: unknown) => request('HEAD', url, undefined, params);
  for (const [name, method] of [
    ['post', 'POST'],
    ['put', 'PUT'],
    ['patch', 'PATCH'],
    ['del', 'DELETE'],
    ['options', 'OPTIONS'],
  ] as const) {
    exports[name] = (url: unknown, body?: unknown, params?: unknown) => request(method, url, body, params);
  }
  exports.batch = () => {
    throw realm.goError('http.batch() is not implemented by the k6 test double');
  };
  exports.expectedStatuses = (...specs: unknown[]) => {
    const spec = parseExpectedStatuses(specs, (m) => realm.goError(m));
    const obj = realm.object();
    expectedSpecs.set(obj, spec);
    return obj;
  };
  exports.setResponseCallback = (cb: unknown) => {
    if (cb === null) {
      responseCallback = null;
      return;
    }
    const spec = typeof cb === 'object' && cb !== null ? expectedSpecs.get(cb) : undefined;
    if (!spec) throw realm.goError('unsupported argument, expected http.expectedStatuses');
    responseCallback = spec;
  };
  Object.assign(exports, {
    TLS_1_0: 'tls1.0',
    TLS_1_1: 'tls1.1',
    TLS_1_2: 'tls1.2',
    TLS_1_3: 'tls1.3',
  });
  return exports;
}

function parseExpectedStatuses(specs: unknown[], err: (m: string) => Error): ExpectedStatuses {
  if (specs.length === 0) throw err('no arguments');
  const result: ExpectedStatuses = { exact: [], ranges: [] };
  specs.forEach((arg, i) => {
    if (Number.isInteger(arg)) {
      result.exact.push(arg as number);
      return;
    }
    const o = arg as { min?: unknown; max?: unknown } | null;
    if (o === null || typeof o !== 'object' || o.min === undefined || o.max === undefined) {
      throw err(
        `argument number ${i + 1} to expectedStatuses was neither an integer nor an object like {min:100, max:329}`,
      );
    }
    if (!Number.isInteger(o.min) || !Number.isInteger(o.max)) {
      throw err(`both min and max need to be integers for argument number ${i + 1}`);
    }
    result.ranges.push([o.min as number, o.max as number]);
  });
  return result;
}

/** Go's url.Values.Encode: keys sorted, QueryEscape'd, arrays repeated. */
function encodeForm(data: Record<string, unknown>): string {
  const pairs: string[] = [];
  for (const key of Object.keys(data).sort()) {
    const v = data[key];
    const values = Array.isArray(v) ? v : [v];
    for (const item of values) pairs.push(`${queryEscape(key)}=${queryEscape(String(item))}`);
  }
  return pairs.join('&');
}

function queryEscape(s: string): string {
  let out = '';
  for (const byte of new TextEncoder().encode(s)) {
    const c = String.fromCharCode(byte);
    if (/[A-Za-z0-9\-_.~]/.test(c)) out += c;
    else if (c === ' ') out += '+';
    else out += '%' + byte.toString(16).toUpperCase().padStart(2, '0');
  }
  return out;
}

/** Builds the script-side Response object: k6's field names (snake_case) plus json(). */
function makeResponse(vu: VUState, data: HttpResponseData): Record<string, unknown> {
  const { realm } = vu;
  const { body, ...plain } = data;
  const res = realm.copy(plain) as unknown as Record<string, unknown>;
  res.body = body instanceof Uint8Array ? realm.arrayBuffer(body) : body;
  res.cookies = realm.object();
  res.tls_version = '';
  res.tls_cipher_suite = '';
  let cached: { value: unknown } | null = null;
  res.json = (selector?: unknown): unknown => {
    const current = res.body;
    if (current === null || current === undefined) {
      throw realm.goError(
        "the body is null so we can't transform it to JSON - this likely was because of a request error getting the response",
      );
    }
    const text = typeof current === 'string' ? current : new TextDecoder().decode(toBytes(current) ?? new Uint8Array());
    if (selector !== undefined) {
      if (k6JSONParseError(text) !== null) return undefined;
      const found = selectJSON(JSON.parse(text), String(selector));
      return found.found ? realm.copy(found.value) : undefined;
    }
    if (!cached) {
      const error = k6JSONParseError(text);
      if (error !== null) throw realm.goError(error);
      cached = { value: realm.parseJSON(text) };
    }
    return cached.value;
  };
  for (const name of ['html', 'submitForm', 'clickLink']) {
    res[name] = () => {
      throw realm.goError(`Response.${name}() is not implemented by the k6 test double`);
    };
  }
  return res;
}
