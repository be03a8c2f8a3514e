// Fidelity at scale: the client's TTFT, per-token ITL and e2e of each request against the
// simulator's records of that very request, at 8, 64 and 256 concurrent streams (the sse
// transport; k6 with xk6-sse). The bounds are shares of the run's own truth (RULES); the figures
// each level meets on this project's 2-core VM are printed and kept in docs/fidelity.md.
//
// Joining a client request with its record: every VU sends one prompt of its own length
// (PROMPT_POOL = streams, ISL_SPREAD gives each a distinct length, the simulator records the
// length), and k6's JSON output tags each sample with its VU and iteration (K6_OUT, K6_SYSTEM_TAGS).
//
// The simulator's records say how far its own truth fell behind its schedule (lagMs: a request
// read late because it was busy, shortening the recorded TTFT and e2e; writes late): each
// request's TTFT and e2e bound is widened by its own lag, so the client is never blamed for the
// ruler's lateness.
// test-runner: alone (its bounds are the client's timing error against the simulator's record)
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSim } from './sim-process';
import { explain, RUNNERS, type Run, type Runner } from './harness';
import { poolLengths } from '../../lib/workload/seeded-prompts';
import { clientRequests, JOIN_SYSTEM_TAGS, pct, slotLengths, truthItl, vuOfLength } from './truth-join';
import type { RequestRecord } from '../../sim/index';

const OSL = 64;
const ISL = 256;
const SEED = 7;

interface Level {
  streams: number;
  /** How long the load runs (DURATION). */
  duration: string;
}

/** The opening burst: requests arriving within this long of the first are not "steady". */
const BURST_MS = 3000;

const LEVELS: Level[] = [
  { streams: 8, duration: '10s' },
  { streams: 64, duration: '12s' },
  { streams: 256, duration: '20s' },
];

/**
 * The client's error, as a share of the truth of the same run. A wall-clock bound in ms is this
 * machine's at one moment (the same 2-core VM gave a steady TTFT p50 of 10–27 ms at 256 streams
 * from run to run); a ratio to the run's own figures is not, and it still fails on every mistake
 * that matters: TTFT read at the end of the stream (excess ≈ the whole decode), e2e taken early or
 * late by a phase, ITL per event instead of per token or against the wrong clock. The measured
 * figures are printed, and docs/fidelity.md keeps them per level.
 */
const RULES = {
  /** Median TTFT and e2e excess (client − truth − the simulator's lag), over the truth's median decode time. */
  excessOfDecode: 0.1,
  /** Median |ITL − truth|, over the truth's median per-token ITL. */
  itlOfItl: 0.25,
};

const f1 = (x: number) => x.toFixed(1);

/** The run's requests as the simulator recorded them: streamed, of the measured length, finished. */
function measured(records: RequestRecord[]): RequestRecord[] {
  return records.filter((r) => r.stream && r.maxNewTokens === OSL && r.errorClass === null && r.firstTokenMs !== null && r.finishMs !== null);
}

const ENV = (lv: Level, url: string, dialect: string) => ({
  TARGET_URL: url,
  DIALECT: dialect,
  ISL: String(ISL),
  ISL_SPREAD: '0.5',
  PROMPT_POOL: String(lv.streams),
  SEED: String(SEED),
  OSL: String(OSL),
  CONCURRENCY: String(lv.streams),
  DURATION: lv.duration,
  SLICES: '2',
  REQUEST_TIMEOUT: '30s',
  GRACEFUL_STOP: '30s',
  WARMUP_REQUESTS: '0',
  SERVER_METRICS: 'off',
});

/** A simulated vLLM in real time (no prefix cache: every request prefills its whole prompt). */
const startSim = () => spawnSim({ engine: 'vllm', timeScale: 1, seed: 31, maxRunning: 512, prefixCaching: false });

/** Time any task waited for a CPU, µs (Linux pressure stall information); null where not available. */
function cpuStall(): number | null {
  try {
    return Number(/some .*total=(\d+)/.exec(readFileSync('/proc/pressure/cpu', 'utf8'))?.[1] ?? NaN);
  } catch {
    return null;
  }
}

/** One request, client against truth: TTFT and e2e less the simulator's own lag, |ITL − truth| per token. */
interface Joined {
  /** Arrival after the load's first request, ms. */
  at: number;
  ttftExcess: number;
  e2eExcess: number;
  itlErr: number[];
}

