// GPU telemetry over a run's steady window, from a GPU exporter's Prometheus page
// (GPU_METRICS_URL): which exporter a page is (a profile per exporter: its metric names and units),
// one scrape read into totals over the GPUs, and the window's energy per steady slice. Energy comes
// from the exporter's energy counter where it has one (its difference, exact whatever the power
// did between scrapes); otherwise from its power gauge, integrated over the scrapes (trapezoids),
// and the report says so. Pure: the probe drives it through an HttpPort.
import type { HttpPort } from '../http-port';
import { parsePromText, type ScrapedSample } from './promtext';

export const GPU_EXPORTERS = ['dcgm', 'nvidia_smi'] as const;
export type GpuExporter = (typeof GPU_EXPORTERS)[number];

/** How the window's energy was had: the energy counter's difference, or power × time. */
export const GPU_ENERGY_SOURCES = ['energy-counter', 'power-integral'] as const;
export type GpuEnergySource = (typeof GPU_ENERGY_SOURCES)[number];

/** A metric of an exporter and the factor to the unit used here (W, J, %, MiB). */
interface Scaled {
  metric: string;
  scale: number;
}

export interface GpuExporterProfile {
  name: GpuExporter;
  label: string;
  /** Labels that tell one GPU's series from another's, the first present wins. */
  gpuLabels: string[];
  power: Scaled;
  /** An energy counter since boot; null: the exporter has none (energy is power × time). */
  energy: Scaled | null;
  utilization: Scaled | null;
  memoryUsed: Scaled | null;
}

export const GPU_PROFILES: Record<GpuExporter, GpuExporterProfile> = {
  // NVIDIA dcgm-exporter (default counters): power in W, energy in mJ since the driver loaded,
  // utilisation in %, framebuffer used in MiB; one series per GPU, labelled gpu, UUID, modelName, Hostname.
  dcgm: {
    name: 'dcgm',
    label: 'NVIDIA DCGM exporter',
    gpuLabels: ['UUID', 'gpu'],
    power: { metric: 'DCGM_FI_DEV_POWER_USAGE', scale: 1 },
    energy: { metric: 'DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION', scale: 1e-3 },
    utilization: { metric: 'DCGM_FI_DEV_GPU_UTIL', scale: 1 },
    memoryUsed: { metric: 'DCGM_FI_DEV_FB_USED', scale: 1 },
  },
  // utkuozdemir/nvidia_gpu_exporter (nvidia-smi): power in W, utilisation as a ratio, memory in
  // bytes, labelled uuid; no energy counter.
  nvidia_smi: {
    name: 'nvidia_smi',
    label: 'nvidia_gpu_exporter (nvidia-smi)',
    gpuLabels: ['uuid'],
    power: { metric: 'nvidia_smi_power_draw_watts', scale: 1 },
    energy: null,
    utilization: { metric: 'nvidia_smi_utilization_gpu_ratio', scale: 100 },
    memoryUsed: { metric: 'nvidia_smi_memory_used_bytes', scale: 1 / 1_048_576 },
  },
};

/** The profile whose power metric the page has (DCGM first); null: no known exporter. */
export function recognise(samples: ScrapedSample[]): GpuExporterProfile | null {
  for (const name of GPU_EXPORTERS) {
    const p = GPU_PROFILES[name];
    if (samples.some((s) => s.name === p.power.metric)) return p;
  }
  return null;
}

/** One scrape, totalled over the GPUs. */
export interface GpuReading {
  /** Client clock when scraped. */
  atMs: number;
  gpus: number;
  /** Summed over the GPUs. */
  powerW: number;
  /** Summed over the GPUs; null when the exporter has no counter or a GPU lacked it. */
  energyJ: number | null;
  /** Mean over the GPUs. */
  utilizationPct: number | null;
  /** Summed over the GPUs. */
  memoryUsedMiB: number | null;
}

function gpuOf(p: GpuExporterProfile, labels: Record<string, string>): string {
  for (const l of p.gpuLabels) if (labels[l] !== undefined) return `${l}=${labels[l]}`;
  return '';
}

/** Per GPU, the metric's value in the profile's unit (the last series of a GPU wins). */
function perGpu(p: GpuExporterProfile, samples: ScrapedSample[], m: Scaled): Map<string, number> {
  const out = new Map<string, number>();
  for (const s of samples) if (s.name === m.metric && Number.isFinite(s.value)) out.set(gpuOf(p, s.labels), s.value * m.scale);
  return out;
}

