// Test client for the simulator: plain node:http so every SSE chunk gets its own arrival time.
import http from 'node:http';
import { after } from 'node:test';
import { startSim, type SimHandle, type SimOptionsInput } from '../../sim/index';

export const nowMs = (): number => performance.timeOrigin + performance.now();

/** Starts a sim for the current test file and stops it when the file is done. */
export async function sim(opts: SimOptionsInput = {}): Promise<SimHandle> {
  const h = await startSim({ timeScale: 20, ...opts });
  after(() => h.stop());
  return h;
}

export interface Reply {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
  /** Time the response headers arrived. */
  headersMs: number;
  /** SSE data payloads with their arrival time (one entry per `data:` line). */
  events: { data: string; t: number }[];
  error?: NodeJS.ErrnoException;
}

export interface RequestOpts {
  method?: string;
  body?: unknown;
  headers?: Record<string, string>;
  /** Abort the request after this many ms (client-side timeout). */
  timeoutMs?: number;
}

/** One request; resolves with whatever arrived, including on a reset or a client timeout. */
export function request(base: string, path: string, o: RequestOpts = {}): Promise<Reply> {
  return new Promise((resolve) => {
    const body = o.body === undefined ? undefined : typeof o.body === 'string' ? o.body : JSON.stringify(o.body);
    const reply: Reply = { status: 0, headers: {}, body: '', headersMs: 0, events: [] };
    let pending = '';
    let settled = false;
    const done = (err?: NodeJS.ErrnoException): void => {
      if (settled) return;
      settled = true;
      if (timer) clearTimeout(timer);
      if (err) reply.error = err;
      resolve(reply);
    };
    const req = http.request(
      `${base}${path}`,
      { method: o.method ?? (body === undefined ? 'GET' : 'POST'), headers: { 'content-type': 'application/json', ...o.headers }, agent: false },
      (res) => {
        reply.status = res.statusCode ?? 0;
        reply.headers = res.headers;
        reply.headersMs = nowMs();
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          const t = nowMs();
          reply.body += chunk;
          pending += chunk;
          let i: number;
          while ((i = pending.indexOf('\n\n')) >= 0) {
            const block = pending.slice(0, i);
            pending = pending.slice(i + 2);
            for (const line of block.split('\n')) if (line.startsWith('data: ')) reply.events.push({ data: line.slice(6), t });
          }
        });
        res.on('end', () => done());
        res.on('error', (e) => done(e));
        res.on('aborted', () => done(Object.assign(new Error('aborted'), { code: 'ECONNRESET' })));
      },
    );
    const timer = o.timeoutMs
      ? setTimeout(
          () => (
            req.destroy(Object.assign(new Error('client timeout'), { code: 'ETIMEDOUT' })),
            done(reply.error ?? Object.assign(new Error('client timeout'), { code: 'ETIMEDOUT' }))
          ),
          o.timeoutMs,
        )
      : null;
    req.on('error', (e) => done(e));
    if (body !== undefined) req.write(body);
    req.end();
  });
}

export function json<T = Record<string, unknown>>(r: Reply): T {
  return JSON.parse(r.body) as T;
}

/** Parsed JSON of every SSE event except [DONE]. */
export function events<T = Record<string, unknown>>(r: Reply): T[] {
  return r.events.filter((e) => e.data !== '[DONE]').map((e) => JSON.parse(e.data) as T);
}

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
