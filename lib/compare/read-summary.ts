// The parts of a summary.json (lib/report/render/summary-json.ts) that a comparison of two runs reads, and the
// check that a parsed file is one. Pure: the CLI (scripts/compare.ts) and handleSummary (BASELINE)
// hand in the text.

import type { SettingValue } from '../report/run-settings';

export type { SettingValue };

/** Per steady slice, as lib/report/render/summary-json.ts writes them (absent from summaries written before they were). */
export interface SummarySlices {
  slice_ms: number;
  output_tokens_per_s: number[];
  e2e_sum_ms: number[];
  requests: number[];
}

export interface SummaryRecord {
  cell: string;
  variant: string;
  /** REPEATS > 1: the repeat (1-based) of this record; absent when the run was not repeated. */
  repeat?: number;
  isl_tokens?: number;
  osl_tokens?: number;
  requests_ok?: number;
  requests_failed?: number;
  unreachable_attempts?: number;
  variant_down_vus?: number;
  /** The old name of variant_down_vus (a summary of the last release has it alone). */
  target_down_vus?: number;
  output_throughput_tokens_per_s: number | null;
  e2e_ms: { avg: number; count?: number } | null;
  /** undefined: an older summary; null: a run without slices (REQUESTS mode). */
  steady_slices?: SummarySlices | null;
}

export interface SummaryVariant {
  variant: string;
  engineLabel?: string;
  dialect?: string;
  model?: string;
  url?: string;
}

/** One run of summary.json's `cost` section (lib/report/sections/cost-section.ts). */
export interface SummaryCostRun {
  variant: string;
  cell: string;
  gpu_hour_cost_usd: number | null;
  gpus: number;
  output_usd_per_million_tokens: number | null;
  output_usd_per_million_tokens_ci?: [number, number] | null;
  input_usd_per_million_tokens: number | null;
  input_usd_per_million_tokens_ci?: [number, number] | null;
  not_measured: string | null;
}

/** One run of summary.json's `energy` section (lib/report/sections/energy-section.ts). */
export interface SummaryEnergyRun {
  variant: string;
  cell: string;
  j_per_output_token: number | null;
  j_per_output_token_ci?: [number, number] | null;
  /** Per steady slice; absent from summaries written before they were. */
  j_per_output_token_slices?: number[] | null;
  not_measured: string | null;
}

export interface BenchSummary {
  benchmark: string;
  run_id: string;
  generated_at?: string;
  transport?: string;
  settings: Record<string, SettingValue>;
  variants: SummaryVariant[];
  records: SummaryRecord[];
  /** The dataset section (null without DATASET); older summaries record the dataset only here. */
  dataset?: { source?: string } | null;
  /** Cost per token (GPU_HOUR_COST); null: no cost set; undefined: a summary written before costs were. */
  cost?: { runs: SummaryCostRun[] } | null;
  /** Energy per token (GPU_METRICS_URL); undefined: a summary written before energy was. */
  energy?: { runs: SummaryEnergyRun[] } | null;
}

/** A file that cannot be compared: bad usage or input (exit 2), said in one line. */
export class CompareInputError extends Error {
  override name = 'CompareInputError';
}

const isObj = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

function firstLine(s: string): string {
  return s.split('\n')[0];
}

/** Parses and checks a summary.json; `name` is how messages call the file (its path). */
export function parseSummary(text: string, name: string): BenchSummary {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (e) {
    throw new CompareInputError(`${name}: not JSON (${firstLine((e as Error).message)})`);
  }
  if (!isObj(v)) throw new CompareInputError(`${name}: not a k6-llm-bench summary.json (the file holds no JSON object)`);
  if (typeof v.format === 'string' && 'metrics' in v) {
    throw new CompareInputError(
      `${name}: a partial result of one instance, not a summary: merge the instances first (npm run merge), then compare the merged summary.json`,
    );
  }
  // `variants` was `targets` (each with `engine` for its label) before: an older summary is read as the new one.
  if (!('variants' in v) && Array.isArray(v.targets))
    v.variants = v.targets.map((t) => (isObj(t) && !('engineLabel' in t) ? { ...t, engineLabel: t.engine } : t));
  const missing = ['benchmark', 'run_id', 'records', 'settings', 'variants'].filter((k) => !(k in v));
  if (missing.length > 0) throw new CompareInputError(`${name}: not a k6-llm-bench summary.json (no ${missing.map((k) => `'${k}'`).join(', ')})`);
  if (typeof v.benchmark !== 'string' || !Array.isArray(v.records) || !isObj(v.settings) || !Array.isArray(v.variants)) {
    throw new CompareInputError(`${name}: not a k6-llm-bench summary.json ('benchmark', 'records', 'settings' or 'variants' has the wrong type)`);
  }
  v.records.forEach((r, i) => {
    if (!isObj(r) || typeof r.cell !== 'string' || typeof r.variant !== 'string') {
      throw new CompareInputError(`${name}: not a k6-llm-bench summary.json (records[${i}] has no cell and variant)`);
    }
    if (r.repeat !== undefined && !(Number.isSafeInteger(r.repeat) && (r.repeat as number) >= 1))
      throw new CompareInputError(`${name}: records[${i}].repeat is malformed (a whole number from 1 expected)`);
    const s = r.steady_slices;
    if (s !== undefined && s !== null) {
      const ok =
        isObj(s) &&
        typeof s.slice_ms === 'number' &&
        [s.output_tokens_per_s, s.e2e_sum_ms, s.requests].every(
          (a) => Array.isArray(a) && a.length === (s.requests as unknown[]).length && a.every((x) => typeof x === 'number'),
        );
      if (!ok) throw new CompareInputError(`${name}: records[${i}].steady_slices is malformed (slice_ms and three number lists of one length expected)`);
    }
  });
  for (const k of ['cost', 'energy'] as const) {
    const x = v[k];
    if (x !== undefined && x !== null && (!isObj(x) || !Array.isArray(x.runs) || !x.runs.every((r) => isObj(r) && typeof r.variant === 'string')))
      throw new CompareInputError(`${name}: ${k} is malformed (an object with a list of runs expected)`);
  }
  return v as unknown as BenchSummary;
}
