// A DATASET A/B against two simulators whose speculative acceptance differs by domain (DFlash:
// code 7, chat 2; MTP: 2.5 for every prompt), the built-in code and chat prompts carrying the
// domain marker: the per-domain speedups and acceptance lengths the report gives must be the
// simulators' own, within the stated interval. The MTP server (vLLM) counts each request's steps
// (--per-request-spec-decode-metrics): its acceptance by draft position per domain must be the
// simulator's record of that domain's requests.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSim, type RemoteSim } from './sim-process';
import { explain, RUNNERS } from './harness';

const OSL = 96;
const DURATION_MS = 12_000;
const SLICES = 4;

interface DomainJson {
  domain: string;
  e2e_speedup_b_over_a: number | null;
  e2e_speedup_ci: [number, number] | null;
  verdict: string;
  acceptance_length_a: number | null;
  acceptance_length_b: number | null;
}
interface DatasetJson {
  lengths: string;
  domains: string[];
  comparisons: Array<{ verdict: string; domains: DomainJson[] }>;
  records: Array<{
    variant: string;
    prompt_tokens: { avg: number; count: number } | null;
    output_tokens: { p50: number } | null;
    domains: Array<{ domain: string; requests_ok: number; accepted_share_by_position: number[] | null }>;
  }>;
  warnings: string[];
}

/** Mean e2e per domain of the run's requests that finished in the steady window, from the simulator's records. */
async function truth(sim: RemoteSim): Promise<Record<string, { meanMs: number; n: number }>> {
  const reqs = (await sim.requests()).filter((r) => r.completionTokens === OSL && r.domain !== null);
  const start = Math.min(...reqs.map((r) => r.arrivalMs));
  const from = start + DURATION_MS / SLICES;
  const to = start + DURATION_MS;
  const out: Record<string, { meanMs: number; n: number }> = {};
  for (const d of ['code', 'chat']) {
    const xs = reqs.filter((r) => r.domain === d && r.finishMs !== null && r.finishMs >= from && r.finishMs < to);
    out[d] = { meanMs: xs.reduce((s, r) => s + ((r.finishMs as number) - r.arrivalMs), 0) / xs.length, n: xs.length };
  }
  return out;
}

