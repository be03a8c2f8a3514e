// Synthetic Prometheus series shaped exactly as k6's experimental-prometheus-rw output writes them
// for a dflash-vs-mtp run (names from the metric catalog, labels from the scenario tags), plus the
// llm-server scrape job's series, as OpenMetrics text for promtool's backfill. The numbers are
// chosen per run, so every dashboard query has a known answer.
//
// The shape follows k6's output: one push every 5 s of every series that got samples since the
// last push; counters and trend stats are cumulative per series (a trend stat is computed over
// all of the series' samples so far); time trends are in seconds; a finished run's series are no
// longer pushed. Runs are sequential, one variant at a time, in the plan's A B, B A order.
import { METRICS, promName, type MetricDef } from '../../lib/metrics/catalog';

export const PUSH_S = 5;
export const RUN_S = 150;
export const SLICES = 5;
export const SLICE_S = RUN_S / SLICES;
/** Graceful stop plus the plan's gap between runs. */
export const BETWEEN_S = 15;
/** The trend stats the dashboard needs (K6_PROMETHEUS_RW_TREND_STATS), as series suffixes. */
export const STAT_SUFFIXES = ['p50', 'p90', 'p99', 'avg', 'max', 'count'] as const;

export interface Stats {
  p50: number;
  p90: number;
  p99: number;
  avg: number;
  max: number;
}

export interface Cell {
  id: string;
  isl: number;
  osl: number;
  concurrency: number;
}

export const CELL_C4: Cell = { id: 'i1024_o256_c4', isl: 1024, osl: 256, concurrency: 4 };
export const CELL_C16: Cell = { id: 'i1024_o256_c16', isl: 1024, osl: 256, concurrency: 16 };

export interface RunSpec {
  variant: string;
  cell: Cell;
  /** Offset of the run from the test's start, seconds. */
  start: number;
  dialect: string;
  /** Output tokens per second during the run (after the ramp-up slice). */
  tps: number;
  /** Throughput of slice 0 relative to the rest (ramp-up). Differs per variant on purpose. */
  ramp: number;
  e2e: Stats;
  /** TRANSPORT=sse runs only. */
  ttft: Stats | null;
  itl: Stats | null;
  errorRate: number;
  errorClass: string | null;
  /** Client mean of per-request acceptance (SGLang's spec_verify_ct); null where the server reports none. */
  acceptanceMean: number | null;
  /** Σ output tokens ÷ Σ verify steps; null like acceptanceMean. */
  acceptanceTokens: number | null;
  /** Server-side acceptance over the steady window (probe scenario). */
  serverAcceptance: number | null;
  /** GPU_HOUR_COST (null: unset) and GPUS of the run's variant: one llm_gpu_hour_cost and llm_steady_gpu_hours sample per run. */
  price?: { gpuHourCost: number | null; gpus: number };
  /** GPU_METRICS_URL: the GPUs' mean power (W, all GPUs), steady throughout: each steady slice's llm_gpu_energy is watts × its length. */
  gpu?: { watts: number };
  /** Replies that reasoned: time to the first answer and first reasoning token, reasoning and answer tokens per second. */
  reasoning?: { answer: Stats; first: Stats; reasoningTps: number; answerTps: number };
}

export interface TestSpec {
  testid: string;
  runs: RunSpec[];
  vusMax: number;
}

const stats = (p50: number, p90: number, p99: number, avg: number, max: number): Stats => ({ p50, p90, p99, avg, max });
const startOf = (i: number) => i * (RUN_S + BETWEEN_S);

const DFLASH_PRICE = { gpuHourCost: 2.5, gpus: 8 };
const MTP_PRICE = { gpuHourCost: 3.2, gpus: 4 };
const DFLASH_GPU = { watts: 5600 };
const MTP_GPU = { watts: 2400 };
/** TPOT p50 of an sse run (s): what the frontier's tokens/s per user inverts. */
export const tpotP50 = (r: RunSpec) => (r.itl as Stats).p50 * 1.2;
/** Seconds of a run's steady window: its slices after the first. */
export const STEADY_S = (SLICES - 1) * SLICE_S;

