// The measurement plan: matrix cells, one run per cell and variant, chained one after another
// with k6's startTime, and the variant order rotating from cell to cell (a balanced Latin square: A B, B A … for two) so
// drift over time hits every variant alike.
import type { BenchConfig } from '../config/config-types';
import type { TraceShape } from '../workload/trace';

export type { Cell, Load, Plan, Run } from './plan-types';
import type { Cell, ImageSpec, Load, Plan, Run } from './plan-types';

export function loadId(load: Load): string {
  if (load.kind === 'trace') return `x${String(load.speed).replace('.', 'p')}`;
  return load.kind === 'vus' ? `c${load.vus}` : `r${String(load.rate).replace('.', 'p')}`;
}

/** VUs a run starts with: its concurrency, the trace's VUs, or enough for ten seconds of arrivals in flight. */
export function runVus(load: Load, maxVus: number): number {
  if (load.kind === 'vus') return load.vus;
  // A short trace or drawn schedule needs no more VUs than requests (k6 refuses more than its iterations).
  if (load.kind === 'trace') return Math.min(load.vus, load.requests);
  return Math.min(maxVus, Math.max(1, Math.ceil(load.rate * 10)));
}

/**
 * ISL × OSL × IMAGES × load, in that nesting order (loads vary fastest). A cell with images has
 * `_img<count>x<width>x<height>` before its load in its id; one without keeps the id it always had.
 */
export function buildCells(isl: number[], osl: number[], loads: Load[], images: readonly ImageSpec[] = [NO_IMAGES]): Cell[] {
  const cells: Cell[] = [];
  for (const i of isl)
    for (const o of osl)
      for (const img of images)
        for (const load of loads) {
          const imgId = img.count > 0 ? `img${img.count}x${img.width}x${img.height}_` : '';
          cells.push({ id: `i${i}_o${o}_${imgId}${loadId(load)}`, isl: i, osl: o, ...(img.count > 0 ? { images: img } : {}), load });
        }
  return cells;
}

const NO_IMAGES: ImageSpec = { count: 0, width: 0, height: 0 };

/** A pooling matrix, ISL × BATCH × load (loads vary fastest): i128_b8_c4. */
export function poolingCells(isl: number[], batch: number[], loads: Load[]): Cell[] {
  const cells: Cell[] = [];
  for (const i of isl) for (const b of batch) for (const load of loads) cells.push({ id: `i${i}_b${b}_${loadId(load)}`, isl: i, osl: 0, batch: b, load });
  return cells;
}

/** A short pause between runs so one run's last requests never overlap the next run's first. */
export const RUN_GAP_MS = 1000;

/**
 * REPEATS > 1 runs the whole comparison again after itself: every cell × variant once per repeat,
 * each repeat's cell order rotated one row of the Latin square further (so a variant that ran first
 * in a cell runs second in the next repeat), the runs named `<variant>_<cell>_r<k>` and tagged
 * `repeat`. With one repeat the plan is the same as it was before repeats existed.
 */
export function buildPlan(
  cfg: Pick<BenchConfig, 'durationMs' | 'gracefulStopMs' | 'slices' | 'requests' | 'maxVus'> & Partial<Pick<BenchConfig, 'repeats'>>,
  cells: Cell[],
  variants: string[],
): Plan {
  const runs: Run[] = [];
  const repeats = cfg.repeats ?? 1;
  const rows = williams(variants.length);
  let t = 0;
  for (let k = 0; k < repeats; k++) {
    cells.forEach((cell, i) => {
      for (const v of rows[(i + k) % rows.length]) {
        const variant = variants[v];
        const vus = runVus(cell.load, cfg.maxVus);
        const run: Run = { scenario: `${variant}_${cell.id}`, vus, cell, variant, startMs: t, durationMs: cfg.durationMs, gracefulStopMs: cfg.gracefulStopMs };
        runs.push(repeats > 1 ? { ...run, scenario: `${run.scenario}_r${k + 1}`, repeat: k + 1 } : run);
        t += cfg.durationMs + cfg.gracefulStopMs + RUN_GAP_MS;
      }
    });
  }
  const plan: Plan = { cells, runs, slices: cfg.slices, sliceMs: cfg.durationMs / cfg.slices, totalMs: t, requests: cfg.requests };
  return repeats > 1 ? { ...plan, repeats } : plan;
}

