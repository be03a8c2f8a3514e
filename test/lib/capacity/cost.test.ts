// Dollars per million output tokens at SLO capacity: priced from the throughput measured at the
// capacity step (the highest load that met every SLO) at GPU_HOUR_COST × GPUS, per variant, with the
// throughput's interval; unset or unmeasured is null with the reason, never 0.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { tmpdir } from 'node:os';
import { runSearch, type RunnerPorts, type StepOutcome, type StepRequest } from '../../../lib/capacity/runner';
import { buildCapacityReport, capacityJson, costLine, energyLine, renderCapacityMarkdown, renderCapacityText } from '../../../lib/capacity/capacity-report';
import { renderCapacityHtml } from '../../../lib/capacity/html';
import { capacitySeries } from '../../../lib/capacity/prometheus';
import { readStepRun, type StepRun } from '../../../lib/capacity/step-run';
import { BENCHMARKS } from '../../../lib/benchmarks';
import { loadConfig } from '../../../lib/config/load';
import { planOf, probeScenario } from '../../../lib/plan/matrix';
import { subKey } from '../../../lib/plan/summary-keys';
import { INSTANCE_RESULT_FORMAT } from '../../../lib/report/merge-instances';
import { ConfigError } from '../../../lib/config/parse';
import { ENERGY_NO_URL } from '../../../lib/report/sections/energy-section';
import { prepare } from '../../../scripts/capacity';
import { k6Trend, settings } from './fixtures';

/** p99 e2e = 100 + perStream × load ms; output tokens/s = tps × load, its interval ±5 %. */
function fake(perStream: number, tps: number): RunnerPorts {
  let clock = 0;
  const runStep = async (req: StepRequest): Promise<StepOutcome> => {
    clock += req.durationMs + 2000;
    const n = 2000;
    const p99 = 100 + perStream * req.load;
    const xs = Array.from({ length: n }, (_, i) => (p99 / 1.05) * (0.9 + (0.2 * i) / n));
    const throughput = tps * req.load;
    const run: StepRun = {
      ttft: null,
      itl: null,
      e2e: k6Trend(xs),
      ok: n,
      failed: 0,
      judged: n,
      good: n,
      loadMs: req.durationMs,
      goodput: n / (req.durationMs / 1000),
      throughput,
      throughputCi: { lo: throughput * 0.95, hi: throughput * 1.05 },
      requestRate: null,
      dropped: 0,
      variantDown: false,
      errors: {},
      clientLimited: [],
      preflight: null,
    };
    return { run };
  };
  return { runStep, elapsedMs: () => clock, log: () => undefined, overheadMs: 2000 };
}

const META = { runId: 'cap', now: new Date('2026-12-05T00:00:00Z'), durationMs: 1000, transport: 'http', workload: {} };
const perM = (perHour: number, tps: number) => (perHour / (tps * 3600)) * 1e6;