/** The main test: an sse run, so TTFT and ITL exist. */
export const MAIN: TestSpec = {
  testid: 'dflash-vs-mtp-20260101-120000',
  vusMax: 21,
  runs: [
    {
      variant: 'dflash',
      cell: CELL_C4,
      start: startOf(0),
      dialect: 'sglang',
      price: DFLASH_PRICE,
      gpu: DFLASH_GPU,
      tps: 600,
      ramp: 0.5,
      e2e: stats(1.62, 1.91, 2.35, 1.68, 2.9),
      ttft: stats(0.041, 0.063, 0.118, 0.047, 0.2),
      itl: stats(0.0062, 0.011, 0.019, 0.0071, 0.05),
      errorRate: 0,
      errorClass: null,
      acceptanceMean: 6.1,
      acceptanceTokens: 6.0,
      serverAcceptance: 6.05,
    },
    {
      variant: 'mtp',
      cell: CELL_C4,
      start: startOf(1),
      dialect: 'openai',
      price: MTP_PRICE,
      gpu: MTP_GPU,
      tps: 300,
      ramp: 0.8,
      e2e: stats(3.3, 3.8, 4.4, 3.4, 5.1),
      ttft: stats(0.052, 0.071, 0.13, 0.055, 0.21),
      itl: stats(0.0128, 0.016, 0.024, 0.0133, 0.06),
      errorRate: 0.01,
      errorClass: 'overloaded',
      acceptanceMean: null,
      acceptanceTokens: null,
      serverAcceptance: 2.6,
      reasoning: { answer: stats(0.9, 1.2, 1.6, 0.95, 2.1), first: stats(0.05, 0.07, 0.13, 0.055, 0.21), reasoningTps: 180, answerTps: 120 },
    },
    {
      variant: 'mtp',
      cell: CELL_C16,
      start: startOf(2),
      dialect: 'openai',
      price: MTP_PRICE,
      gpu: MTP_GPU,
      tps: 1200,
      ramp: 0.8,
      e2e: stats(3.5, 4.1, 4.9, 3.6, 6.0),
      ttft: stats(0.09, 0.16, 0.31, 0.1, 0.5),
      itl: stats(0.0131, 0.018, 0.029, 0.014, 0.08),
      errorRate: 0,
      errorClass: null,
      acceptanceMean: null,
      acceptanceTokens: null,
      serverAcceptance: 2.4,
    },
    {
      variant: 'dflash',
      cell: CELL_C16,
      start: startOf(3),
      dialect: 'sglang',
      price: DFLASH_PRICE,
      gpu: DFLASH_GPU,
      tps: 1800,
      ramp: 0.5,
      e2e: stats(2.2, 2.7, 3.3, 2.3, 4.4),
      ttft: stats(0.08, 0.14, 0.29, 0.09, 0.45),
      itl: stats(0.0085, 0.014, 0.027, 0.0093, 0.07),
      errorRate: 0.02,
      errorClass: 'timeout',
      acceptanceMean: 5.8,
      acceptanceTokens: 5.7,
      serverAcceptance: 5.75,
    },
  ],
};

/** Another test pushed to the same Prometheus at the same time (http transport: no TTFT/ITL). */
export const OTHER: TestSpec = {
  testid: 'dflash-vs-mtp-20260101-120500',
  vusMax: 9,
  runs: MAIN.runs.map((r) => ({
    ...r,
    tps: r.tps / 2,
    e2e: stats(r.e2e.p50 * 2, r.e2e.p90 * 2, r.e2e.p99 * 2, r.e2e.avg * 2, r.e2e.max * 2),
    ttft: null,
    itl: null,
    errorRate: 0.1,
    errorClass: 'server_error',
    // GPU_HOUR_COST unset: no price series; GPUS unset: one GPU.
    price: { gpuHourCost: null, gpus: 1 },
    // GPU_METRICS_URL unset: no GPU series.
    gpu: undefined,
    acceptanceMean: r.acceptanceMean === null ? null : r.acceptanceMean - 1,
    acceptanceTokens: r.acceptanceTokens === null ? null : r.acceptanceTokens - 1,
    serverAcceptance: null,
  })),
};

