// The little HTTP the decisions in lib/ need (preflight, the server-metrics probe), as an
// interface: the k6 layer implements it with k6/http (lib/k6/k6-http-port.ts) and Node tests with
// fakes, so every decision is tested without k6.

export interface HttpReply {
  /** 0 when no HTTP answer came (refused, timed out, reset). */
  status: number;
  body: string;
  contentType: string;
  /** Transport error text and k6 error code when status is 0. */
  error: string;
  errorCode: number;
}

export interface HttpRequest {
  headers: Record<string, string>;
  timeoutMs: number;
  /** The route as reports name it, e.g. "GET /health" (k6's `name` tag). */
  name: string;
}

export interface HttpPort {
  get(url: string, req: HttpRequest): HttpReply;
  post(url: string, body: string, req: HttpRequest): HttpReply;
  /** Blocks the caller (a k6 VU sleeps). */
  sleep(ms: number): void;
  now(): number;
}

/** One request of a batch. */
export interface BatchRequest {
  method: 'GET' | 'POST';
  url: string;
  /** The POST body; none for a GET. */
  body?: string;
  req: HttpRequest;
}

/**
 * A port that also sends requests together (k6's http.batch): they go out at once, each under its
 * own timeout, and the call returns when the last has ended, the replies in the requests' order.
 * Preflight needs it to wait one deadline for several routes instead of one deadline each.
 */
export interface BatchPort extends HttpPort {
  batch(requests: readonly BatchRequest[]): HttpReply[];
}
