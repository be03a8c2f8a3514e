// A variant (one deployment under test) as setup() finds it (VariantInfo, part of the setup data
// every report reads) and as a VU uses it: resolved dialect object, model and request headers, built lazily in each VU from the
// configuration (which holds the API key) and setup's findings (which do not). Pure.
import type { BenchConfig, VariantConfig } from './config/config-types';
import { authHeaders, createDialect, type AdapterBinding, type Dialect, type DialectName } from './dialects/index';
import type { EngineId } from './engines/index';
import type { ServingConfig } from './engines/serving-config';
import type { PromptKind } from './workload/seeded-prompts';
import type { DatasetPlan } from './dataset/bucket-plan';
import type { TraceShape } from './workload/trace';
import { TRANSPORTS } from './transports';
import type { InstanceClock, InstanceRow } from './clock/instance';

/** What setup() learned about a variant. Serialised into setup data: never holds the API key. */
export interface VariantInfo {
  variant: string;
  url: string;
  dialect: DialectName;
  model: string;
  /** The engine as people read it, e.g. "vLLM 0.20.1". */
  engineLabel: string;
  /** The engine (its profile's id in lib/engines); null when not recognised (an explicit DIALECT on an unknown server). */
  engine: EngineId | null;
  /** The profile whose /metrics names the server's page carries; null: not read. */
  metrics: EngineId | null;
  notes: string[];
  /** Its serving configuration, read before any load (lib/preflight/serving.ts); absent in records of older releases. */
  serving?: ServingConfig;
  /** ADAPTERS: how its requests name an adapter and llama.cpp's adapter ids (lib/preflight/adapters-loaded.ts); absent without ADAPTERS. */
  adapters?: AdapterBinding;
}

export interface SetupData {
  runId: string;
  variants: VariantInfo[];
  warnings: string[];
  /** k6's --execution-segment of this instance and its sequence; null for a whole test. */
  segment: string | null;
  sequence: string | null;
  /** Variants that failed preflight, with the whole diagnosis: the run aborts before any load. */
  failures: Array<{ variant: string; reason: string; message: string }>;
  /** DATASET runs: the prompts' lengths and what each ISL bucket sends (lib/dataset/bucket-plan.ts). */
  dataset?: DatasetPlan;
  /** TRACE runs: the replayed slice's shape (its request count and span make the plan). */
  trace?: TraceShape;
  /** When setup ended and the runs started (epoch ms), stamped by writeRunRecord (lib/k6/run-record.ts): how handleSummary tells a stopped test. */
  runsStartMs?: number;
  /** PARTIAL runs: this instance's name and its clock against the server host's (lib/k6/clock.ts). */
  instance?: InstanceClock;
  /** A merged run: each instance's clock offset and how its slices were aligned (lib/report/align-instances.ts). */
  instances?: InstanceRow[];
}

/**
 * Setup data as a record of an older release holds it (`targets`, each with `engine` its label and
 * `engineId` its engine) read as it is now (`variants`, with `engineLabel` and `engine`).
 */
export function upgradeSetup<T extends Partial<SetupData> | null>(setup: T): T {
  const old = setup as { targets?: Array<Record<string, unknown>> } | null;
  if (old === null || !Array.isArray(old.targets) || 'variants' in old) return setup;
  const { targets, ...rest } = old;
  const variants = targets.map((t) => ('engineId' in t ? (({ engineId, engine, ...v }) => ({ ...v, engineLabel: engine, engine: engineId }))(t) : t));
  return { ...rest, variants } as unknown as T;
}

export interface ResolvedVariant {
  variant: string;
  url: string;
  dialect: Dialect;
  model: string;
  promptKind: PromptKind;
  headers: Record<string, string>;
  /** The generation request's k6 params, built once and kept small (k6 walks them per request). */
  params: { headers: Record<string, string>; timeout: number };
  /** Headers of the /metrics probe (the key, no streaming Accept). */
  probeHeaders: Record<string, string>;
  metrics: EngineId | null;
  /** ADAPTERS: llama.cpp's adapter ids by name (absent or empty elsewhere). */
  adapterIds?: Record<string, number>;
}

/** A request's headers; `dialect` decides how the API key is sent (authHeaders), Bearer without one. */
export function requestHeaders(t: Pick<VariantConfig, 'apiKey'>, accept?: string, dialect: DialectName = 'openai'): Record<string, string> {
  const h: Record<string, string> = { 'Content-Type': 'application/json' };
  if (accept) h.Accept = accept;
  return Object.assign(h, authHeaders(dialect, t.apiKey));
}

export function resolveVariants(cfg: BenchConfig, data: SetupData): Map<string, ResolvedVariant> {
  const out = new Map<string, ResolvedVariant>();
  for (const tc of cfg.variants) {
    const info = data.variants.find((v) => v.variant === tc.variant);
    if (!info) throw new Error(`setup data has no variant ${tc.variant}`);
    const dialect = createDialect(info.dialect, {
      dialectVar: tc.vars.dialect,
      modelVar: tc.vars.model,
      model: info.model,
      thinkTags: cfg.thinkTags,
      adapterNaming: info.adapters?.naming,
    });
    const headers = requestHeaders(tc, TRANSPORTS[cfg.transport].accept ?? undefined, info.dialect);
    out.set(tc.variant, {
      variant: tc.variant,
      url: tc.url,
      dialect,
      model: info.model,
      promptKind: dialect.acceptsTokenIds ? 'tokens' : 'text',
      headers,
      params: { headers, timeout: cfg.requestTimeoutMs },
      probeHeaders: requestHeaders(tc),
      metrics: info.metrics,
      adapterIds: info.adapters?.ids ?? {},
    });
  }
  return out;
}