/**
 * MAIN's load split over two k6 instances (execution segments): one testid, each instance half of
 * every run's load, its series told apart by the `segment` tag. The dashboard must show MAIN's figures.
 */
export const SPLIT: TestSpec & { segments: string[] } = { ...MAIN, testid: 'dflash-vs-mtp-20260101-121000', segments: ['0:1/2', '1/2:1'] };

export const TEST_S = startOf(MAIN.runs.length) - BETWEEN_S;

/**
 * A compare run of three variants (none the baseline): one cell all three ran, and a second cell
 * only the baseline reached, so it has no ratio yet.
 */
export const NWAY: TestSpec = {
  testid: 'compare-20260101-122000',
  vusMax: 16,
  runs: [
    { ...(MAIN.runs[0] as RunSpec), variant: 'none', start: startOf(0), tps: 250, serverAcceptance: null, acceptanceMean: null, acceptanceTokens: null },
    { ...(MAIN.runs[0] as RunSpec), variant: 'dflash', start: startOf(1), tps: 600 },
    { ...(MAIN.runs[0] as RunSpec), variant: 'mtp', start: startOf(2), tps: 400, ramp: 0.9 },
    { ...(MAIN.runs[3] as RunSpec), variant: 'none', start: startOf(3), tps: 900, serverAcceptance: null, acceptanceMean: null, acceptanceTokens: null },
  ],
};

/** A domain's share of a DATASET run: its output rate, mean e2e and (SGLang) acceptance length. */
export interface DomainSpec {
  domain: string;
  tps: number;
  e2eAvg: number;
  acceptanceTokens: number | null;
}
/** A turn of a MULTI_TURN run: TTFT p50, prompt tokens per second and the cached share of them. */
export interface TurnSpec {
  turn: string;
  ttftP50: number;
  inputRate: number;
  cachedShare: number;
}
export interface DatasetRunSpec {
  variant: 'dflash' | 'mtp';
  cell: Cell;
  start: number;
  dialect: string;
  domains: DomainSpec[];
  turns: TurnSpec[];
}

/**
 * A DATASET run of the A/B (with MULTI_TURN): every request series carries the VU tags `domain`
 * and, for the chat conversations, `turn`, so each run's series split by them.
 */
export const DATASET_TEST = {
  testid: 'dflash-vs-mtp-dataset-20260101-121500',
  runs: [
    {
      variant: 'dflash',
      cell: CELL_C4,
      start: startOf(0),
      dialect: 'sglang',
      domains: [
        { domain: 'code', tps: 500, e2eAvg: 0.8, acceptanceTokens: 6.9 },
        { domain: 'chat', tps: 150, e2eAvg: 2.1, acceptanceTokens: 2.05 },
      ],
      turns: [
        { turn: '1', ttftP50: 0.09, inputRate: 300, cachedShare: 0.1 },
        { turn: '2', ttftP50: 0.04, inputRate: 900, cachedShare: 0.7 },
      ],
    },
    {
      variant: 'mtp',
      cell: CELL_C4,
      start: startOf(1),
      dialect: 'openai',
      domains: [
        { domain: 'code', tps: 260, e2eAvg: 1.6, acceptanceTokens: null },
        { domain: 'chat', tps: 240, e2eAvg: 1.7, acceptanceTokens: null },
      ],
      turns: [
        { turn: '1', ttftP50: 0.1, inputRate: 280, cachedShare: 0.05 },
        { turn: '2', ttftP50: 0.05, inputRate: 850, cachedShare: 0.6 },
      ],
    },
  ] as DatasetRunSpec[],
};