/** Truth of the run: the median decode time (first token to last) and per-token ITL, ms. */
interface Truth {
  decode: number;
  itl: number;
}

/** A part of the run (all, or the steady part after the opening burst) against RULES. */
function within(part: string, reqs: Joined[], truth: Truth): string[] {
  const failures: string[] = [];
  const atMost = (name: string, values: number[], bound: number, of: string) => {
    if (values.length && pct(values, 0.5) > bound) failures.push(`${part}: ${name} p50 ${f1(pct(values, 0.5))} ms, over ${f1(bound)} ms (${of})`);
  };
  const decodeBound = RULES.excessOfDecode * truth.decode;
  const decodeOf = `${RULES.excessOfDecode * 100}% of the truth's median decode time ${f1(truth.decode)} ms`;
  atMost(
    "TTFT − truth − the simulator's lag",
    reqs.map((r) => r.ttftExcess),
    decodeBound,
    decodeOf,
  );
  atMost(
    "e2e − truth − the simulator's lag",
    reqs.map((r) => r.e2eExcess),
    decodeBound,
    decodeOf,
  );
  atMost(
    '|ITL − truth|',
    reqs.flatMap((r) => r.itlErr),
    RULES.itlOfItl * truth.itl,
    `${RULES.itlOfItl * 100}% of the truth's median ITL ${f1(truth.itl)} ms`,
  );
  return failures;
}

/** p50 / p99 of a part of the run, for the log. */
function figures(reqs: Joined[]): string {
  const q = (v: number[], d = 1) => (v.length ? `${pct(v, 0.5).toFixed(d)} / ${pct(v, 0.99).toFixed(d)}` : '-');
  return (
    `${reqs.length} requests: TTFT − truth − lag p50 / p99 ${q(reqs.map((r) => r.ttftExcess))}, ` +
    `e2e ${q(reqs.map((r) => r.e2eExcess))}, |ITL − truth| ${q(
      reqs.flatMap((r) => r.itlErr),
      2,
    )} ms`
  );
}

