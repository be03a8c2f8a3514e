// The simulated GPUs: a power model that follows the scheduler's steps, an energy meter that integrates
// it over the simulator's (wall) clock, and two exporters' Prometheus pages over it, NVIDIA's
// dcgm-exporter (with an energy counter) and nvidia_gpu_exporter (nvidia-smi: power, no counter).
// The meter is the ground truth: the exact joules at any time (GET /sim/gpu), so a client's
// joules per token can be checked against it.
import type { SimOptions } from './options';
import { nowMs } from './scheduler/clock';

/** What a step does, as far as power goes. */
export interface StepLoad {
  prefillTokens: number;
  decodingSeqs: number;
}

/**
 * One GPU's power during a step, W: idle plus a share of (max − idle). Prefill is compute-bound
 * and draws most (0.7 of the range, up to all of it for a prefill of 2048 tokens or more); decode is
 * memory-bound and draws more as the batch grows (0.3 of the range for one sequence, towards 0.7
 * for large batches). A mixed step draws what its heavier part does. A shape, not a measured GPU.
 */
export function stepWatts(o: Pick<SimOptions, 'gpuIdleWatts' | 'gpuMaxWatts'>, s: StepLoad): number {
  const decode = s.decodingSeqs > 0 ? 0.3 + (0.4 * s.decodingSeqs) / (s.decodingSeqs + 16) : 0;
  const prefill = s.prefillTokens > 0 ? 0.7 + 0.3 * Math.min(1, s.prefillTokens / 2048) : 0;
  return o.gpuIdleWatts + (o.gpuMaxWatts - o.gpuIdleWatts) * Math.max(decode, prefill);
}

/** GPU i's share of the deployment's per-GPU power: tensor-parallel ranks do not draw alike. */
export const gpuFactor = (i: number): number => 1 - 0.03 * (i % 10);

/** Model weights, MiB, over all GPUs, and KV cache per token held (an 8B model in bf16). */
const WEIGHTS_MIB = 16_384;
const KV_MIB_PER_TOKEN = 0.125;
/** The trailing span the power gauge and utilisation average over (as the exporters' readings do). */
const AVERAGE_MS = 1000;
/** Segments kept; older times answer null. */
const KEEP = 200_000;
const KEEP_SCRAPES = 10_000;

/**
 * Piecewise-constant power of one GPU of factor 1 (the deployment's GPUs scale it by gpuFactor),
 * from when the simulator started: each change is a segment (start, joules and busy ms so far,
 * watts, busy or idle).
 */
export class GpuMeter {
  private t: number[] = [];
  private e: number[] = [];
  private b: number[] = [];
  private w: number[] = [];
  private busy: boolean[] = [];
  readonly factorSum: number;
  /** The exporter pages served (the latest KEEP_SCRAPES): when, which, and all GPUs' joules then. */
  readonly scrapes: Array<{ atMs: number; page: string; joules: number }> = [];

  constructor(
    readonly o: Pick<SimOptions, 'gpus' | 'gpuIdleWatts' | 'gpuMaxWatts'>,
    startMs = nowMs(),
  ) {
    this.factorSum = Array.from({ length: o.gpus }, (_, i) => gpuFactor(i)).reduce((a, x) => a + x, 0);
    this.push(startMs, 0, 0, o.gpuIdleWatts, false);
  }

  private push(t: number, e: number, b: number, w: number, busy: boolean): void {
    this.t.push(t);
    this.e.push(e);
    this.b.push(b);
    this.w.push(w);
    this.busy.push(busy);
    if (this.t.length > KEEP * 2) for (const a of [this.t, this.e, this.b, this.w, this.busy] as unknown[][]) a.splice(0, KEEP);
  }

  /** A step starts (its load), or the scheduler goes idle (null), at `at` (now by default). */
  set(load: StepLoad | null, at = nowMs()): void {
    const i = this.t.length - 1;
    const t = Math.max(at, this.t[i]);
    const [e, b] = this.at(t) as [number, number];
    this.push(t, e, b, load === null ? this.o.gpuIdleWatts : stepWatts(this.o, load), load !== null);
  }

  /** One factor-1 GPU's joules and busy ms at time x; null before the kept record. */
  private at(x: number): [number, number] | null {
    if (x < this.t[0]) return null;
    let lo = 0;
    let hi = this.t.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.t[mid] <= x) lo = mid;
      else hi = mid - 1;
    }
    const dt = x - this.t[lo];
    return [this.e[lo] + (this.w[lo] * dt) / 1000, this.b[lo] + (this.busy[lo] ? dt : 0)];
  }

  /** Joules of GPU i since the simulator started, at time x (epoch ms); null before the record. */
  joules(x: number, gpu: number): number | null {
    const v = this.at(x);
    return v === null ? null : v[0] * gpuFactor(gpu);
  }

  /** All GPUs' joules at time x: the ground truth. */
  totalJoules(x: number): number | null {
    const v = this.at(x);
    return v === null ? null : v[0] * this.factorSum;
  }

  /** An exporter page was served at time x. */
  noteScrape(page: string, x: number): void {
    this.scrapes.push({ atMs: x, page, joules: this.totalJoules(x) as number });
    if (this.scrapes.length > KEEP_SCRAPES) this.scrapes.splice(0, this.scrapes.length - KEEP_SCRAPES);
  }

  /** GPU i's mean power over the trailing AVERAGE_MS (or since the start), W. */
  watts(x: number, gpu: number): number {
    const from = Math.max(this.t[0], x - AVERAGE_MS);
    const a = this.at(from) as [number, number];
    const b = this.at(x) as [number, number];
    return x > from ? (((b[0] - a[0]) * 1000) / (x - from)) * gpuFactor(gpu) : this.w[this.w.length - 1] * gpuFactor(gpu);
  }

  /** Share of the trailing AVERAGE_MS the scheduler ran steps, %. */
  utilization(x: number): number {
    const from = Math.max(this.t[0], x - AVERAGE_MS);
    const a = this.at(from) as [number, number];
    const b = this.at(x) as [number, number];
    return x > from ? (100 * (b[1] - a[1])) / (x - from) : 0;
  }
}