const sum = (m: Map<string, number>) => [...m.values()].reduce((a, b) => a + b, 0);

/** A page read with a profile; a string says why it cannot be read. */
export function readGpu(p: GpuExporterProfile, samples: ScrapedSample[], atMs: number): GpuReading | string {
  const power = perGpu(p, samples, p.power);
  if (power.size === 0) return `no ${p.power.metric} on the page`;
  const energy = p.energy && perGpu(p, samples, p.energy);
  const util = p.utilization && perGpu(p, samples, p.utilization);
  const mem = p.memoryUsed && perGpu(p, samples, p.memoryUsed);
  const all = (m: Map<string, number> | null) => m !== null && [...power.keys()].every((k) => m.has(k));
  return {
    atMs,
    gpus: power.size,
    powerW: sum(power),
    energyJ: all(energy) ? sum(energy as Map<string, number>) : null,
    utilizationPct: util && util.size > 0 ? sum(util) / util.size : null,
    memoryUsedMiB: mem && mem.size > 0 ? sum(mem) : null,
  };
}

/** What the window's figures are over: the scrapes, and which of them bound each steady slice. */
export interface GpuWindow {
  exporter: GpuExporter;
  gpus: number;
  source: GpuEnergySource;
  /**
   * Joules per steady slice, in slice order: the slice's mean power (between the scrapes that
   * bound it) × the slice's nominal length, so that it is over the same time as the slice's tokens.
   */
  sliceJoules: number[];
  /** Mean power over the window, summed over the GPUs (W). */
  meanPowerW: number;
  /** Mean of the scrapes' utilisation (mean over GPUs), %. */
  meanUtilizationPct: number | null;
  /** Mean of the scrapes' memory used (summed over GPUs), MiB. */
  meanMemoryUsedMiB: number | null;
}

/** Trapezoid integral of power (W) between two readings of the list, in J. */
function powerIntegral(r: GpuReading[], from: number, to: number): number {
  let j = 0;
  for (let i = from; i < to; i++) j += ((r[i].powerW + r[i + 1].powerW) / 2) * ((r[i + 1].atMs - r[i].atMs) / 1000);
  return j;
}

const mean = (xs: number[]) => (xs.length === 0 ? null : xs.reduce((a, b) => a + b, 0) / xs.length);

/**
 * The window's figures from its readings (oldest first) and the index of the reading at each slice
 * boundary (slices + 1 of them, increasing); `sliceMs` the nominal slice length. The energy counter
 * is used when every boundary reading has it and it never went back (an exporter restart).
 */
export function gpuWindow(p: GpuExporterProfile, readings: GpuReading[], bounds: number[], sliceMs: number): GpuWindow | string {
  if (bounds.length < 2) return 'no steady slice was bounded by scrapes';
  const gpus = readings[bounds[0]].gpus;
  if (readings.some((r) => r.gpus !== gpus))
    return `the number of GPUs on the page changed during the window (${gpus} → ${readings.find((r) => r.gpus !== gpus)?.gpus})`;
  const counter =
    bounds.every((b) => readings[b].energyJ !== null) &&
    bounds.every((b, i) => i === 0 || (readings[b].energyJ as number) >= (readings[bounds[i - 1]].energyJ as number));
  const sliceJoules: number[] = [];
  for (let k = 0; k + 1 < bounds.length; k++) {
    const a = readings[bounds[k]];
    const b = readings[bounds[k + 1]];
    const seconds = (b.atMs - a.atMs) / 1000;
    if (seconds <= 0) return `slice ${k} was not covered by two scrapes apart in time`;
    const joules = counter ? (b.energyJ as number) - (a.energyJ as number) : powerIntegral(readings, bounds[k], bounds[k + 1]);
    sliceJoules.push((joules / seconds) * (sliceMs / 1000));
  }
  const inWindow = readings.slice(bounds[0], bounds[bounds.length - 1] + 1);
  const total = sliceJoules.reduce((a, b) => a + b, 0);
  return {
    exporter: p.name,
    gpus,
    source: counter ? 'energy-counter' : 'power-integral',
    sliceJoules,
    meanPowerW: total / ((sliceJoules.length * sliceMs) / 1000),
    meanUtilizationPct: mean(inWindow.flatMap((r) => (r.utilizationPct === null ? [] : [r.utilizationPct]))),
    meanMemoryUsedMiB: mean(inWindow.flatMap((r) => (r.memoryUsedMiB === null ? [] : [r.memoryUsedMiB]))),
  };
}