/** Real k6: each request of each VU against its own record. */
async function perRequest(runner: Runner, lv: Level, dialect = 'openai'): Promise<void> {
  const sim = await startSim();
  const stall0 = cpuStall();
  const t0 = Date.now();
  const dir = mkdtempSync(join(tmpdir(), 'fidelity-'));
  const out = join(dir, 'samples.json');
  // k6 reads its own configuration from the environment it is started in.
  process.env.K6_OUT = `json=${out}`;
  process.env.K6_SYSTEM_TAGS = JOIN_SYSTEM_TAGS;
  let run: Run;
  try {
    run = await runner.run('sse/context-matrix', ENV(lv, sim.url, dialect), 150_000);
  } finally {
    delete process.env.K6_OUT;
    delete process.env.K6_SYSTEM_TAGS;
  }
  const stall1 = cpuStall();
  // The share of the run's wall time in which some task waited for a CPU: how busy the machine was.
  const pressure = stall0 !== null && stall1 !== null ? (stall1 - stall0) / 1000 / (Date.now() - t0) : NaN;
  try {
    assert.equal(run.result.exitCode, 0, explain(run));
    const records = measured(await sim.requests());
    const client = clientRequests(out);
    const loadStart = Math.min(...records.map((r) => r.arrivalMs));
    const pool = poolLengths({ isl: ISL, poolSize: lv.streams, seed: SEED, vocabSize: 0, idFloor: 0, sharedPrefix: 0, spread: 0.5 });
    assert.equal(new Set(pool).size, lv.streams, 'every VU has a prompt length of its own');
    const lengths = slotLengths(pool, records, dialect === 'openai');
    const joined: Joined[] = [];
    const decodes: number[] = [];
    const itls: number[] = [];
    let behind = 0;
    let lowest = Infinity;
    for (let slot = 0; slot < lv.streams; slot++) {
      // One prompt per VU (PROMPT_POOL = streams): the VU is the one whose replies counted that length.
      const mine = records.filter((r) => r.promptTokens === lengths[slot]).sort((a, b) => a.arrivalMs - b.arrivalMs);
      const vu = vuOfLength(client, lengths[slot]);
      const reqs = vu === null ? [] : (client.get(vu) ?? []);
      assert.equal(reqs.length, mine.length, `VU ${vu} (prompt of ${lengths[slot]} tokens): ${reqs.length} requests measured, ${mine.length} recorded`);
      for (let i = 0; i < mine.length; i++) {
        const r = mine[i];
        const c = reqs[i];
        assert.ok(c && c.ttft !== null && c.e2e !== null, `VU ${vu} iteration ${i}: no TTFT or e2e`);
        const truthTtft = (r.firstTokenMs as number) - r.arrivalMs;
        const truthE2e = (r.finishMs as number) - r.arrivalMs;
        const ti = truthItl(r);
        decodes.push((r.finishMs as number) - (r.firstTokenMs as number));
        itls.push(...ti);
        assert.equal(c.itl.length, ti.length, `VU ${vu} iteration ${i}: ${c.itl.length} ITL samples, ${ti.length} tokens after the first event`);
        lowest = Math.min(lowest, c.ttft - truthTtft, c.e2e - truthE2e);
        // What is left once the simulator's own lag is taken off: its records say how far its
        // truth fell behind (intake read late, writes late), and that much is never the client's.
        joined.push({
          at: r.arrivalMs - loadStart,
          ttftExcess: c.ttft - truthTtft - r.lagMs,
          e2eExcess: c.e2e - truthE2e - r.lagMs,
          itlErr: ti.map((t, k) => Math.abs(c.itl[k] - t)),
        });
        if (r.behind) behind++;
      }
    }
    assert.equal(joined.length, records.length);
    const steady = joined.filter((j) => j.at >= BURST_MS);
    const lag = records.map((r) => r.lagMs);
    const intake = records.map((r) => r.intakeLagMs);
    console.log(
      `fidelity, ${lv.streams} streams, DIALECT=${dialect} on ${runner.name}: ${joined.length} requests joined with their records; ` +
        (`${behind} marked behind by the simulator, its lag p50 ${f1(pct(lag, 0.5))} p99 ${f1(pct(lag, 0.99))} ` +
          `ms (intake p50 ${f1(pct(intake, 0.5))} p99 ${f1(pct(intake, 0.99))}); `) +
        `load average ${loadavg()[0].toFixed(1)}, a task waiting for a CPU ${Number.isNaN(pressure) ? '?' : (pressure * 100).toFixed(0)}% of the time; ` +
        `lowest client − truth (TTFT, e2e) ${f1(lowest)} ms\n` +
        `  all      ${figures(joined)}\n  steady   ${figures(steady)} (arriving ${BURST_MS / 1000} s or more after the first)`,
    );
    // The client starts its clock before the request leaves and reads each event after it was
    // written: no request's TTFT or e2e is shorter than the truth (k6's clock has 1 ms steps; the
    // two processes' wall clocks may drift apart by a fraction of a millisecond).
    assert.ok(lowest >= -2, `a request measured ${f1(-lowest)} ms shorter than the truth`);
    assert.ok(steady.length >= lv.streams, `${steady.length} requests after the opening burst: the run is too short to judge the steady part`);
    const truth: Truth = { decode: pct(decodes, 0.5), itl: pct(itls, 0.5) };
    console.log(`  truth    decode p50 ${f1(truth.decode)} ms, ITL p50 ${f1(truth.itl)} ms`);
    const failures = [...within('all requests', joined, truth), ...within('steady part', steady, truth)];
    assert.deepEqual(failures, [], failures.join('\n'));
  } finally {
    await sim.stop();
  }
}

for (const runner of RUNNERS) {
  const skip = runner.skip ?? runner.sseSkip ?? null;
  describe(`fidelity at scale on ${runner.name}`, { skip: skip ?? undefined }, () => {
    // TEST_SUBSET=v2 (.ci/run's k6 v2.2 phase): the named-event dialects alone, whose events the
    // extension built for k6 v2 reads; the levels' bounds are JavaScript's, checked on v1.3.
    for (const lv of process.env.TEST_SUBSET === 'v2' ? [] : LEVELS) {
      test(`${lv.streams} streams: TTFT, ITL and e2e against the simulator's records of the same requests`, () => perRequest(runner, lv));
    }
    // Anthropic Messages and OpenAI Responses: named events, text prompts, token counts only at the
    // end; the same bounds as /v1/completions, at the first level (the client's cost per event is
    // what the levels above measure, and it is the dialect's reader that differs here).
    for (const dialect of ['anthropic', 'responses']) {
      test(`${LEVELS[0].streams} streams, DIALECT=${dialect}: TTFT, ITL and e2e against the simulator's records`, () => perRequest(runner, LEVELS[0], dialect));
    }
  });
}