/**
 * A balanced Latin square (Williams design) over n variants: each variant runs in every position,
 * and follows every other variant equally often, over the rows (n rows for even n, 2n for odd).
 * Cell i runs in the order of row i mod rows; for two variants: A B, B A, A B …
 */
export function williams(n: number): number[][] {
  if (n <= 1) return [[0]];
  const first: number[] = [0];
  for (let k = 1, lo = 1, hi = n - 1; k < n; k++) first.push(k % 2 === 1 ? lo++ : hi--);
  const rows = Array.from({ length: n }, (_, r) => first.map((v) => (v + r) % n));
  return n % 2 === 0 ? rows : [...rows, ...rows.map((row) => [...row].reverse())];
}

/** The steady window of a run: the load time minus the first slice (ramp-up), in ms from its start. */
export function steadyWindow(plan: Plan): { fromMs: number; toMs: number } {
  const skip = plan.slices > 1 ? 1 : 0;
  return { fromMs: skip * plan.sliceMs, toMs: plan.slices * plan.sliceMs };
}

/**
 * When a VU of a run sends its first request, ms after the run starts: a closed loop's VUs evenly
 * over START_SPREAD (slot 0 at once), so k6 does not open every stream in the same instant;
 * open loops and replays keep their own schedules (0).
 */
export function startOffsetMs(run: Run, spreadMs: number, slot: number): number {
  const l = run.cell.load;
  return l.kind === 'vus' && l.vus > 1 ? Math.floor((spreadMs * slot) / l.vus) : 0;
}

/** The name of the server-metrics probe scenario of a run. */
export function probeScenario(run: Run): string {
  return `probe_${run.scenario}`;
}

/** The name of the saturation watch scenario of a run (SATURATION_STOP). */
export function watchScenario(run: Run): string {
  return `watch_${run.scenario}`;
}

export function formatDuration(ms: number): string {
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  return s % 60 === 0 ? `${m}m` : `${m}m${s % 60}s`;
}

/** The load time of a trace replay: until its last request is due, and a second for the VU that sends it. */
export function traceDurationMs(shape: Pick<TraceShape, 'spanMs'>, speed: number): number {
  return Math.ceil(shape.spanMs / speed) + 1000;
}

/**
 * The plan of a benchmark under a configuration: its load axis, cells and runs. With TRACE, one
 * cell (`trace_x<speed>`) whose ISL and OSL are the trace's mean lengths, replayed once per variant.
 */
export function planOf(
  load: 'vus' | 'rate',
  cfg: Pick<BenchConfig, 'isl' | 'osl' | 'concurrency' | 'rates' | 'durationMs' | 'gracefulStopMs' | 'slices' | 'requests' | 'maxVus' | 'variants' | 'trace'> &
    Partial<Pick<BenchConfig, 'repeats' | 'images' | 'pooling'>>,
  trace: TraceShape | null = null,
): Plan {
  if (cfg.trace !== null) {
    if (trace === null)
      throw new Error(
        `TRACE=${cfg.trace.spec}: the trace's shape is not in this test's record (a test recorded before setup ended), so its plan cannot be rebuilt.`,
      );
    const a = cfg.trace.arrivals;
    const tl: Load = {
      kind: 'trace',
      speed: cfg.trace.speed,
      requests: trace.requests,
      vus: cfg.trace.vus,
      maxLagMs: cfg.trace.maxLagMs,
      // A drawn ARRIVALS schedule is named by its process and rate, not as a trace file.
      ...(a ? { arrivals: `${a.process.name} ${a.rate}/s` } : {}),
    };
    const cell: Cell = { id: `trace_${loadId(tl)}`, isl: Math.round(trace.meanInput), osl: Math.round(trace.meanOutput), load: tl };
    return buildPlan(
      { ...cfg, durationMs: traceDurationMs(trace, cfg.trace.speed), requests: null },
      [cell],
      cfg.variants.map((v) => v.variant),
    );
  }
  const loads: Load[] = load === 'rate' ? cfg.rates.map((rate) => ({ kind: 'rate', rate })) : cfg.concurrency.map((vus) => ({ kind: 'vus', vus }));
  if (cfg.pooling)
    return buildPlan(
      cfg,
      poolingCells(cfg.isl, cfg.pooling.batch, loads),
      cfg.variants.map((v) => v.variant),
    );
  return buildPlan(
    cfg,
    buildCells(cfg.isl, cfg.osl, loads, cfg.images),
    cfg.variants.map((v) => v.variant),
  );
}
