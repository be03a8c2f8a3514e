// Benchmark of the simulator itself: how many concurrent streams it sustains and how precisely it
// keeps event times. The simulator runs in this process (so its CPU time can be read); the client
// runs in a child process. Prints figures; asserts nothing.
//   npx tsx bench/sim-throughput.ts [levels=500,1000,2000,4000] [seconds=20] [maxTokens=64]
import { fork } from 'node:child_process';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { stats } from '../sim/ground-truth';
import { startSim } from '../sim/index';
import type { ClientJob, StreamResult } from './sim-client';

const levels = (process.argv[2] ?? '500,1000,2000,4000').split(',').map(Number);
const seconds = Number(process.argv[3] ?? 20);
const maxTokens = Number(process.argv[4] ?? 64);
const promptTokens = 16;
const nowMs = (): number => performance.timeOrigin + performance.now();
const f = (v: number | null, d = 2): string => (v === null ? '-' : v.toFixed(d));

interface ClientReply {
  type: 'started' | 'done';
  results?: StreamResult[];
  failures?: number;
}

async function level(concurrency: number): Promise<void> {
  const sim = await startSim({
    engine: 'vllm',
    timeScale: 1,
    maxRunning: concurrency,
    maxBatchedTokens: Math.max(8192, concurrency * 2),
    kvCapacity: Math.max(400_000, concurrency * (promptTokens + 2 * maxTokens) * 2),
    prefixCaching: false,
  });
  const job: ClientJob = { url: sim.url, concurrency, maxTokens, promptTokens, durationMs: seconds * 1000 };
  const client = fork(join(__dirname, 'sim-client.ts'), [JSON.stringify(job)], { execArgv: ['--import', 'tsx'], serialization: 'advanced' });
  const started = nowMs();
  // Measure after the ramp (every stream admitted and past its first generation) until the deadline.
  const rampMs = Math.min(seconds * 1000 * 0.4, 8000);
  let cpu0 = process.cpuUsage();
  let winFrom = 0;
  const rampTimer = setTimeout(() => {
    cpu0 = process.cpuUsage();
    winFrom = nowMs();
  }, rampMs);
  let cpu: NodeJS.CpuUsage = { user: 0, system: 0 };
  let winTo = 0;
  const endTimer = setTimeout(() => {
    cpu = process.cpuUsage(cpu0);
    winTo = nowMs();
  }, seconds * 1000);
  const reply = await new Promise<ClientReply>((resolve) => client.on('message', (m: ClientReply) => m.type === 'done' && resolve(m)));
  clearTimeout(rampTimer);
  clearTimeout(endTimer);
  if (!winTo) winTo = started + seconds * 1000;
  const gt = sim.groundTruth();
  const sum = gt.summary(winFrom, winTo);
  const byId = new Map(gt.requests.map((r) => [r.id, r]));
  const vsScheduled: number[] = [];
  const vsRecorded: number[] = [];
  const writeLate: number[] = [];
  const gapError: number[] = [];
  const gapVsRecorded: number[] = [];
  // Intake, over every request (the opening burst included): recorded arrival − client send.
  const arrivalLate: number[] = [];
  const intakeBound: number[] = [];
  let unflagged = 0;
  let unmatched = 0;
  for (const r of reply.results ?? []) {
    const rec = byId.get(r.id);
    if (!rec || rec.events.length !== r.times.length) {
      unmatched++;
      continue;
    }
    const late = rec.arrivalMs - r.sentAt;
    arrivalLate.push(late);
    intakeBound.push(rec.intakeLagMs);
    // The ground truth should own up to its intake lag: late by more than it says (1 ms of slack for the client's own write).
    if (late > rec.intakeLagMs + 1) unflagged++;
    r.times.forEach((t, i) => {
      const e = rec.events[i];
      if (!e || e.timeMs < winFrom || e.timeMs >= winTo) return;
      vsScheduled.push(t - e.scheduledMs);
      vsRecorded.push(t - e.timeMs);
      writeLate.push(e.timeMs - e.scheduledMs);
      // Inter-event gap as the client saw it, minus the gap the model scheduled / the sim recorded.
      const prev = rec.events[i - 1];
      if (i > 0 && prev) {
        const seen = t - (r.times[i - 1] as number);
        gapError.push(Math.abs(seen - (e.scheduledMs - prev.scheduledMs)));
        gapVsRecorded.push(Math.abs(seen - (e.timeMs - prev.timeMs)));
      }
    });
  }
  const winSteps = gt.steps.filter((s) => s.actualMs >= winFrom && s.actualMs < winTo);
  const meanBatch = winSteps.reduce((a, s) => a + s.batch, 0) / Math.max(1, winSteps.length);
  // A step's writes, first to last, from the events it wrote (one event per stream per step).
  const bySteps = new Map<number, { lo: number; hi: number }>();
  for (const rec of gt.requests) {
    if (!rec.stream) continue;
    for (const e of rec.events) {
      if (e.timeMs < winFrom || e.timeMs >= winTo) continue;
      const x = bySteps.get(e.scheduledMs);
      if (!x) bySteps.set(e.scheduledMs, { lo: e.timeMs, hi: e.timeMs });
      else {
        x.lo = Math.min(x.lo, e.timeMs);
        x.hi = Math.max(x.hi, e.timeMs);
      }
    }
  }
  const spread = stats([...bySteps.values()].map((x) => x.hi - x.lo));
  const cpuMs = (cpu.user + cpu.system) / 1000;
  const windowS = (winTo - winFrom) / 1000;
  const a = stats(vsScheduled);
  const b = stats(vsRecorded);
  const w = stats(writeLate);
  const l = sum.stepLatenessMs;
  const g = stats(gapError);
  const gr = stats(gapVsRecorded);
  const al = stats(arrivalLate);
  const ib = stats(intakeBound);
  const max = (v: number[]): string => f(v.length ? v.reduce((x, y) => Math.max(x, y), -Infinity) : null);
  console.log(
    [
      `streams ${concurrency} (machine load average ${loadavg()[0]?.toFixed(1)} on 2 cores): mean running batch ` +
        `${meanBatch.toFixed(0)}, ${sum.steps} steps in ${windowS.toFixed(1)} s window, ${(reply.results ?? []).length} ` +
        `streams done, ${reply.failures ?? 0} failed, ${unmatched} unmatched`,
      `  output tokens/s (ground truth): ${sum.outputTokensPerSec.toFixed(0)}; events/s written: ${(w.count / windowS).toFixed(0)}`,
      `  intake, recorded arrival - client send (ms, all requests): p50 ${f(al.p50)} p99 ${f(al.p99)} max ${max(arrivalLate)}   [n=${al.count}]`,
      `  intake lag the ground truth reports (ms): p50 ${f(ib.p50)} p99 ${f(ib.p99)} max ${max(intakeBound)}; arrivals later than reported: ${unflagged}`,
      `  client arrival - scheduled step end (ms): p50 ${f(a.p50)} p99 ${f(a.p99)}   [n=${a.count}]`,
      `  client arrival - recorded write time (ms): p50 ${f(b.p50)} p99 ${f(b.p99)}`,
      `  sim write time - scheduled step end (ms):  p50 ${f(w.p50)} p99 ${f(w.p99)}`,
      `  |client inter-event gap - scheduled gap| (ms): p50 ${f(g.p50)} p99 ${f(g.p99)}`,
      `  |client inter-event gap - recorded gap| (ms):  p50 ${f(gr.p50)} p99 ${f(gr.p99)}`,
      `  sim step lateness, timer fire - scheduled (ms): p50 ${f(l.p50)} p99 ${f(l.p99)}; a step's writes, ` +
        `first to last (ms): p50 ${f(spread.p50)} p99 ${f(spread.p99)}`,
      `  ground truth flags (threshold ${sum.lagThresholdMs} ms): ${sum.behind} of ${sum.lagMs.count} requests ` +
        `behind, ${sum.stepsBehind} of ${sum.steps} steps behind`,
      `  sim CPU: ${f(cpuMs, 0)} ms over the window = ${f(sum.outputTokens ? (cpuMs / sum.outputTokens) * 1000 : null, 1)} ` +
        `ms per 1k tokens (${f((cpuMs / (winTo - winFrom)) * 100, 0)}% of a core)`,
    ].join('\n'),
  );
  await sim.stop();
}

async function main(): Promise<void> {
  console.log(
    `sim throughput benchmark: vLLM engine, time-scale 1, prompt ${promptTokens} tokens, ${maxTokens / 2}..${(3 * maxTokens) / 2 - 1} ` +
      `output tokens per stream (mean ${maxTokens}), ${seconds} s per level`,
  );
  for (const n of levels) await level(n);
}

void main();
