// summary.json's `settings`, written once as data: each setting's value from the configuration,
// and what a difference in it means when `npm run compare` puts two runs side by side (workload:
// the requests differ, so the comparison is refused unless forced; measurement: only noted;
// neither: not compared). lib/compare/workload-check.ts reads its lists from here.
import type { BenchConfig } from '../config/config-types';
import type { Plan } from '../plan/matrix';
import type { BenchmarkSpec } from '../benchmarks';

export type SettingValue = string | number | boolean | null;
export type SettingRole = 'workload' | 'measurement' | null;

interface SettingSource {
  cfg: BenchConfig;
  plan: Plan;
  load: BenchmarkSpec['load'];
}

interface RunSetting {
  value: (s: SettingSource) => SettingValue;
  role: SettingRole;
}

type Dataset = NonNullable<BenchConfig['dataset']>;
/** A dataset setting: null without a dataset. */
const ofDataset =
  (f: (d: Dataset) => SettingValue | undefined) =>
  (s: SettingSource): SettingValue =>
    s.cfg.dataset ? (f(s.cfg.dataset) ?? null) : null;

/** In summary.json's order. */
export const RUN_SETTINGS = {
  ISL: { value: (s) => s.cfg.isl.join(','), role: 'workload' },
  OSL: { value: (s) => s.cfg.osl.join(','), role: 'workload' },
  CONCURRENCY: { value: (s) => s.cfg.concurrency.join(','), role: 'measurement' },
  RATE: { value: (s) => (s.load === 'rate' ? s.cfg.rates.join(',') : null), role: 'measurement' },
  DURATION_s: { value: (s) => (s.plan.requests === null ? s.cfg.durationMs / 1000 : null), role: 'measurement' },
  REQUESTS: { value: (s) => s.plan.requests, role: 'measurement' },
  SLICES: { value: (s) => s.cfg.slices, role: 'measurement' },
  // Compared on its own (workload-check.ts): a summary also records it at its top level.
  TRANSPORT: { value: (s) => s.cfg.transport, role: null },
  STREAM: { value: (s) => s.cfg.stream, role: 'workload' },
  SEED: { value: (s) => s.cfg.seed, role: 'workload' },
  PROMPT_POOL: { value: (s) => s.cfg.promptPool, role: 'workload' },
  SHARED_PREFIX: { value: (s) => s.cfg.sharedPrefix, role: 'workload' },
  ISL_SPREAD: { value: (s) => s.cfg.islSpread, role: 'workload' },
  TEMPERATURE: { value: (s) => s.cfg.temperature, role: 'workload' },
  IGNORE_EOS: { value: (s) => s.cfg.ignoreEos, role: 'workload' },
  REQUEST_TIMEOUT_s: { value: (s) => s.cfg.requestTimeoutMs / 1000, role: 'measurement' },
  VOCAB_SIZE: { value: (s) => s.cfg.vocabSize, role: 'workload' },
  LATENCY_WINDOW: { value: (s) => s.cfg.latencyWindow, role: 'measurement' },
  ITL_SAMPLES: { value: (s) => s.cfg.itlSamples, role: null },
  // The prompts' source (null: seeded random token ids), so `npm run compare` can tell workloads apart.
  DATASET: { value: ofDataset((d) => d.spec), role: 'workload' },
  DATASET_DOMAINS: { value: ofDataset((d) => d.domains?.join(',')), role: 'workload' },
  DATASET_MIN_TOKENS: { value: ofDataset((d) => d.minTokens), role: 'workload' },
  DATASET_MAX_TOKENS: { value: ofDataset((d) => d.maxTokens), role: 'workload' },
  DATASET_DOMAIN_MARKER: { value: ofDataset((d) => d.domainMarker), role: 'workload' },
  MULTI_TURN: { value: ofDataset((d) => d.multiTurn), role: 'workload' },
  MULTI_TURN_HISTORY: { value: ofDataset((d) => (d.multiTurn ? d.history : null)), role: 'workload' },
  THINK_TIME_s: { value: ofDataset((d) => (d.multiTurn ? d.thinkTimeMs / 1000 : null)), role: 'workload' },
} satisfies Record<string, RunSetting>;

export type RunSettingName = keyof typeof RUN_SETTINGS;

/** The settings of one role, in the table's order. */
export function settingsOf(role: Exclude<SettingRole, null>): RunSettingName[] {
  return (Object.keys(RUN_SETTINGS) as RunSettingName[]).filter((k) => (RUN_SETTINGS[k] as RunSetting).role === role);
}

/** summary.json's `settings` of a run. */
export function runSettings(source: SettingSource): Record<RunSettingName, SettingValue> {
  const out = {} as Record<RunSettingName, SettingValue>;
  for (const k of Object.keys(RUN_SETTINGS) as RunSettingName[]) out[k] = (RUN_SETTINGS[k] as RunSetting).value(source);
  return out;
}