test('each variant priced at its own GPU cost and the throughput of its capacity step, with the interval', async () => {
  const s = settings({ SLO_E2E_P99: '500ms', CAPACITY_STEP: '10s' });
  const [a] = await runSearch(s, ['dflash'], fake(20, 50)); // crosses 500 ms at 20 streams
  const [b] = await runSearch(s, ['mtp'], fake(10, 30)); // at 40
  const r = buildCapacityReport(s, [a, b], { ...META, costs: { dflash: { gpuHourCost: 2.5, gpus: 8 }, mtp: { gpuHourCost: 3, gpus: null } } });
  const [da, mb] = r.variants;
  assert.equal(da.cost.load, da.capacity.bestPassing);
  assert.ok(da.cost.load !== null && da.cost.load >= 18 && da.cost.load <= 20, `dflash load ${da.cost.load}`);
  const pa = da.cost.usdPerMillionOutputTokens!;
  assert.ok(Math.abs(pa.value - perM(2.5 * 8, 50 * da.cost.load)) < 1e-9, `${pa.value}`);
  // Cost falls as throughput rises: the interval's low end is at the throughput's high end.
  assert.ok(Math.abs(pa.ci!.lo - perM(20, 50 * da.cost.load * 1.05)) < 1e-9);
  assert.ok(Math.abs(pa.ci!.hi - perM(20, 50 * da.cost.load * 0.95)) < 1e-9);
  // GPUS unset: one GPU per deployment.
  const pb = mb.cost.usdPerMillionOutputTokens!;
  assert.ok(Math.abs(pb.value - perM(3, 30 * (mb.cost.load as number))) < 1e-9);
  assert.equal(mb.cost.gpus, null);
  const line = costLine(s, r)!;
  assert.match(line, new RegExp(`DFlash: \\$${pa.value.toFixed(2)} \\[[0-9.]+, [0-9.]+\\] / Mtok at ${da.cost.load} streams`));
  assert.match(line, /p99 e2e ≤ 500 ms/);
  for (const out of [renderCapacityText(s, r), renderCapacityMarkdown(s, r), renderCapacityHtml(s, r)]) assert.ok(out.includes(`$${pa.value.toFixed(2)}`), out);
  const json = JSON.parse(capacityJson(r));
  assert.equal(json.variants[0].cost.usdPerMillionOutputTokens.value, pa.value);
  assert.deepEqual(json.variants[0].cost.usdPerMillionOutputTokens.ci, pa.ci);
  // --prometheus pushes it beside the capacity, each end of the interval its own series.
  const pushed = capacitySeries(s, r, 0).filter((x) => x.labels.__name__.startsWith('k6_llm_capacity_usd_per_million_output_tokens'));
  assert.deepEqual(
    pushed.filter((x) => x.labels.variant === 'dflash').map((x) => [x.labels.__name__, x.value]),
    [
      ['k6_llm_capacity_usd_per_million_output_tokens', pa.value],
      ['k6_llm_capacity_usd_per_million_output_tokens_lower', pa.ci!.lo],
      ['k6_llm_capacity_usd_per_million_output_tokens_upper', pa.ci!.hi],
    ],
  );
});

