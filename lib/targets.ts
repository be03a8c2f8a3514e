// A target as setup() finds it (TargetInfo, part of the setup data every report reads) and as a VU
// uses it: resolved dialect object, model and request headers, built lazily in each VU from the
// configuration (which holds the API key) and setup's findings (which do not). Pure.
import type { BenchConfig, TargetConfig } from './config/types';
import { authHeaders, createDialect, type Dialect, type DialectName } from './dialects/index';
import type { Engine } from './server-metrics/window';
import type { PromptKind } from './workload/prompts';
import type { DatasetPlan } from './dataset/plan';
import type { TraceShape } from './workload/trace';
import { TRANSPORTS } from './transports';

/** What setup() learned about a target. Serialised into setup data: never holds the API key. */
export interface TargetInfo {
  variant: string;
  url: string;
  dialect: DialectName;
  model: string;
  /** A human description, e.g. "vLLM 0.20.1". */
  engine: string;
  /** Its engine profile (lib/engines); null when not recognised (an explicit DIALECT on an unknown server). */
  engineId: string | null;
  /** The profile whose /metrics names the server's page carries; null: not read. */
  metrics: Engine | null;
  notes: string[];
}

export interface SetupData {
  runId: string;
  targets: TargetInfo[];
  warnings: string[];
  /** k6's --execution-segment of this instance and its sequence; null for a whole run. */
  segment: string | null;
  sequence: string | null;
  /** Targets that failed preflight, with the whole diagnosis: the run aborts before any load. */
  failures: Array<{ variant: string; reason: string; message: string }>;
  /** DATASET runs: the prompts' lengths and what each ISL bucket sends (lib/dataset/plan.ts). */
  dataset?: DatasetPlan;
  /** TRACE runs: the replayed slice's shape (its request count and span make the plan). */
  trace?: TraceShape;
  /** When setup ended and the runs started (epoch ms), stamped by recordRun (lib/k6/run-record.ts): how handleSummary tells a stopped run. */
  runsStartMs?: number;
}

export interface ResolvedTarget {
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
  metrics: Engine | null;
}

/** A request's headers; `dialect` decides how the API key is sent (authHeaders), Bearer without one. */
export function requestHeaders(t: Pick<TargetConfig, 'apiKey'>, accept?: string, dialect: DialectName = 'openai'): Record<string, string> {
  const h: Record<string, string> = { 'Content-Type': 'application/json' };
  if (accept) h.Accept = accept;
  return Object.assign(h, authHeaders(dialect, t.apiKey));
}

export function resolveTargets(cfg: BenchConfig, data: SetupData): Map<string, ResolvedTarget> {
  const out = new Map<string, ResolvedTarget>();
  for (const tc of cfg.targets) {
    const info = data.targets.find((t) => t.variant === tc.variant);
    if (!info) throw new Error(`setup data has no target ${tc.variant}`);
    const dialect = createDialect(info.dialect, { dialectVar: tc.vars.dialect, modelVar: tc.vars.model, model: info.model, thinkTags: cfg.thinkTags });
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
    });
  }
  return out;
}
