// http.request() on the main thread: follows redirects like Go's client under k6's CheckRedirect,
// emits the http_req_* samples of every hop with k6's system tags (transport.go
// measureAndEmitMetrics), and builds the Response data the VU turns into a script object.

import * as http from 'node:http';
import * as https from 'node:https';
import type { ExpectedStatuses, HttpRequestArgs, HttpResponseData, Sample, TagSet } from '../shared/protocol';
import { roundTrip, type HopRequest, type HopResult } from './http-client';
import type { VUWorker } from './vu-worker';

export interface HttpHost {
  emit(vu: VUWorker, samples: Sample[]): void;
  warn(msg: string, fields: Record<string, string>): void;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

export class HttpService {
  /** One keep-alive agent pair per VU: k6 gives every VU its own transport and connections. */
  private readonly agents = new Map<VUWorker, { http: http.Agent; https: https.Agent }>();

  constructor(private readonly host: HttpHost) {}

  async request(vu: VUWorker, args: HttpRequestArgs): Promise<HttpResponseData> {
    const controller = new AbortController();
    const cancel = () => controller.abort();
    vu.inflight.add(cancel);
    try {
      return await this.follow(vu, args, controller.signal);
    } finally {
      vu.inflight.delete(cancel);
    }
  }

  close(): void {
    for (const a of this.agents.values()) {
      a.http.destroy();
      a.https.destroy();
    }
    this.agents.clear();
  }

  private agentFor(vu: VUWorker, url: string): http.Agent {
    let a = this.agents.get(vu);
    if (!a) {
      a = { http: new http.Agent({ keepAlive: true }), https: new https.Agent({ keepAlive: true }) };
      this.agents.set(vu, a);
    }
    return url.startsWith('https:') ? a.https : a.http;
  }

  private async follow(vu: VUWorker, args: HttpRequestArgs, signal: AbortSignal): Promise<HttpResponseData> {
    const deadline = Date.now() + args.timeoutMs;
    const body = args.body === null ? null : Buffer.from(args.body);
    let hop: HopRequest = { method: args.method, url: args.url, headers: args.headers, body };
    for (let redirects = 0; ; redirects++) {
      const res = await roundTrip(hop, {
        agent: this.agentFor(vu, hop.url),
        deadline,
        discardBody: args.responseType === 'none',
        signal,
      });
      if (signal.aborted) return this.responseData(args, res);
      vu.bytesSent += res.bytesSent;
      vu.bytesReceived += res.bytesReceived;
      this.host.emit(vu, hopSamples(args, res));
      if (res.error) {
        this.host.warn('Request Failed', { error: res.error.goError });
        return this.responseData(args, res);
      }
      const location = res.headers.Location;
      if (!REDIRECTS.has(res.status) || location === undefined) return this.responseData(args, res);
      if (redirects >= args.redirects) {
        if (!args.redirectsExplicit) {
          this.host.warn(
            `Stopped after ${redirects + 1} redirects and returned the redirection; pass { redirects: n } in request params or set global maxRedirects to silence this`,
            { url: args.url },
          );
        }
        return this.responseData(args, res);
      }
      hop = nextHop(hop, res.status, new URL(location, hop.url).href);
    }
  }

  private responseData(args: HttpRequestArgs, res: HopResult): HttpResponseData {
    const ok = res.error === null;
    let body: HttpResponseData['body'] = null;
    const noContent = (res.status >= 100 && res.status <= 199) || res.status === 204 || res.status === 304;
    if (res.body && args.responseType !== 'none' && !noContent) {
      body = args.responseType === 'binary' ? new Uint8Array(res.body) : res.body.toString('utf8');
    }
    return {
      url: res.url,
      // Go sets status and headers only when the whole exchange succeeded: a timeout while
      // reading a streamed body leaves status 0 (and the partial body).
      status: ok ? res.status : 0,
      status_text: ok ? res.statusText : '',
      proto: ok ? res.proto : '',
      headers: ok ? res.headers : {},
      body,
      timings: res.timings,
      error: res.error?.message ?? '',
      error_code: res.error ? res.error.code : res.status >= 400 ? 1000 + res.status : 0,
      remote_ip: res.remoteIP,
      remote_port: res.remotePort,
      request: {
        method: args.method,
        url: args.url,
        headers: Object.fromEntries(Object.entries(args.headers).map(([k, v]) => [k, [v]])),
        body: args.body === null ? '' : typeof args.body === 'string' ? args.body : Buffer.from(args.body).toString('utf8'),
      },
    };
  }
}

/** Go's redirect rules: 301/302/303 turn into a body-less GET (except HEAD); 307/308 repeat as is. */
function nextHop(prev: HopRequest, status: number, url: string): HopRequest {
  if (status === 307 || status === 308) return { ...prev, url };
  const headers = { ...prev.headers };
  delete headers['Content-Type'];
  delete headers['Content-Length'];
  return { method: prev.method === 'HEAD' ? 'HEAD' : 'GET', url, headers, body: null };
}

function expected(spec: ExpectedStatuses, status: number): boolean {
  return spec.exact.includes(status) || spec.ranges.some(([lo, hi]) => lo <= status && status <= hi);
}

/** The samples of one hop with k6's system tags. */
function hopSamples(args: HttpRequestArgs, res: HopResult): Sample[] {
  const tags: TagSet = { ...args.tags };
  const clean = cleanURL(res.url);
  if (tags.name === undefined) {
    tags.name = clean;
    tags.url = clean;
  } else {
    tags.url = tags.name;
  }
  tags.method = args.method;
  if (res.error) {
    tags.error = res.error.message;
    tags.error_code = String(res.error.code);
    tags.status = '0';
  } else {
    tags.status = String(res.status);
    if (res.status >= 400) tags.error_code = String(1000 + res.status);
    tags.proto = res.proto;
    if (res.tlsVersion) tags.tls_version = res.tlsVersion;
  }
  let failed: number | undefined;
  if (args.expected) {
    const ok = expected(args.expected, res.error ? 0 : res.status);
    tags.expected_response = String(ok);
    failed = ok ? 0 : 1;
  }
  const t = res.timings;
  const time = res.endTime;
  const sample = (metric: string, value: number): Sample => ({ metric, value, time, tags });
  const samples = [
    sample('http_reqs', 1),
    sample('http_req_duration', t.duration),
    sample('http_req_blocked', t.blocked),
    sample('http_req_connecting', t.connecting),
    sample('http_req_tls_handshaking', t.tls_handshaking),
    sample('http_req_sending', t.sending),
    sample('http_req_waiting', t.waiting),
    sample('http_req_receiving', t.receiving),
  ];
  if (failed !== undefined) samples.push(sample('http_req_failed', failed));
  return samples;
}

/** k6's URL.Clean(): the URL without user:password. */
function cleanURL(raw: string): string {
  try {
    const u = new URL(raw);
    if (!u.username && !u.password) return raw;
    u.username = '';
    u.password = '';
    return u.href;
  } catch {
    return raw;
  }
}
