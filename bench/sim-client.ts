// Load client for bench/sim-throughput.ts, run in its own process so that client work does not
// share the simulator's event loop. Keeps `concurrency` streams open (closed loop: a finished
// stream is replaced at once on the same keep-alive connection) until the deadline, and reports
// every event's arrival time.
// It speaks HTTP/1.1 over raw sockets and only frames events (counts "data: " lines), because at
// thousands of streams the client's own per-event cost decides how late it notices an event.
import net from 'node:net';

export interface ClientJob {
  url: string;
  concurrency: number;
  maxTokens: number;
  promptTokens: number;
  durationMs: number;
}

export interface StreamResult {
  id: string;
  /** When the request's bytes were handed to the socket (epoch ms). */
  sentAt: number;
  /** When each event's bytes were read (epoch ms). */
  times: number[];
}

const nowMs = (): number => performance.timeOrigin + performance.now();

/** One keep-alive connection running streams back to back until the deadline. */
function lane(job: ClientJob, { host, port }: { host: string; port: number }, deadline: number, first: number, out: StreamResult[]): Promise<number> {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port, noDelay: true });
    socket.setEncoding('latin1');
    let seq = first;
    let failures = 0;
    let cur: StreamResult = { id: '', sentAt: 0, times: [] };
    let tail = '';
    const send = (): void => {
      const body = JSON.stringify({
        prompt: Array.from({ length: job.promptTokens }, (_, i) => 1000 + ((seq * 7 + i) % 50000)),
        // Lengths spread over [max/2, 3·max/2) so streams finish (and re-prefill) at different steps.
        max_tokens: Math.floor(job.maxTokens / 2) + ((seq * 37) % job.maxTokens),
        ignore_eos: true,
        stream: true,
      });
      seq += job.concurrency;
      cur = { id: '', sentAt: nowMs(), times: [] };
      tail = '';
      socket.write(
        `POST /v1/completions HTTP/1.1\r\nhost: ${host}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
      );
    };
    socket.on('connect', send);
    socket.on('data', (chunk: string) => {
      const t = nowMs();
      // Keep a short tail so a "data: " split across reads is still seen once.
      const text = tail + chunk;
      let i = text.indexOf('data: ', 0);
      while (i >= 0) {
        if (text.startsWith('data: [DONE]', i)) {
          i = text.indexOf('data: ', i + 6);
          continue;
        }
        if (!cur.id) cur.id = /"id":"([^"]+)"/.exec(text.slice(i, i + 200))?.[1] ?? '';
        cur.times.push(t);
        i = text.indexOf('data: ', i + 6);
      }
      tail = text.slice(-5);
      // The terminating zero-length chunk ends the response; the connection is reused.
      if (text.endsWith('0\r\n\r\n') && text.includes('[DONE]', Math.max(0, text.length - 40))) {
        out.push(cur);
        if (nowMs() < deadline) send();
        else socket.end();
      }
    });
    socket.on('error', () => failures++);
    socket.on('close', () => resolve(failures));
  });
}

async function main(): Promise<void> {
  const job = JSON.parse(process.argv[2] ?? '{}') as ClientJob;
  const { hostname, port } = new URL(job.url);
  const deadline = nowMs() + job.durationMs;
  const results: StreamResult[] = [];
  process.send?.({ type: 'started' });
  const failures = await Promise.all(
    Array.from({ length: job.concurrency }, (_, i) => lane(job, { host: hostname, port: Number(port) }, deadline, i, results)),
  );
  process.send?.({ type: 'done', results, failures: failures.reduce((a, b) => a + b, 0) }, () => process.exit(0));
}

void main();