/** Memory used on GPU i, MiB: its share of the weights and of the KV cache held. */
export function memoryMiB(gpus: number, kvUsedTokens: number): number {
  return (WEIGHTS_MIB + kvUsedTokens * KV_MIB_PER_TOKEN) / gpus;
}

interface GpuIdentity {
  index: number;
  uuid: string;
}

function identities(gpus: number, seed: number): GpuIdentity[] {
  return Array.from({ length: gpus }, (_, i) => {
    const h = ((seed * 2654435761 + i * 40503) >>> 0).toString(16).padStart(8, '0');
    return { index: i, uuid: `GPU-${h}-5151-4e4e-8a8a-${String(i).padStart(12, '0')}` };
  });
}

const HOSTNAME = 'llm-sim';
const MODEL_NAME = 'NVIDIA H100 80GB HBM3';

/** The GPUs a page shows, and each one's labels. */
interface GpuSeries {
  ids: GpuIdentity[];
  labels: (g: GpuIdentity) => string;
}

/** Lines of one metric of a page: HELP, TYPE, a series per GPU. */
function family(name: string, help: string, type: 'gauge' | 'counter', gpus: GpuSeries, value: (g: GpuIdentity) => string): string[] {
  return [`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`, ...gpus.ids.map((g) => `${name}{${gpus.labels(g)}} ${value(g)}`)];
}

/** NVIDIA dcgm-exporter's page (its default counters that matter here), as it prints them. */
export function dcgmPage(m: GpuMeter, seed: number, kvUsedTokens: number, x = nowMs()): string {
  const ids = identities(m.o.gpus, seed);
  const labels = (g: GpuIdentity) =>
    `gpu="${g.index}",UUID="${g.uuid}",pci_bus_id="00000000:${(0x18 + g.index * 0x10).toString(16).toUpperCase()}:00.0",device="nvidia` +
    `${g.index}",modelName="${MODEL_NAME}",Hostname="${HOSTNAME}"`;
  const util = m.utilization(x);
  return [
    ...family('DCGM_FI_DEV_GPU_UTIL', 'GPU utilization (in %).', 'gauge', { ids, labels }, () => String(Math.round(util))),
    ...family('DCGM_FI_DEV_FB_USED', 'Framebuffer memory used (in MiB).', 'gauge', { ids, labels }, () =>
      String(Math.round(memoryMiB(m.o.gpus, kvUsedTokens))),
    ),
    ...family('DCGM_FI_DEV_POWER_USAGE', 'Power draw (in W).', 'gauge', { ids, labels }, (g) => m.watts(x, g.index).toFixed(3)),
    // dcgm-exporter prints the counter as whole millijoules.
    ...family('DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION', 'Total energy consumption since boot (in mJ).', 'counter', { ids, labels }, (g) =>
      String(Math.round((m.joules(x, g.index) as number) * 1000)),
    ),
    '',
  ].join('\n');
}

/** utkuozdemir/nvidia_gpu_exporter's page (nvidia-smi): power, utilisation ratio, memory bytes; no energy counter. */
export function nvidiaSmiPage(m: GpuMeter, seed: number, kvUsedTokens: number, x = nowMs()): string {
  const ids = identities(m.o.gpus, seed);
  const labels = (g: GpuIdentity) => `uuid="${g.uuid.slice(4)}"`;
  const util = m.utilization(x) / 100;
  return [
    ...family(
      'nvidia_smi_gpu_info',
      "A metric with a constant '1' value labeled by gpu uuid, name, driver_model_current, driver_model_pending, vbios_version, driver_version.",
      'gauge',
      { ids, labels: (g) => `${labels(g)},name="${MODEL_NAME}"` },
      () => '1',
    ),
    ...family('nvidia_smi_utilization_gpu_ratio', 'utilization.gpu [%]', 'gauge', { ids, labels }, () => util.toFixed(2)),
    ...family('nvidia_smi_memory_used_bytes', 'memory.used [MiB]', 'gauge', { ids, labels }, () =>
      String(Math.round(memoryMiB(m.o.gpus, kvUsedTokens)) * 1_048_576),
    ),
    ...family('nvidia_smi_power_draw_watts', 'power.draw [W]', 'gauge', { ids, labels }, (g) => m.watts(x, g.index).toFixed(2)),
    '',
  ].join('\n');
}
