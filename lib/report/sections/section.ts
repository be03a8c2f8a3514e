// One report section: built once from the run's data, then rendered to the terminal, report.md,
// report.html and summary.json from what it built. The renderers loop over the list in
// sections/index.ts, so a new section is one file here and one entry there.
import type { BenchConfig } from '../../config/config-types';
import type { Plan, Run } from '../../plan/matrix';
import type { RunFigures } from '../figures/run-figures';
import type { Report, ReportKind, SummaryDataLike } from '../report-types';

export interface SectionInputs {
  kind: ReportKind;
  cfg: BenchConfig;
  plan: Plan;
  data: SummaryDataLike;
  /** Every run's figures in report order; an incomplete run's are cut to what it measured whole. */
  runs: RunFigures[];
  /**
   * What conclusions are drawn from: the runs that ran whole, and the cells all of whose runs did.
   * Every run and cell, unless the test stopped early.
   */
  complete: { runs: RunFigures[]; cells: Plan['cells'] };
  /** "at ISL 128, OSL 64, c=8": where a verdict holds. */
  where: (run: Pick<Run, 'cell'>) => string;
}

/**
 * Where a section sits; each renderer places the slots in its own layout. conclusions: what the
 * runs add up to (verdicts, the knee): after the per-run table in the terminal, before it in
 * report.md and report.html, after the records in summary.json. details: after the per-run table
 * and its notes, and last in summary.json. checks: whether the figures can be trusted (the client
 * self-check): right after the per-run table in the terminal and report.md, after the details in
 * report.html. outcomes: what went wrong or was missed (errors, SLOs): after the details and
 * checks, before the warnings; after the conclusions in summary.json.
 */
export type Slot = 'checks' | 'conclusions' | 'details' | 'outcomes';

export interface ReportSection<T> {
  /**
   * Where the built value is kept on the Report (a typed field for the built-in sections). A view
   * of the runs with nothing of its own to build (the charts, the client self-check) reads `runs`.
   */
  key: string;
  /** Its key in summary.json, and its name in the list: one section per jsonKey. */
  jsonKey: string;
  slot: Slot;
  /** null: the section does not apply to this run (its renderings are skipped; summary.json says null). */
  build(i: SectionInputs): T | null;
  /** Warnings it adds to the report's, after the runs' own notes. */
  warnings?(v: T): string[];
  /** Terminal lines, a leading '' for the blank line before it; [] for none. */
  text(v: T, r: Report): string[];
  /** report.md lines, each block followed by ''; [] for none. */
  markdown(v: T, r: Report): string[];
  /** One block of report.html; '' for none. */
  html(v: T, r: Report): string;
  /** summary.json's value; undefined leaves the key out (a section that only draws, say). */
  json(v: T, r: Report): unknown;
  /**
   * summary.json keys this section renamed, old path → new: the old key is written beside the new
   * one for one release, and summary.json's renamed_keys says so.
   */
  renamed?: Record<string, string>;
}

/** A section of any value type, as the list holds them. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnySection = ReportSection<any>;

/** What a section built for this report; null or undefined when it does not apply. */
export function valueOf<T>(r: Report, s: ReportSection<T>): T | null | undefined {
  return (r as unknown as Record<string, T | null | undefined>)[s.key];
}

export function store<T>(r: Report, s: ReportSection<T>, v: T | null): void {
  (r as unknown as Record<string, T | null>)[s.key] = v;
}
