// A local HTTP server for the double's tests. Besides plain endpoints it has a streaming one that
// sends the response headers at once and SSE events later (what vLLM/SGLang do), recording when
// each event was written so tests can compare with when the script saw it.

import * as http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface TestServer {
  url: string;
  /** Write times (ms since the epoch) of SSE events, keyed by stream id then event index. */
  sent: Map<string, number[]>;
  /** Requests seen, in order. */
  requests: Array<{ method: string; url: string; headers: http.IncomingHttpHeaders; body: string }>;
  close(): Promise<void>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function startServer(): Promise<TestServer> {
  const sent = new Map<string, number[]>();
  const requests: TestServer['requests'] = [];
  const sockets = new Set<import('node:net').Socket>();
  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
    const u = new URL(req.url ?? '/', 'http://x');
    const q = (k: string, d: number) => Number(u.searchParams.get(k) ?? d);
    switch (u.pathname) {
      case '/json':
        res.setHeader('content-type', 'application/json');
        res.setHeader('x-multi', ['a', 'b']);
        res.end(JSON.stringify({ ok: true, items: [{ id: 7 }, { id: 8 }], n: 2 }));
        return;
      case '/text':
        res.end('not json {');
        return;
      case '/status':
        res.statusCode = q('code', 200);
        res.end('status');
        return;
      case '/slow':
        await sleep(q('ms', 100));
        res.end('slow');
        return;
      case '/hang':
        return; // never answers
      case '/reset':
        req.socket.destroy();
        return;
      case '/redirect': {
        const n = q('n', 1);
        res.statusCode = 302;
        res.setHeader('location', n > 1 ? `/redirect?n=${n - 1}` : '/json');
        res.end();
        return;
      }
      case '/echo':
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ method: req.method, body, ua: req.headers['user-agent'], custom: req.headers['x-custom'] }));
        return;
      case '/stream': {
        // Headers first, events later: waiting ends with the headers, the events arrive in receiving.
        const id = u.searchParams.get('id') ?? 'default';
        res.statusCode = q('code', 200);
        res.setHeader('content-type', 'text/event-stream');
        res.flushHeaders();
        const times: number[] = [];
        sent.set(id, times);
        await sleep(q('first', 300));
        const events = q('events', 3);
        for (let i = 0; i < events; i++) {
          if (i > 0) await sleep(q('gap', 100));
          if (res.destroyed) return;
          times.push(Date.now());
          res.write(`id: ${i}\nevent: token\ndata: {"i":${i}}\n\n`);
        }
        if (u.searchParams.get('hold') === '1') return; // keep the stream open
        res.end('data: [DONE]\n\n');
        return;
      }
      default:
        res.statusCode = 404;
        res.end('not found');
    }
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    sent,
    requests,
    close: () =>
      new Promise((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  };
}

/** A port nothing listens on (bound, then released). */
export async function closedPort(): Promise<number> {
  const s = http.createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address() as AddressInfo;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}