test('no cost set, no load within the SLOs, or every load within them: null with the reason, or an upper bound said so', async () => {
  const s = settings({ SLO_E2E_P99: '500ms', CAPACITY_STEP: '10s', CAPACITY_MAX_LOAD: '8' });
  const [easy] = await runSearch(s, ['dflash'], fake(1, 50)); // every SLO met up to 8
  const [hard] = await runSearch(s, ['mtp'], fake(1000, 50)); // broken at 1 stream
  const none = buildCapacityReport(s, [easy, hard], META);
  for (const t of none.variants) {
    assert.equal(t.cost.usdPerMillionOutputTokens, null);
    assert.equal(t.cost.notMeasured, 'GPU_HOUR_COST not set for this variant');
  }
  assert.equal(costLine(s, none), null, 'no cost set anywhere: no line');
  assert.ok(!renderCapacityMarkdown(s, none).includes('Mtok'));
  const cost = { gpuHourCost: 2, gpus: 1 };
  const r = buildCapacityReport(s, [easy, hard], { ...META, costs: { dflash: cost, mtp: cost } });
  const [e, h] = r.variants;
  assert.equal(e.cost.capacityAtLeast, true);
  assert.equal(e.cost.load, 8);
  assert.ok(Math.abs(e.cost.usdPerMillionOutputTokens!.value - perM(2, 400)) < 1e-9);
  assert.equal(h.cost.usdPerMillionOutputTokens, null);
  assert.equal(h.cost.notMeasured, 'no load met every SLO');
  const line = costLine(s, r)!;
  assert.match(line, /at 8 streams \(capacity at least that/);
  assert.match(line, /MTP: not measured \(no load met every SLO\)/);
  const json = JSON.parse(capacityJson(r));
  assert.equal(json.variants[1].cost.usdPerMillionOutputTokens, null, 'null, never 0');
  assert.ok(!capacitySeries(s, r, 0).some((x) => x.labels.variant === 'mtp' && x.labels.__name__.includes('usd')), 'no price: no series, never 0');
});

test('a capacity step without a throughput: not measured, never 0', async () => {
  const s = settings({ SLO_E2E_P99: '500ms', CAPACITY_STEP: '10s' });
  const ports = fake(20, 50);
  const [t] = await runSearch(s, ['target'], {
    ...ports,
    runStep: async (req) => {
      const out = await ports.runStep(req);
      return 'run' in out ? { run: { ...out.run, throughput: null, throughputCi: null } } : out;
    },
  });
  const r = buildCapacityReport(s, [t], { ...META, costs: { target: { gpuHourCost: 2, gpus: 1 } } });
  assert.equal(r.variants[0].cost.usdPerMillionOutputTokens, null);
  assert.match(r.variants[0].cost.notMeasured!, /output throughput not measured at \d+ \(step \d+\)/);
});

test('npm run capacity reads GPU_HOUR_COST and GPUS per variant (<PREFIX>_ first) and stops on a bad one naming it', () => {
  const env = {
    DFLASH_URL: 'http://a:1',
    MTP_URL: 'http://b:2',
    SLO_E2E_P99: '1s',
    RESULTS_DIR: tmpdir(),
    GPU_HOUR_COST: '2',
    MTP_GPU_HOUR_COST: '3.5',
    MTP_GPUS: '4',
  };
  const p = prepare(env, new Date());
  assert.deepEqual(p.costs, { dflash: { gpuHourCost: 2, gpus: null }, mtp: { gpuHourCost: 3.5, gpus: 4 } });
  assert.throws(
    () => prepare({ ...env, DFLASH_GPU_HOUR_COST: 'cheap' }, new Date()),
    (e: Error) => e instanceof ConfigError && /DFLASH_GPU_HOUR_COST/.test(e.message),
  );
});

// Energy per output token at SLO capacity: the step runs' GPU telemetry (GPU_METRICS_URL), pooled
// over the capacity step's runs; a variant without it is null with the reason, never 0.
function powered(perStream: number, tps: number, jPerToken: ((load: number) => number) | null, why = ENERGY_NO_URL): RunnerPorts {
  const ports = fake(perStream, tps);
  return {
    ...ports,
    runStep: async (req) => {
      const out = await ports.runStep(req);
      const run = (out as { run: StepRun }).run;
      const tokens = (run.throughput as number) * (req.durationMs / 1000);
      const j = jPerToken?.(req.load);
      return {
        ...out,
        run: {
          ...run,
          energy: j === undefined ? null : { joules: j * tokens, tokens, ci: { lo: j * 0.97, hi: j * 1.03 } },
          energyWhy: j === undefined ? why : null,
        },
      };
    },
  };
}

test('J per output token at each variant capacity step, with its interval; a variant without GPU telemetry says why', async () => {
  const s = settings({ SLO_E2E_P99: '500ms', CAPACITY_STEP: '10s' });
  // Energy per token falls with the batch: 0.1 J + 20 J shared by the streams.
  const [a] = await runSearch(
    s,
    ['dflash'],
    powered(20, 50, (load) => 0.1 + 20 / load),
  );
  const [b] = await runSearch(s, ['mtp'], powered(10, 30, null));
  const r = buildCapacityReport(s, [a, b], META);
  const [da, mb] = r.variants;
  assert.equal(da.energy.load, da.capacity.bestPassing);
  const want = 0.1 + 20 / (da.energy.load as number);
  assert.ok(Math.abs((da.energy.jPerToken as number) - want) < 1e-9, `${da.energy.jPerToken} vs ${want}`);
  assert.ok(Math.abs(da.energy.ci!.lo - want * 0.97) < 1e-9 && Math.abs(da.energy.ci!.hi - want * 1.03) < 1e-9);
  assert.equal(mb.energy.jPerToken, null);
  assert.equal(mb.energy.notMeasured, ENERGY_NO_URL);
  const line = energyLine(s, r)!;
  assert.match(line, new RegExp(`DFlash: ${want.toFixed(3)} \\[[0-9.]+, [0-9.]+\\] J/token at ${da.energy.load} streams`));
  assert.match(line, /MTP: not measured \(GPU_METRICS_URL not set for this variant\)/);
  for (const out of [renderCapacityText(s, r), renderCapacityMarkdown(s, r), renderCapacityHtml(s, r)]) assert.ok(out.includes(line.slice(0, 40)), out);
  assert.equal(JSON.parse(capacityJson(r)).variants[0].energy.jPerToken, da.energy.jPerToken);
  const pushed = capacitySeries(s, r, 0).filter((x) => x.labels.__name__.startsWith('k6_llm_capacity_joules'));
  assert.deepEqual(
    pushed.map((x) => [x.labels.variant, x.labels.__name__, x.value]),
    [
      ['dflash', 'k6_llm_capacity_joules_per_output_token', da.energy.jPerToken],
      ['dflash', 'k6_llm_capacity_joules_per_output_token_lower', da.energy.ci!.lo],
      ['dflash', 'k6_llm_capacity_joules_per_output_token_upper', da.energy.ci!.hi],
    ],
    'MTP without telemetry: no series, never 0',
  );
  // No variant scraped its GPUs: no energy line at all; a failed probe is said, not hidden.
  const none = buildCapacityReport(s, [b], META);
  assert.equal(energyLine(s, none), null);
  assert.ok(!renderCapacityText(s, none).includes('J/token'));
  const [c] = await runSearch(s, ['mtp'], powered(10, 30, null, 'the GPU exporter could not be reached'));
  assert.match(energyLine(s, buildCapacityReport(s, [c], META))!, /MTP: not measured \(the GPU exporter could not be reached\)/);
});

test("a step run's energy is read from its partial: the report's J/token over the steady slices, or its reason", () => {
  const vars = { TARGET_URL: 'http://x:1', ISL: '64', OSL: '32', CONCURRENCY: '8', DURATION: '10s', SLICES: '5', RUN_ID: 'step-1' };
  const spec = BENCHMARKS['context-matrix'];
  const partial = (variables: Record<string, string>, gpu: boolean) => {
    const plan = planOf(spec.load, loadConfig(spec, variables, META.now));
    const [run] = plan.runs;
    const c = (count: number) => ({ type: 'counter', contains: 'default', values: { count, rate: 0 } });
    const metrics: Record<string, unknown> = {
      [subKey('outputTokens', run.scenario)]: c(5000),
      [subKey('success', run.scenario)]: { type: 'rate', contains: 'default', values: { rate: 1, passes: 100, fails: 0 } },
    };
    for (let s = 0; s < plan.slices; s++) {
      metrics[subKey('windowTokens', run.scenario, { slice: String(s) })] = c(1000);
      metrics[subKey('windowRequests', run.scenario, { slice: String(s) })] = c(20);
      if (gpu && s > 0) metrics[subKey('gpuEnergy', probeScenario(run), { slice: String(s) })] = c(400 + 10 * s);
    }
    if (gpu) metrics[subKey('gpuCount', probeScenario(run), { gpu_exporter: 'dcgm', gpu_energy_source: 'energy-counter' })] = c(1);
    return JSON.stringify({
      format: INSTANCE_RESULT_FORMAT,
      benchmark: 'context-matrix',
      runId: 'step-1',
      segment: null,
      sequence: null,
      variables,
      setup: null,
      metrics,
      testRunDurationMs: 10_000,
    });
  };
  const r = readStepRun('step.json', partial({ ...vars, GPU_METRICS_URL: 'http://gpu:9400/metrics' }, true), META.now);
  assert.deepEqual([r.energy?.joules, r.energy?.tokens], [410 + 420 + 430 + 440, 4000]);
  assert.ok(r.energy?.ci !== null && r.energy!.ci.lo < 0.425 && r.energy!.ci.hi > 0.425);
  assert.equal(r.energyWhy, null);
  const without = readStepRun('step.json', partial(vars, false), META.now);
  assert.deepEqual([without.energy, without.energyWhy], [null, ENERGY_NO_URL]);
});
