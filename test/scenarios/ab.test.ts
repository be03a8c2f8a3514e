// The A/B scenario against two simulated servers, checked against the simulators' ground truth.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { spawnSim, type RemoteSim } from './sim-process';
import { explain, RUNNERS } from './harness';

const OSL = 128;
const DURATION_MS = 9000;
const SLICES = 6;

/** The simulator's true output throughput over the run's steady window. */
async function groundTruth(sim: RemoteSim): Promise<{ tokensPerSec: number; acceptLength: number | null; acceptedHistogram: number[] | null }> {
  // The run's requests are the ones with OSL output tokens: preflight and warm-up ask for fewer.
  const runReqs = (await sim.requests()).filter((r) => r.completionTokens === OSL);
  assert.ok(runReqs.length > 5, `only ${runReqs.length} run requests reached the simulator`);
  const start = Math.min(...runReqs.map((r) => r.arrivalMs));
  const from = start + DURATION_MS / SLICES;
  const s = await sim.summary(from, start + DURATION_MS);
  return { tokensPerSec: s.outputTokensPerSec, acceptLength: s.acceptLength, acceptedHistogram: s.acceptedHistogram };
}

for (const runner of RUNNERS) {
  describe(`dflash-vs-mtp on ${runner.name}`, { skip: runner.skip ?? undefined }, () => {
    test('speedup and acceptance lengths agree with the simulators within 5%', async () => {
      const [dflash, mtp] = await Promise.all([
        spawnSim({ engine: 'sglang', spec: 'dflash', timeScale: 4, seed: 11 }),
        spawnSim({ engine: 'vllm', spec: 'mtp', timeScale: 4, seed: 12 }),
      ]);
      try {
        const run = await runner.run(
          'dflash-vs-mtp',
          {
            DFLASH_URL: dflash.url,
            MTP_URL: mtp.url,
            ISL: '256',
            OSL: String(OSL),
            CONCURRENCY: '2',
            DURATION: `${DURATION_MS}ms`,
            SLICES: String(SLICES),
            REQUEST_TIMEOUT: '5s',
            GRACEFUL_STOP: '3s',
            WARMUP_REQUESTS: '1',
          },
          120_000,
        );
        assert.equal(run.result.exitCode, 0, explain(run));
        assert.ok(run.summary, explain(run));
        const rec = (v: string) => run.summary!.records.find((r) => r.variant === v)!;
        const a = rec('dflash');
        const b = rec('mtp');
        assert.equal(a.requests_failed + b.requests_failed, 0);
        const measured = a.output_throughput_tokens_per_s! / b.output_throughput_tokens_per_s!;
        const truthA = await groundTruth(dflash);
        const truthB = await groundTruth(mtp);
        const truth = truthA.tokensPerSec / truthB.tokensPerSec;
        assert.ok(Math.abs(measured / truth - 1) < 0.05, `measured ratio ${measured.toFixed(3)} vs ground truth ${truth.toFixed(3)}`);
        // Each throughput on its own, too.
        assert.ok(
          Math.abs(a.output_throughput_tokens_per_s! / truthA.tokensPerSec - 1) < 0.05,
          `dflash ${a.output_throughput_tokens_per_s} vs ${truthA.tokensPerSec}`,
        );
        // The verdict's ratio is of mean slice throughputs, the statistic its interval resamples.
        const c = run.summary!.comparisons[0];
        assert.ok(Math.abs(c.throughput_ratio_a_over_b! / measured - 1) < 0.02, `${c.throughput_ratio_a_over_b} vs ${measured}`);
        assert.ok(
          c.throughput_ratio_ci && c.throughput_ratio_ci[0] <= c.throughput_ratio_a_over_b! && c.throughput_ratio_a_over_b! <= c.throughput_ratio_ci[1],
          'the interval holds its estimate',
        );
        assert.match(run.summary!.comparisons[0].verdict, /^DFlash faster by/);
        // DFlash on SGLang against MTP on vLLM: the engines differ, and the verdict says so; what both show is equal.
        assert.match(
          run.summary!.comparisons[0].verdict,
          /; confounded: engine differs \(DFlash: SGLang, MTP: vLLM\); engine_version differs \(DFlash: [\d.]+, MTP: [\d.]+\)$/,
        );

        // Acceptance: SGLang from meta_info per request, vLLM from /metrics over the window.
        assert.equal(a.acceptance_length_source, 'meta_info', explain(run));
        assert.equal(b.acceptance_length_source, 'server-metrics', explain(run));
        assert.ok(Math.abs(a.acceptance_length_tokens_per_step! / 6 - 1) < 0.05, `dflash AL ${a.acceptance_length_tokens_per_step} vs configured 6`);
        assert.ok(Math.abs(b.acceptance_length_tokens_per_step! / 2.5 - 1) < 0.05, `mtp AL ${b.acceptance_length_tokens_per_step} vs configured 2.5`);
        assert.ok(truthB.acceptLength !== null && Math.abs(b.acceptance_length_tokens_per_step! / truthB.acceptLength - 1) < 0.05);
        // By draft position, from vLLM's per-position counter over the window: position 1's share against the truth's.
        const positions = (
          run.summary as unknown as { acceptance_by_position: Array<{ variant: string; source: string; accepted_share_by_position: number[] }> }
        ).acceptance_by_position;
        const mtpPos = positions.find((r) => r.variant === 'mtp');
        assert.equal(mtpPos?.source, 'server-metrics', explain(run));
        const h = truthB.acceptedHistogram!;
        const truthFirst = h.slice(1).reduce((x, y) => x + y, 0) / h.reduce((x, y) => x + y, 0);
        assert.ok(
          Math.abs(mtpPos!.accepted_share_by_position[0]! - truthFirst) < 0.05,
          `position 1: ${mtpPos!.accepted_share_by_position[0]} vs ${truthFirst}`,
        );
        assert.ok(!positions.some((r) => r.variant === 'dflash'), 'SGLang counts no position per request nor in its /metrics');
      } finally {
        await Promise.all([dflash.stop(), mtp.stop()]);
      }
    });
  });
}