function emitDatasetRun(om: OpenMetrics, r: DatasetRunSpec, t0: number): void {
  const scenario = `${r.variant}_${r.cell.id}`;
  const base: Labels = {
    testid: DATASET_TEST.testid,
    variant: r.variant,
    cell: r.cell.id,
    isl: String(r.cell.isl),
    osl: String(r.cell.osl),
    concurrency: String(r.cell.concurrency),
    scenario,
    dialect: r.dialect,
  };
  for (const rel of pushTimes(0, RUN_S)) {
    const t = t0 + r.start + rel;
    for (const d of r.domains) {
      // The conversations are chat: their turn-tagged series are chat's; code prompts are single-turn (no turn tag).
      const labels = { ...base, domain: d.domain };
      const rs = d.tps / r.cell.osl;
      om.add(promName(METRICS.success), labels, t, 1);
      om.add(promName(METRICS.outputTokens), labels, t, d.tps * rel);
      trend({ om, t }, METRICS.e2e, labels, stats(d.e2eAvg, d.e2eAvg * 1.2, d.e2eAvg * 1.5, d.e2eAvg, d.e2eAvg * 2), rs * rel);
      if (d.acceptanceTokens !== null) {
        om.add(promName(METRICS.specTokens), labels, t, d.tps * rel);
        om.add(promName(METRICS.specVerifySteps), labels, t, (d.tps * rel) / d.acceptanceTokens);
      }
    }
    for (const turn of r.turns) {
      const labels = { ...base, domain: 'chat', turn: turn.turn };
      trend({ om, t }, METRICS.ttft, labels, stats(turn.ttftP50, turn.ttftP50 * 1.5, turn.ttftP50 * 2, turn.ttftP50, turn.ttftP50 * 3), 10 * rel);
      om.add(promName(METRICS.inputTokens), labels, t, turn.inputRate * rel);
      om.add(promName(METRICS.cachedTokens), labels, t, turn.inputRate * turn.cachedShare * rel);
    }
  }
}

export const SERVERS = {
  dflash: { instance: '127.0.0.1:30000', prefix: 'sglang:', extra: {} as Record<string, string> },
  mtp: { instance: '127.0.0.1:8000', prefix: 'vllm:', extra: { engine: '0' } as Record<string, string> },
} as const;

export const reqRate = (r: RunSpec) => r.tps / r.cell.osl;
export const failRate = (r: RunSpec) => (reqRate(r) * r.errorRate) / (1 - r.errorRate);
/** Steady-window output tokens of a run (slices 1..n-1), what the ratio panel sums. */
export const steadyTokens = (r: RunSpec) => r.tps * SLICE_S * (SLICES - 1);
export const rampTokens = (r: RunSpec) => r.tps * r.ramp * SLICE_S;

type Labels = Record<string, string>;

class OpenMetrics {
  private readonly families = new Map<string, { type: string; lines: string[] }>();

  add(name: string, labels: Labels, t: number, v: number): void {
    // OpenMetrics names a counter family without _total; its samples carry the suffix.
    const counter = name.endsWith('_total');
    const family = counter ? name.slice(0, -'_total'.length) : name;
    let f = this.families.get(family);
    if (!f) {
      f = { type: counter ? 'counter' : 'gauge', lines: [] };
      this.families.set(family, f);
    }
    const l = Object.entries(labels)
      .filter(([, val]) => val !== '')
      .map(([k, val]) => `${k}="${val.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`)
      .join(',');
    f.lines.push(`${name}{${l}} ${v} ${t}`);
  }

  text(): string {
    const out: string[] = [];
    for (const [name, f] of this.families) out.push(`# TYPE ${name} ${f.type}`, ...f.lines);
    out.push('# EOF', '');
    return out.join('\n');
  }
}

function pushTimes(from: number, to: number): number[] {
  const out: number[] = [];
  for (let t = from + PUSH_S; t <= to + 1e-9; t += PUSH_S) out.push(t);
  return out;
}

/** Where a series' samples go, and at what time. */
interface At {
  om: OpenMetrics;
  t: number;
}

function trend({ om, t }: At, def: MetricDef, labels: Labels, s: Stats, count: number): void {
  for (const stat of STAT_SUFFIXES) om.add(promName(def, stat), labels, t, stat === 'count' ? count : s[stat]);
}

