// HttpPort on k6: the requests preflight and the server-metrics probe make, tagged so they are
// told apart from the load (phase: preflight or probe).
import http from 'k6/http';
import { sleep } from 'k6';
import type { BatchPort, HttpReply, HttpRequest } from '../http-port';

function reply(res: { status: number; body: unknown; headers: Record<string, unknown>; error: string; error_code: number }): HttpReply {
  return {
    status: res.status,
    body: typeof res.body === 'string' ? res.body : '',
    contentType: (res.headers['Content-Type'] as string | undefined) ?? '',
    error: res.error,
    errorCode: res.error_code,
  };
}

export function k6Port(phase: string): BatchPort {
  const params = (r: HttpRequest) => ({ headers: r.headers, timeout: r.timeoutMs, tags: { name: r.name, phase }, responseType: 'text' as const });
  return {
    get: (url, r) => reply(http.get(url, params(r))),
    post: (url, body, r) => reply(http.post(url, body, params(r))),
    // k6 sends a batch's requests in parallel (up to its `batch` and `batchPerHost` options, 20
    // and 6 by default: more than preflight ever sends at once).
    batch: (reqs) => http.batch(reqs.map((r) => ({ method: r.method, url: r.url, body: r.body ?? null, params: params(r.req) }))).map(reply),
    sleep: (ms) => sleep(ms / 1000),
    now: () => Date.now(),
  };
}
