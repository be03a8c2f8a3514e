// A bad network between k6 and the server (test/net/fault-proxy.ts), on real k6 over both
// transports: replies split into small TCP writes are read right; a stream a proxy holds and
// flushes, or one a throttled link delivers, is reported as the client saw it; a connection cut or
// reset mid-reply (told apart by k6's error text), or a reply slower than REQUEST_TIMEOUT, ends
// counted and classed, in a run that stays bounded and exits non-zero. Messages and Responses go
// through the proxy too. Each case is a 3 s load against its own simulator at timeScale 4 (timing is
// the subject only where the proxy makes it): about 7-14 s a case, two at a time.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { spawnSim, type RemoteSim } from './sim-process';
import { explain, RUNNERS, type SummaryJson } from './harness';
import { startFaultProxy, type NetFaults } from '../net/fault-proxy';
import { MATRIX_ENV } from '../../scripts/fault-matrix';

const OSL = Number(MATRIX_ENV.OSL);

interface NetCase {
  id: string;
  faults: NetFaults;
  env?: Record<string, string>;
  /** Switched on once the load has reached the server (the preflight meets a good network), or from the start. */
  when: 'start' | 'load';
  exit: number;
  /** The classes the failures may have; empty: none may fail. */
  classes: string[];
  /** The API spoken; default openai. */
  dialect?: string;
  /** What the first failure's logged message must say (k6's own error text, as each VU logs it), and must not. */
  says?: { match: RegExp; not: RegExp };
}

// What k6 surfaces for a FIN inside the body and for an RST, on both transports and on v1.3 and
// v2.2 alike (measured here): Go's "unexpected EOF" and "read: connection reset by peer".
const CUT_SAYS = /connection_lost: .*the connection was closed mid-reply \(unexpected EOF\)/;
const RESET_SAYS = /connection_lost: .*the connection was lost mid-reply \(.*connection reset by peer\)/;

const CASES: NetCase[] = [
  // Each reply reaches k6 in pieces of 5 bytes: events split across reads.
  { id: 'split-writes', faults: { splitBytes: 5 }, when: 'start', exit: 0, classes: [] },
  // The same for named events (`event: …` then `data: …`, no [DONE]): Anthropic Messages; Responses frames its events alike.
  { id: 'split-writes-anthropic', faults: { splitBytes: 5 }, when: 'start', exit: 0, classes: [], dialect: 'anthropic' },
  // A buffering proxy: what the server streamed over 300 ms arrives in one burst.
  // The server's own /metrics let the client self-check tell a held stream from a slow client.
  { id: 'hold-and-flush', faults: { holdMs: 300 }, env: { SERVER_METRICS: 'on' }, when: 'start', exit: 0, classes: [] },
  // A throttled link (4 KB/s per connection): each Responses reply (~5 KB of named events) takes
  // about a second to arrive, though the server wrote it in a tenth of that. The client reads every
  // event and its timings are the link's: e2e and ITL far above the server's own (its records).
  {
    id: 'throttle-responses',
    faults: { bytesPerSec: 4000 },
    env: { REQUEST_TIMEOUT: '5s', PREFLIGHT_TIMEOUT: '5s' },
    when: 'start',
    exit: 0,
    classes: [],
    dialect: 'responses',
  },
  // The proxy closes the connection (FIN) after 300 bytes: mid-reply, inside the HTTP body, whose
  // framing (chunked) is then broken: the connection was lost, not a whole reply cut short. Spoken
  // in Messages (named events): the transport error wins over the reader's "truncated".
  {
    id: 'cut-anthropic',
    faults: { cutAfterBytes: 300 },
    when: 'load',
    exit: 99,
    classes: ['connection_lost'],
    dialect: 'anthropic',
    says: { match: CUT_SAYS, not: /reset/ },
  },
  // The proxy resets the connection after 300 bytes: the same class, another message.
  {
    id: 'reset',
    faults: { resetAfterBytes: 300 },
    when: 'load',
    exit: 99,
    classes: ['connection_lost'],
    says: { match: RESET_SAYS, not: /unexpected EOF/ },
  },
  // Every byte 3 s late: longer than REQUEST_TIMEOUT (2 s).
  { id: 'delay-past-timeout', faults: { delayMs: 3000 }, when: 'load', exit: 99, classes: ['timeout'] },
];