for (const runner of RUNNERS) {
  describe(`dataset A/B by domain on ${runner.name}`, { skip: runner.skip ?? undefined }, () => {
    test('per-domain speedups and acceptance lengths match the simulators within the stated interval', async () => {
      const [dflash, mtp] = await Promise.all([
        spawnSim({ engine: 'sglang', spec: 'dflash', specAcceptByDomain: 'code=7,chat=2', timeScale: 4, seed: 21 }),
        spawnSim({ engine: 'vllm', spec: 'mtp', timeScale: 4, seed: 22, perRequestSpecDecodeMetrics: 'summary' }),
      ]);
      try {
        const run = await runner.run(
          'dflash-vs-mtp',
          {
            DFLASH_URL: dflash.url,
            MTP_URL: mtp.url,
            DATASET: 'builtin:code,chat',
            DATASET_DOMAIN_MARKER: 'true',
            ISL: '24',
            OSL: String(OSL),
            CONCURRENCY: '1',
            DURATION: `${DURATION_MS}ms`,
            SLICES: String(SLICES),
            REQUEST_TIMEOUT: '10s',
            GRACEFUL_STOP: '3s',
            WARMUP_REQUESTS: '1',
          },
          180_000,
        );
        assert.equal(run.result.exitCode, 0, explain(run));
        const ds = (run.summary as unknown as { dataset: DatasetJson }).dataset;
        assert.ok(ds, explain(run));
        assert.deepEqual(ds.domains, ['code', 'chat']);
        const cmp = ds.comparisons[0];
        assert.ok(cmp, explain(run));
        const [ta, tb] = [await truth(dflash), await truth(mtp)];
        for (const d of ['code', 'chat']) {
          const got = cmp.domains.find((x) => x.domain === d) as DomainJson;
          const want = tb[d].meanMs / ta[d].meanMs;
          const [lo, hi] = got.e2e_speedup_ci as [number, number];
          const est = got.e2e_speedup_b_over_a as number;
          assert.ok(lo <= est && est <= hi, `${d}: the estimate ${est} lies in its own interval [${lo}, ${hi}]`);
          // The interval is the report's claim; the simulators' own ratio must lie in it (a 2% margin for the client's own overhead).
          assert.ok(
            want >= lo * 0.98 && want <= hi * 1.02,
            `${d}: simulators' speedup ${want.toFixed(3)} (n ${ta[d].n}/${tb[d].n}) outside the reported [${lo.toFixed(3)}, ${hi.toFixed(3)}]: ${cmp.verdict}`,
          );
          // The point estimate too; the client's own few ms per request (more on a loaded machine)
          // compress a ratio of short requests, hence a looser bound than the interval's.
          assert.ok(Math.abs((got.e2e_speedup_b_over_a as number) / want - 1) < 0.08, `${d}: reported ${got.e2e_speedup_b_over_a} vs simulators' ${want}`);
        }
        const code = cmp.domains.find((x) => x.domain === 'code') as DomainJson;
        const chat = cmp.domains.find((x) => x.domain === 'chat') as DomainJson;
        assert.ok((code.e2e_speedup_b_over_a as number) > (chat.e2e_speedup_b_over_a as number) * 1.5, cmp.verdict);
        assert.match(code.verdict, /^DFlash \d+\.\d\d× \[\d+\.\d\d, \d+\.\d\d\] faster on code$/);
        // Acceptance per domain: per request from both, SGLang's meta_info and vLLM's metrics.speculative_decoding.
        assert.ok(Math.abs((code.acceptance_length_a as number) / 7 - 1) < 0.06, `code AL ${code.acceptance_length_a}`);
        assert.ok(Math.abs((chat.acceptance_length_a as number) / 2 - 1) < 0.06, `chat AL ${chat.acceptance_length_a}`);
        for (const x of [code, chat]) assert.ok(Math.abs((x.acceptance_length_b as number) / 2.5 - 1) < 0.06, `${x.domain} MTP AL ${x.acceptance_length_b}`);
        // By draft position per domain: the vLLM run's counts are its requests' own (those the simulator finished whole).
        const mtpReqs = (await mtp.requests()).filter((r) => r.completionTokens === OSL && r.finishReason === 'length');
        const mtpRec = ds.records.find((r) => r.variant === 'mtp')!;
        for (const d of ['code', 'chat']) {
          const h = [0, 0, 0, 0];
          for (const r of mtpReqs.filter((q) => q.domain === d)) r.acceptedHistogram!.forEach((n, j) => (h[j] += n));
          const steps = h.reduce((a, b) => a + b, 0);
          const want = [1, 2, 3].map((i) => h.slice(i).reduce((a, b) => a + b, 0) / steps);
          const got = mtpRec.domains.find((x) => x.domain === d)!.accepted_share_by_position!;
          assert.ok(got.length === 3 && got.every((g, i) => Math.abs(g - (want[i] as number)) < 1e-9), `${d}: ${got} vs ${want}`);
        }
        assert.ok(
          ds.records.find((r) => r.variant === 'dflash')!.domains.every((x) => x.accepted_share_by_position === null),
          'SGLang counts no position',
        );
        // Lengths: the estimate (the simulator has no tokenize route), the server's counts in the report.
        assert.match(ds.lengths, /estimated as characters ÷ 4/);
        for (const r of ds.records) {
          assert.ok(r.prompt_tokens && r.prompt_tokens.count > 0, JSON.stringify(r));
          assert.equal(r.output_tokens?.p50, OSL);
        }
        assert.match(run.result.stdout, /by domain at ISL 24, OSL 96, c=1/);
      } finally {
        await Promise.all([dflash.stop(), mtp.stop()]);
      }
    });
  });
}