/** Why a run's GPU figures are not measured, as the llm_gpu_not_measured counter's reason tag. */
export const GPU_NOT_MEASURED = {
  unreachable: 'the GPU exporter did not answer (GPU_METRICS_URL)',
  unknown_exporter: 'the GPU_METRICS_URL page is no known GPU exporter (DCGM exporter, nvidia_gpu_exporter)',
  unreadable: 'the GPU exporter’s page lacked a GPU’s figures or changed during the window',
  short_window: 'the GPU probe covered too little of the steady window',
} as const;
export type GpuNotMeasured = keyof typeof GPU_NOT_MEASURED;

export type GpuOutcome = { window: GpuWindow } | { notMeasured: GpuNotMeasured; detail: string };

const SCRAPE_TIMEOUT_MS = 5_000;
/** Power-only exporters are integrated over scrapes this far apart at most (and every exporter's gauges sampled). */
export const GPU_SCRAPE_EVERY_MS = 1_000;
/** A boundary scrape later than this share of a slice leaves the slice unbounded. */
const LATE_SHARE = 0.25;

/**
 * Scrapes the exporter at `startMs` (client clock, now) and at each of `slices` slice boundaries
 * after it, and about every GPU_SCRAPE_EVERY_MS between, then turns the scrapes into the window's
 * figures or says why there are none. A failed scrape between boundaries is skipped; a failed
 * boundary scrape is tried once more, then ends the probe.
 */
export function probeGpu(io: HttpPort, url: string, startMs: number, slices: number, sliceMs: number): GpuOutcome {
  let profile: GpuExporterProfile | null = null;
  const readings: GpuReading[] = [];
  const bounds: number[] = [];
  const get = (): GpuReading | { notMeasured: GpuNotMeasured; detail: string } | null => {
    const res = io.get(url, { headers: {}, timeoutMs: SCRAPE_TIMEOUT_MS, name: 'GET GPU_METRICS_URL' });
    if (res.status !== 200) return { notMeasured: 'unreachable', detail: `GET GPU_METRICS_URL → ${res.status || res.error}` };
    const samples = parsePromText(res.body);
    profile ??= recognise(samples);
    if (profile === null) return { notMeasured: 'unknown_exporter', detail: 'the page has none of the power metrics of a known exporter' };
    const r = readGpu(profile, samples, io.now());
    return typeof r === 'string' ? { notMeasured: 'unreadable', detail: r } : r;
  };
  for (let k = 0; k <= slices; k++) {
    const at = startMs + k * sliceMs;
    // Between boundaries: a scrape every GPU_SCRAPE_EVERY_MS (failures skipped).
    while (k > 0 && at - io.now() > GPU_SCRAPE_EVERY_MS * 1.5) {
      io.sleep(GPU_SCRAPE_EVERY_MS - ((io.now() - startMs) % GPU_SCRAPE_EVERY_MS));
      if (at - io.now() < GPU_SCRAPE_EVERY_MS / 2) break;
      const r = get();
      if (r !== null && !('notMeasured' in r)) readings.push(r);
    }
    const wait = at - io.now();
    if (wait > 0) io.sleep(wait);
    if (io.now() - at > sliceMs * LATE_SHARE) {
      // The probe fell behind (an overloaded load generator): the slice's bounds are not its own.
      return { notMeasured: 'short_window', detail: `the boundary scrape of slice ${k} came ${io.now() - at} ms late` };
    }
    let r = get();
    if (r === null || 'notMeasured' in r) r = get();
    if (r === null || 'notMeasured' in r) return r ?? { notMeasured: 'unreachable', detail: 'no reply' };
    bounds.push(readings.length);
    readings.push(r);
  }
  const w = gpuWindow(profile as unknown as GpuExporterProfile, readings, bounds, sliceMs);
  return typeof w === 'string' ? { notMeasured: 'unreadable', detail: w } : { window: w };
}