/** `once`: this instance sent the run's first iteration, which writes the once-per-run samples. */
function emitRun(om: OpenMetrics, test: TestSpec, r: RunSpec, t0: number, { instance = {}, once = true }: { instance?: Labels; once?: boolean } = {}): void {
  const scenario = `${r.variant}_${r.cell.id}`;
  const runTags: Labels = {
    testid: test.testid,
    variant: r.variant,
    cell: r.cell.id,
    isl: String(r.cell.isl),
    osl: String(r.cell.osl),
    concurrency: String(r.cell.concurrency),
    ...instance,
  };
  const base: Labels = { ...runTags, scenario, dialect: r.dialect };
  const rs = reqRate(r);
  for (const rel of pushTimes(0, RUN_S)) {
    const t = t0 + r.start + rel;
    om.add(promName(METRICS.outputTokens), base, t, r.tps * rel);
    om.add(promName(METRICS.inputTokens), base, t, rs * r.cell.isl * rel);
    om.add(promName(METRICS.success), base, t, 1 - r.errorRate);
    trend({ om, t }, METRICS.e2e, base, r.e2e, rs * rel);
    trend(
      { om, t },
      METRICS.requestTps,
      base,
      stats(r.cell.osl / r.e2e.p50, (r.cell.osl / r.e2e.p50) * 1.1, (r.cell.osl / r.e2e.p50) * 1.3, r.cell.osl / r.e2e.avg, (r.cell.osl / r.e2e.p50) * 1.5),
      rs * rel,
    );
    if (r.ttft) trend({ om, t }, METRICS.ttft, base, r.ttft, rs * rel);
    if (r.itl) trend({ om, t }, METRICS.itl, base, r.itl, r.tps * rel);
    if (r.itl) {
      const p = tpotP50(r);
      trend({ om, t }, METRICS.tpot, base, stats(p, p * 1.3, p * 1.8, p * 1.05, p * 3), rs * rel);
    }
    // One sample at the run's first iteration: k6 pushes its series once, at the first push.
    if (once && r.price && rel === PUSH_S) {
      const one = (v: number) => stats(v, v, v, v, v);
      if (r.price.gpuHourCost !== null) trend({ om, t }, METRICS.gpuHourCost, base, one(r.price.gpuHourCost), 1);
      trend({ om, t }, METRICS.steadyGpuHours, base, one((r.price.gpus * STEADY_S) / 3600), 1);
    }
    if (r.reasoning) {
      trend({ om, t }, METRICS.ttftAnswer, base, r.reasoning.answer, rs * rel);
      trend({ om, t }, METRICS.ttftReasoning, base, r.reasoning.first, rs * rel);
      om.add(promName(METRICS.reasoningTokens), base, t, r.reasoning.reasoningTps * rel);
      om.add(promName(METRICS.answerTokens), base, t, r.reasoning.answerTps * rel);
    }
    if (r.errorClass !== null && r.errorRate > 0) om.add(promName(METRICS.errors), { ...base, error_class: r.errorClass }, t, failRate(r) * rel);
    if (r.acceptanceMean !== null)
      trend({ om, t }, METRICS.acceptance, base, stats(r.acceptanceMean, r.acceptanceMean + 2, r.acceptanceMean + 4, r.acceptanceMean, 16), rs * rel);
    if (r.acceptanceTokens !== null) {
      om.add(promName(METRICS.specTokens), base, t, r.tps * rel);
      om.add(promName(METRICS.specVerifySteps), base, t, (r.tps * rel) / r.acceptanceTokens);
    }
    // Slice s gets its tokens while the run is inside it, and its series is pushed only then.
    for (let s = 0; s < SLICES; s++) {
      const into = rel - s * SLICE_S;
      if (into <= 0 || into > SLICE_S) continue;
      const f = s === 0 ? r.ramp : 1;
      om.add(promName(METRICS.windowTokens), { ...base, slice: String(s) }, t, r.tps * f * into);
      om.add(promName(METRICS.windowRequests), { ...base, slice: String(s) }, t, rs * f * into);
    }
  }
  // The probe scenario sends one sample at the end of the steady window; its VU may not carry a dialect.
  const probe: Labels = { ...runTags, scenario: `probe_${scenario}` };
  if (once && r.gpu) {
    const t = t0 + r.start + RUN_S;
    for (let s = 1; s < SLICES; s++) om.add(promName(METRICS.gpuEnergy), { ...probe, slice: String(s) }, t, r.gpu.watts * SLICE_S);
    trend({ om, t }, METRICS.gpuPower, probe, stats(r.gpu.watts, r.gpu.watts, r.gpu.watts, r.gpu.watts, r.gpu.watts), 1);
  }
  if (r.serverAcceptance !== null) {
    trend(
      { om, t: t0 + r.start + RUN_S },
      METRICS.serverAcceptance,
      probe,
      stats(r.serverAcceptance, r.serverAcceptance, r.serverAcceptance, r.serverAcceptance, r.serverAcceptance),
      1,
    );
  }
}

