// Load client for bench/sim-throughput.ts, run in its own process so that client work does not
// share the simulator's event loop. Keeps `concurrency` streams open (closed loop: a finished
// stream is replaced at once) until the deadline, and reports every event's arrival time.
import http from 'node:http';

export interface ClientJob {
  url: string;
  concurrency: number;
  maxTokens: number;
  promptTokens: number;
  durationMs: number;
}

export interface StreamResult {
  id: string;
  times: number[];
}

const nowMs = (): number => performance.timeOrigin + performance.now();

function runStream(job: ClientJob, agent: http.Agent, seq: number): Promise<StreamResult | null> {
  return new Promise((resolve) => {
    const body = JSON.stringify({
      prompt: Array.from({ length: job.promptTokens }, (_, i) => 1000 + ((seq * 7 + i) % 50000)),
      max_tokens: job.maxTokens,
      ignore_eos: true,
      stream: true,
    });
    const times: number[] = [];
    let id = '';
    let pending = '';
    const req = http.request(`${job.url}/v1/completions`, { method: 'POST', agent, headers: { 'content-type': 'application/json' } }, (res) => {
      res.setEncoding('latin1');
      res.on('data', (chunk: string) => {
        const t = nowMs();
        pending += chunk;
        let i: number;
        // Cheap framing: count events without parsing their JSON; take the id from the first one.
        while ((i = pending.indexOf('\n\n')) >= 0) {
          const ev = pending.slice(0, i);
          pending = pending.slice(i + 2);
          if (ev === 'data: [DONE]') continue;
          if (!id) id = /"id":"([^"]+)"/.exec(ev)?.[1] ?? '';
          times.push(t);
        }
      });
      res.on('end', () => resolve({ id, times }));
      res.on('error', () => resolve(null));
    });
    req.on('error', () => resolve(null));
    req.end(body);
  });
}

async function main(): Promise<void> {
  const job = JSON.parse(process.argv[2] ?? '{}') as ClientJob;
  const agent = new http.Agent({ keepAlive: true, maxSockets: Infinity });
  const deadline = nowMs() + job.durationMs;
  const results: StreamResult[] = [];
  let seq = 0;
  let failures = 0;
  const lane = async (): Promise<void> => {
    while (nowMs() < deadline) {
      const r = await runStream(job, agent, seq++);
      if (r) results.push(r);
      else failures++;
    }
  };
  process.send?.({ type: 'started' });
  await Promise.all(Array.from({ length: job.concurrency }, lane));
  agent.destroy();
  process.send?.({ type: 'done', results, failures }, () => process.exit(0));
}

void main();
