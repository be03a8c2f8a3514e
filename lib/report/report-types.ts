// The report of a run as the renderers read it: a leaf of lib/report, so that buildReport
// (report.ts) and the sections it builds (sections/) can both name it without an import cycle.
import type { Versus } from './figures/standings';
import type { ErrorClass } from '../dialects/types';
import type { Comparison } from './figures/ab-comparison';
import type { FallBehind, Knee } from './figures/load-limits';
import type { RunFigures, SummaryMetrics } from './figures/run-figures';
import type { SetupData } from '../variants';
import type { TransportName } from '../transports';
import type { DatasetReport } from './figures/domain-figures';
import type { ServingComparison } from './figures/confounding';

/** What a benchmark concludes, besides the per-run table. */
export type { ReportKind } from '../benchmarks';
import type { ReportKind } from '../benchmarks';

export interface VariantSummary {
  variant: string;
  url: string;
  dialect: string;
  model: string;
  engineLabel: string;
  serverMetrics: string | null;
  notes: string[];
}

export interface Threshold {
  metric: string;
  expression: string;
  /** null: not evaluated, the metric got no sample (k6 itself counts that as passed). */
  ok: boolean | null;
}

export interface PreflightFailure {
  variant: string;
  reason: string;
  headline: string;
  /** The whole diagnosis, with what to change; null when setup could not hand it over. */
  message: string | null;
}

/**
 * Each section of lib/report/sections keeps what it built under its key: the built-in ones are the
 * typed fields below (comparisons, versus, knee, fallBehind, dataset); a section added later may
 * keep its value under its own key before it earns a field here.
 */
export interface Report {
  benchmark: string;
  kind: ReportKind;
  runId: string;
  generatedAt: string;
  transport: TransportName;
  /** Figures this run could not measure, with the reason, e.g. TTFT with the http transport. */
  notMeasured: string[];
  settings: Record<string, string | number | boolean | null>;
  variants: VariantSummary[];
  runs: RunFigures[];
  comparisons: Comparison[];
  /** The compare benchmark: every variant against the baseline (lib/report/figures/standings.ts); null otherwise. */
  versus?: Versus | null;
  knee: Knee | null;
  fallBehind: FallBehind | null;
  errorsByClass: Partial<Record<ErrorClass, number>>;
  /** Variants that failed preflight; the run was aborted before any load. */
  preflightFailures: PreflightFailure[];
  thresholds: Threshold[];
  warnings: string[];
  testRunDurationMs: number | null;
  /** DATASET runs: prompt lengths, per-domain figures and verdicts, per-turn figures (lib/report/figures/domain-figures.ts); null otherwise. */
  dataset?: DatasetReport | null;
  /** The variants' serving configurations side by side (lib/report/figures/confounding.ts); null in a record without them. */
  serving?: ServingComparison | null;
}

export interface SummaryDataLike {
  metrics: SummaryMetrics;
  /** What setup() returned (lib/variants.ts), as k6 hands it back; absent when setup did not complete. */
  setup_data?: Partial<SetupData> | null;
  state?: { testRunDurationMs?: number };
}