/** The run of a test that is loading at test-relative second `rel`, if any. */
export function activeRun(test: TestSpec, rel: number): RunSpec | null {
  return test.runs.find((r) => rel > r.start && rel <= r.start + RUN_S) ?? null;
}

function emitVus(om: OpenMetrics, test: TestSpec, t0: number): void {
  for (const rel of pushTimes(0, TEST_S)) {
    const r = activeRun(test, rel);
    om.add('k6_vus', { testid: test.testid }, t0 + rel, r ? r.cell.concurrency : 0);
    om.add('k6_vus_max', { testid: test.testid }, t0 + rel, test.vusMax);
  }
}

/** Seconds a variant's runs of MAIN have been loading by `rel`, weighted by their throughput. */
function tokensSoFar(variant: 'dflash' | 'mtp', rel: number, per: (r: RunSpec) => number): number {
  let sum = 0;
  for (const r of MAIN.runs) {
    if (r.variant !== variant) continue;
    const busy = Math.min(Math.max(rel - r.start, 0), RUN_S);
    sum += per(r) * busy;
  }
  return sum;
}

/** The llm-server scrape job: the two servers that MAIN's runs hit, scraped every 5 s throughout. */
function emitServers(om: OpenMetrics, t0: number, endRel: number): void {
  for (const rel of pushTimes(0, endRel)) {
    const t = t0 + rel;
    for (const variant of ['dflash', 'mtp'] as const) {
      const s = SERVERS[variant];
      const labels: Labels = { job: 'llm-server', instance: s.instance, variant, model_name: 'qwen3-32b-sim', ...s.extra };
      om.add(
        `${s.prefix}generation_tokens_total`,
        labels,
        t,
        tokensSoFar(variant, rel, (r) => r.tps),
      );
      om.add(
        `${s.prefix}prompt_tokens_total`,
        labels,
        t,
        tokensSoFar(variant, rel, (r) => reqRate(r) * r.cell.isl),
      );
      const active = activeRun(MAIN, rel);
      if (variant === 'dflash') {
        om.add('sglang:spec_accept_length', labels, t, active?.variant === 'dflash' ? (active.serverAcceptance ?? 0) : 0);
      } else {
        const drafts = tokensSoFar('mtp', rel, (r) => r.tps / (r.serverAcceptance ?? 1));
        const accepted = tokensSoFar('mtp', rel, (r) => (r.tps / (r.serverAcceptance ?? 1)) * ((r.serverAcceptance ?? 1) - 1));
        om.add('vllm:spec_decode_num_drafts_total', labels, t, drafts);
        om.add('vllm:spec_decode_num_accepted_tokens_total', labels, t, accepted);
      }
    }
  }
}

/** OpenMetrics text for MAIN, OTHER, NWAY and the scrape job, the tests starting at unix second t0. */
export function openMetrics(t0: number, endRel: number): string {
  const om = new OpenMetrics();
  for (const test of [MAIN, OTHER, NWAY]) {
    for (const r of test.runs) emitRun(om, test, r, t0);
    emitVus(om, test, t0);
  }
  // Each instance carries half of every run; the probe (one VU) runs in the first instance only.
  SPLIT.segments.forEach((segment, i) => {
    for (const r of SPLIT.runs)
      emitRun(om, SPLIT, { ...r, tps: r.tps / SPLIT.segments.length, serverAcceptance: i === 0 ? r.serverAcceptance : null }, t0, {
        instance: { segment },
        once: i === 0,
      });
  });
  for (const r of DATASET_TEST.runs) emitDatasetRun(om, r, t0);
  emitServers(om, t0, endRel);
  return om.text();
}