// CACHE_RESET on real k6: two cells with the same prompts (ISL 64, OSL 8 then 16, one VU, a pool
// larger than a run's requests), an SGLang and a vLLM (dev mode) simulator. Without resets a
// variant's second run finds its first run's prompts cached; with CACHE_RESET=cell it starts
// empty. The hit rates come from each server's counters and are checked against its own record.
interface CacheRunJson {
  variant: string;
  cell: string;
  hit_rate: number | null;
  source: string | null;
  hit_tokens: number | null;
  query_tokens: number | null;
  reset: { due: boolean; outcome: string | null; text: string };
}

for (const runner of RUNNERS) {
  describe(`CACHE_RESET on ${runner.name}`, { skip: runner.skip ?? undefined, concurrency: 2 }, () => {
    for (const mode of ['never', 'cell'] as const) {
      test(
        `CACHE_RESET=${mode}: the second run ${mode === 'never' ? 'hits the first run’s prompts' : 'starts from an empty cache'} ` +
          `(SGLang /flush_cache, vLLM /reset_prefix_cache)`,
        async () => {
          const [sg, vl] = await Promise.all([
            spawnSim({ engine: 'sglang', timeScale: 4, seed: 31 }),
            spawnSim({ engine: 'vllm', timeScale: 4, seed: 32, devMode: true }),
          ]);
          try {
            const env = {
              DFLASH_URL: sg.url,
              MTP_URL: vl.url,
              ISL: '64',
              OSL: '8,16',
              CONCURRENCY: '1',
              DURATION: '1s',
              SLICES: '1',
              GRACEFUL_STOP: '300ms',
              REQUEST_TIMEOUT: '2s',
              WARMUP_REQUESTS: '0',
              PROMPT_POOL: '256',
              CACHE_RESET: mode,
            };
            const run = await runner.run('dflash-vs-mtp', env, 60_000);
            assert.equal(run.result.exitCode, 0, explain(run));
            const pc = (run.summary as unknown as { prefix_cache: { cache_reset: string; runs: CacheRunJson[] } }).prefix_cache;
            assert.equal(pc.cache_reset, mode);
            for (const [name, sim] of [
              ['dflash', sg],
              ['mtp', vl],
            ] as const) {
              const row = (osl: number) => pc.runs.find((r) => r.variant === name && r.cell === `i64_o${osl}_c1`)!;
              const first = row(8);
              const second = row(16);
              const truth = (await (await fetch(`${sim.url}/sim/prefix-cache`)).json()) as { hitTokens: number; queryTokens: number; resets: number };
              assert.equal(truth.resets, mode === 'cell' ? 2 : 0, `${name}: resets the server made`);
              for (const r of [first, second]) {
                assert.equal(r.source, 'server-counters', `${name} ${r.cell}: ${JSON.stringify(r)}`);
                assert.equal(r.reset.outcome, mode === 'cell' ? 'reset' : null, `${name} ${r.cell}: ${r.reset.text}`);
              }
              assert.ok(first.hit_rate! < 0.05, `${name}: the first run finds nothing cached: ${first.hit_rate}`);
              // The server's own record of the second run's requests (OSL 16): what its counters say.
              const reqs = (await sim.requests()).filter((q) => q.maxNewTokens === 16);
              const own = reqs.reduce((a, q) => a + q.cachedTokens, 0) / reqs.reduce((a, q) => a + q.promptTokens, 0);
              assert.ok(Math.abs(second.hit_rate! - own) < 0.05, `${name}: second run ${second.hit_rate} vs the server's own ${own}`);
              if (mode === 'never') assert.ok(second.hit_rate! > 0.9, `${name}: the second run hits the first's prompts: ${second.hit_rate}`);
              else assert.ok(second.hit_rate! < 0.05, `${name}: after the reset the second run finds nothing: ${second.hit_rate}`);
              assert.ok(second.hit_tokens! <= truth.hitTokens, 'no more hits than the server made');
            }
            const md = readFileSync(
              run.result.files.find((f) => f.endsWith('.report.md'))!,
              'utf8',
            );
            assert.match(md, /## Prefix cache/);
            assert.match(md, new RegExp(`CACHE_RESET=${mode}`));
            assert.match(run.result.stdout + run.result.stderr, /Prefix cache \(CACHE_RESET=/);
          } finally {
            await Promise.all([sg.stop(), vl.stop()]);
          }
        },
      );
    }
  });
}

// ADAPTERS on both dialect namings at once: SGLang's /generate (lora_path) and vLLM's /v1/completions
// (model), each simulator serving two adapters with --max-loras 1 (so mixing them costs loads and
// batch room). Per variant and adapter, the requests the report counts must be the ones the
// simulator served with that adapter; an adapter the server has not loaded stops the run in
// preflight with one message naming it and what the server lists. Short (3 s of load per variant at
// time-scale 10; both transports side by side, ~22 s with k6's starts and setup): the counts, not the
// timing, are the subject.
for (const runner of RUNNERS) {
  describe(`ADAPTERS on ${runner.name}`, { skip: runner.skip ?? undefined, concurrency: 2 }, () => {
    for (const transport of ['http', 'sse'] as const) {
      const skip = transport === 'sse' ? (runner.sseSkip ?? undefined) : undefined;
      test(`TRANSPORT=${transport}: per-adapter requests equal the simulators' own, and verdicts per adapter`, { skip }, async () => {
        const lora = { loraAdapters: 'sql,chat', maxLoras: 1, timeScale: 10 };
        const [sg, vl] = await Promise.all([spawnSim({ engine: 'sglang', seed: 31, ...lora }), spawnSim({ engine: 'vllm', seed: 32, ...lora })]);
        try {
          const osl = 12;
          const run = await runner.run(
            'dflash-vs-mtp',
            {
              DFLASH_URL: sg.url,
              MTP_URL: vl.url,
              ADAPTERS: 'sql:2,chat:1,base:1',
              TRANSPORT: transport,
              ISL: '32',
              OSL: String(osl),
              CONCURRENCY: '4',
              DURATION: '3s',
              SLICES: '3',
              REQUEST_TIMEOUT: '5s',
              GRACEFUL_STOP: '3s',
              WARMUP_REQUESTS: '0',
            },
            60_000,
          );
          assert.equal(run.result.exitCode, 0, explain(run));
          const ad = (run.summary as unknown as { adapters: AdapterJson }).adapters;
          assert.ok(ad, explain(run));
          for (const [variant, sim] of [
            ['dflash', sg],
            ['mtp', vl],
          ] as const) {
            const served = (await sim.requests()).filter((q) => q.maxNewTokens === osl);
            const rec = ad.runs.find((r) => r.variant === variant)!;
            let total = 0;
            for (const name of ['sql', 'chat', 'base']) {
              const want = served.filter((q) => (q.adapter ?? 'base') === name && q.errorClass === null).length;
              const got = rec.adapters.find((x) => x.adapter === name)!;
              assert.equal(got.requests, want, `${variant} ${name}: the report counts ${got.requests}, the server served ${want}`);
              assert.equal(got.failed, 0, `${variant} ${name}`);
              total += got.requests;
            }
            assert.equal(total, served.length, `${variant}: every request the server saw is in one adapter's row`);
            assert.ok(
              rec.adapters.find((x) => x.adapter === 'sql')!.requests > rec.adapters.find((x) => x.adapter === 'chat')!.requests,
              'sql weighs 2, chat 1',
            );
          }
          assert.deepEqual(
            ad.comparisons[0]?.adapters.map((x) => x.adapter),
            ['sql', 'chat', 'base'],
            explain(run),
          );
          assert.match(ad.comparisons[0].verdict, /^by adapter at .*sql.*chat.*base/);
          if (transport === 'http') {
            const bad = await runner.run('smoke', { TARGET_URL: vl.url, ADAPTERS: 'sql,nope', REQUEST_TIMEOUT: '5s' }, 60_000);
            assert.notEqual(bad.result.exitCode, 0, explain(bad));
            assert.match(
              bad.result.stdout + bad.result.stderr,
              /ADAPTERS names nope, which the server has not loaded \(GET \/v1\/models lists: qwen3-32b-sim, sql, chat\)/,
            );
          }
        } finally {
          await Promise.all([sg.stop(), vl.stop()]);
        }
      });
    }
  });
}

interface AdapterJson {
  runs: Array<{ variant: string; adapters: Array<{ adapter: string; requests: number; failed: number }> }>;
  comparisons: Array<{ verdict: string; adapters: Array<{ adapter: string }> }>;
}
