// Which variants a capacity search measures and the environment of one step against one of them:
// the step bundle is single-variant (TARGET_URL, DIALECT, MODEL, API_KEY), so an A/B slot's own
// variables (DFLASH_URL …) are mapped onto those, and every other variant's variables, its API
// key above all, are left out, so a secret goes only to its variant. Pure.
import { BENCHMARKS, type VariantSlot } from '../benchmarks';
import { ConfigError } from '../config/parse';
import type { CapacitySettings } from './settings';

/** The A/B's slots when any of their URLs is set, else the single-server benchmark's one (named `target`). */
export function capacitySlots(env: Record<string, string | undefined>, loopBenchmark: string): readonly VariantSlot[] {
  const ab = BENCHMARKS['dflash-vs-mtp'].slots;
  const set = ab.filter((s) => (env[`${s.prefix}_URL`] ?? '').trim() !== '');
  if (set.length === 0) return BENCHMARKS[loopBenchmark].slots;
  if (set.length < ab.length) {
    const missing = ab.filter((s) => !set.includes(s)).map((s) => `${s.prefix}_URL`);
    throw new ConfigError(
      `${missing.join(', ')} is not set: an A/B capacity search needs ${ab.map((s) => `${s.prefix}_URL`).join(' and ')} (or TARGET_URL alone for one variant).`,
    );
  }
  return ab;
}

function variantVars(slot: VariantSlot): { url: string; dialect: string; model: string; apiKey: string } {
  return slot.prefix
    ? { url: `${slot.prefix}_URL`, dialect: `${slot.prefix}_DIALECT`, model: `${slot.prefix}_MODEL`, apiKey: `${slot.prefix}_API_KEY` }
    : { url: 'TARGET_URL', dialect: 'DIALECT', model: 'MODEL', apiKey: 'API_KEY' };
}

const ALL_VARIANT_VARS = new Set(
  Object.values(BENCHMARKS)
    .flatMap((b) => b.slots)
    .flatMap((slot) => Object.values(variantVars(slot))),
);

export interface StepEnvInput {
  slot: VariantSlot;
  load: number;
  durationMs: number;
  first: boolean;
  runId: string;
  resultsDir: string;
}

/** The variables of one step. */
export function stepEnv(s: CapacitySettings, env: Record<string, string | undefined>, x: StepEnvInput): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) {
    if (v === undefined || ALL_VARIANT_VARS.has(k) || k.startsWith('CAPACITY_') || k === 'SLO_ATTAINMENT') continue;
    out[k] = v;
  }
  const own = variantVars(x.slot);
  const pick = (name: keyof typeof own, fallback?: string) => {
    const v = env[own[name]];
    return v !== undefined && v.trim() !== '' ? v : fallback !== undefined ? env[fallback] : undefined;
  };
  out.TARGET_URL = pick('url') ?? '';
  const dialect = pick('dialect');
  const model = pick('model');
  const key = pick('apiKey', 'API_KEY');
  if (dialect) out.DIALECT = dialect;
  if (model) out.MODEL = model;
  if (key) out.API_KEY = key;
  // The step bundle is single-variant: the variant's own GPU exporter is its GPU_METRICS_URL.
  const gpu = x.slot.prefix ? env[`${x.slot.prefix}_GPU_METRICS_URL`] : undefined;
  if (gpu !== undefined && gpu.trim() !== '') out.GPU_METRICS_URL = gpu;
  out[s.loop.variable] = s.loop.integer ? String(x.load) : String(x.load);
  out.DURATION = `${Math.round(x.durationMs)}ms`;
  out.PARTIAL = 'true';
  // Each run starts its VUs at once: the first slice's burst is not the steady load being judged.
  out.LATENCY_WINDOW = env.LATENCY_WINDOW?.trim() || 'steady';
  out.RUN_ID = x.runId;
  out.RESULTS_DIR = x.resultsDir;
  // Each step is one level judged by its SLOs afterwards: the in-run saturation stop (exit 108) would end the step without its result.
  out.SATURATION_STOP = 'false';
  // A step's ITL is judged from its samples (llm_itl): never counted in buckets, however long the step.
  out.ITL_SAMPLES = 'every';
  // Warm-up belongs to the variant's first k6 test; later ones find it warm.
  if (!x.first) out.WARMUP_REQUESTS = '0';
  return out;
}