interface Extended extends SummaryJson {
  test_run_duration_ms: number | null;
  records: Array<
    SummaryJson['records'][number] & {
      itl_ms: { p50: number; p99: number; avg: number; count: number } | null;
      e2e_ms: { p50: number; p99: number; avg: number; count: number } | null;
      ttft_ms: { p50: number; p99: number; avg: number; count: number } | null;
    }
  >;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** Resolves once the simulator has seen the first measured request (preflight never asks for OSL tokens). */
async function loadStarted(sim: RemoteSim, limitMs: number): Promise<void> {
  const until = Date.now() + limitMs;
  while (Date.now() < until) {
    if ((await sim.requests()).some((r) => r.maxNewTokens === OSL)) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('the load never reached the simulator');
}

async function runCase(runner: (typeof RUNNERS)[number], c: NetCase, transport: 'http' | 'sse'): Promise<void> {
  const sim = await spawnSim({ engine: 'vllm', timeScale: 4, seed: 13 });
  const upstream = Number(new URL(sim.url).port);
  const proxy = await startFaultProxy(upstream, c.when === 'start' ? c.faults : {});
  let switched: Promise<void> = Promise.resolve();
  try {
    if (c.when === 'load') {
      switched = loadStarted(sim, 30_000).then(() => proxy.set(c.faults));
      switched.catch(() => {});
    }
    const env: Record<string, string> = { ...MATRIX_ENV, ...c.env, TARGET_URL: proxy.url, DIALECT: c.dialect ?? 'openai', TRANSPORT: transport };
    // Over http the stream is asked for and read whole: the faults act on the same bytes.
    if (transport === 'http') env.STREAM = 'true';
    const run = await runner.run('context-matrix', env, 90_000);
    const why = explain(run);
    await switched;
    assert.equal(run.result.exitCode, c.exit, why);
    const s = run.summary as Extended;
    assert.ok(s, why);
    const rec = s.records[0];
    const classes = Object.keys(s.errors_by_class);
    const stats = proxy.stats();
    console.log(
      `# ${transport} ${c.id}: ${JSON.stringify(s.errors_by_class)}, ${rec.requests_ok} ok, proxy ${JSON.stringify(stats)}` +
        `${rec.ttft_ms ? `, TTFT p50 ${rec.ttft_ms.p50} ms` : ''}${rec.itl_ms ? `, ITL p50 ${rec.itl_ms.p50} ms` : ''}`,
    );
    if (c.classes.length === 0) {
      assert.deepEqual(s.errors_by_class, {}, `no failure: ${why}`);
      assert.ok(rec.requests_ok >= 2, `${rec.requests_ok} requests ok`);
      // Every reply whole: the server counted OSL tokens for each, and so did the client.
      const truth = (await sim.requests()).filter((r) => r.maxNewTokens === OSL && r.status === 200);
      assert.ok(truth.every((r) => r.completionTokens === OSL));
      if (c.faults.bytesPerSec !== undefined) {
        // The link, not the server: the server's own record of each reply (arrival to last token)
        // is a fraction of what the client measured end to end.
        const server = median(truth.map((r) => (r.finishMs ?? Infinity) - r.arrivalMs));
        console.log(`# ${transport} ${c.id}: e2e p50 ${rec.e2e_ms?.p50} ms as the client saw it, ${server.toFixed(0)} ms by the server's record`);
        assert.ok(rec.e2e_ms !== null && rec.e2e_ms.p50 >= 4 * server && rec.e2e_ms.p50 >= 500, `client e2e p50 ${rec.e2e_ms?.p50} ms, server ${server} ms`);
      }
      if (transport === 'sse') {
        assert.ok(rec.ttft_ms !== null && rec.itl_ms !== null && rec.itl_ms.count > 0, 'TTFT and ITL measured');
        if (c.id === 'hold-and-flush') {
          // What the client saw: the tokens came in bursts, so most gaps are under a millisecond,
          // while the server spaced them out (its own record, per event).
          const gaps = truth.flatMap((r) => r.events.slice(1).map((e, i) => e.timeMs - r.events[i].timeMs));
          const serverP50 = [...gaps].sort((a, b) => a - b)[Math.floor(gaps.length / 2)];
          assert.ok(serverP50 >= 2, `the server's own gaps p50 ${serverP50} ms`);
          assert.ok(rec.itl_ms.p50 < 1, `ITL p50 as the client saw it: ${rec.itl_ms.p50} ms`);
          // And the client self-check says why, in every report: held by the network, not client-limited.
          const md = readFileSync(
            run.result.files.find((f) => f.endsWith('.report.md'))!,
            'utf8',
          );
          assert.match(md, /tokens reached the client in bursts: ITL p50 0\.0 ms .* held the stream and let it go at once/, why);
          const held = (s as unknown as { records: Array<{ client_check: { held_by_network: string | null; client_limited: boolean } }> }).records[0]
            .client_check;
          assert.match(held.held_by_network ?? '', /held the stream/);
        }
      }
      return;
    }
    assert.ok(classes.length > 0, `failures reported: ${why}`);
    // What k6 said, as each VU logs its first error of a class (lib/k6/measure.ts).
    const said = [...new Set([...run.result.stderr.matchAll(/: ((?:connection_lost|timeout|truncated): .*?)(?:" source=|$)/gm)].map((m) => m[1]))];
    console.log(`# ${transport} ${c.id} on ${runner.name}: ${said.join(' | ')}`);
    if (c.says) {
      assert.ok(said.length > 0 && said.every((m) => c.says!.match.test(m) && !c.says!.not.test(m)), `${c.id} is told apart: ${said.join(' | ')}`);
    }
    for (const cls of classes) assert.ok(c.classes.includes(cls), `unexpected class ${cls} (${JSON.stringify(s.errors_by_class)})`);
    const counted = Object.values(s.errors_by_class).reduce((a, b) => a + b, 0);
    assert.equal(counted, rec.requests_failed + rec.unreachable_attempts, 'every failure is in the numbers');
    assert.ok(stats.cut + stats.reset > 0 || c.faults.delayMs !== undefined, JSON.stringify(stats));
    // Bounded: the load (DURATION 3 s) plus one REQUEST_TIMEOUT, plus setup; a VU held past its
    // deadline would hold the run until GRACEFUL_STOP (15 s) instead.
    const bound = 3000 + 2000 + 5000;
    assert.ok(s.test_run_duration_ms !== null && s.test_run_duration_ms < bound, `the run took ${s.test_run_duration_ms} ms (bound ${bound})`);
  } finally {
    await switched.catch(() => {});
    await proxy.close();
    await sim.stop();
  }
}

// TEST_SUBSET=v2 (.ci/run's k6 v2.2 phase): the sse half, whose errors come from the extension.
const transports: Array<'http' | 'sse'> = process.env.TEST_SUBSET === 'v2' ? ['sse'] : ['http', 'sse'];
for (const runner of RUNNERS) {
  for (const transport of transports) {
    const skip = runner.skip ?? (transport === 'sse' ? runner.sseSkip : null) ?? undefined;
    describe(`a bad network, ${transport} transport, on ${runner.name}`, { skip, concurrency: 2 }, () => {
      for (const c of CASES) test(c.id, () => runCase(runner, c, transport));
    });
  }
}
