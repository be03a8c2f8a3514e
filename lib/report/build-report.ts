// Assembles the whole report of a run from k6's summary data: per-run figures, the conclusions
// the benchmark asks for, SLO outcomes and warnings. Renderers (text, markdown, html, json) only
// format this object.
import type { BenchConfig } from '../config/config-types';
import type { Plan, Run } from '../plan/matrix';
import { preflightKey, subKey } from '../plan/summary-keys';
import { PREFLIGHT_REASONS, type PreflightReason } from '../preflight/diagnose';
import { runFigures, type RunFigures } from './figures/run-figures';
import { loadWords } from './render/report-format';
import { sloSet } from '../metrics/samples';
import type { BenchmarkSpec } from '../benchmarks';
import { TRANSPORTS } from '../transports';
import { buildSections } from './sections/index';
import { runSettings } from './run-settings';
import { NOT_RUN_NOTE, incompleteNote, stopSentence, wholeSlices, type Progress } from './figures/stopped-runs';

export type { PreflightFailure, Report, ReportKind, SummaryDataLike, VariantSummary, Threshold } from './report-types';
import type { Report, SummaryDataLike } from './report-types';

/** When the report is built, and how far each run got (absent: each ran to its end). */
export interface ReportMoment {
  now: Date;
  progress?: Progress | null;
}

/**
 * @param progress how far each run got when the test stopped early (lib/raw/progress.ts), null when
 *   it ran to its end: the report is then built once as a partial run's, incomplete runs cut to the
 *   slices they measured whole and the conclusions drawn from the complete runs alone.
 */
export function buildReport(
  spec: Pick<BenchmarkSpec, 'report' | 'load'>,
  cfg: BenchConfig,
  plan: Plan,
  data: SummaryDataLike,
  { now, progress = null }: ReportMoment,
): Report {
  const kind = spec.report;
  const setup = data.setup_data && typeof data.setup_data === 'object' ? data.setup_data : null;
  // A run that preflight stopped before any load says so already (notMeasured below).
  const stop = progress !== null && !setup?.failures?.length ? stopSentence(progress, plan) : null;
  const stateOf = (run: Run) => (stop === null ? null : (progress?.runs.find((p) => p.scenario === run.scenario) ?? null));
  const whole = (run: Run): number | null => {
    const p = stateOf(run);
    if (p?.state !== 'incomplete') return null;
    return wholeSlices(plan, run, progress?.stoppedAtMs ?? 0, data.metrics[subKey('e2e', run.scenario)]?.values.max ?? 0);
  };
  // Runs were measured in alternating order; the report lists them cell by cell, variants in order.
  const order = (r: { cell: { id: string }; variant: string }) =>
    plan.cells.findIndex((c) => c.id === r.cell.id) * cfg.variants.length + cfg.variants.findIndex((v) => v.variant === r.variant);
  const planned = [...plan.runs].sort((a, b) => order(a) - order(b));
  const cuts = planned.map(whole);
  const runs = planned.map((r, i) => runFigures(data.metrics, plan, r, sloSet(cfg.slo), cuts[i]));
  // One instance of several (k6 --execution-segment): its figures are its share of each run.
  if (setup?.segment) {
    for (const r of runs) {
      const planned = plan.runs.find((x) => x.scenario === r.scenario)?.vus ?? 0;
      r.notes.push(
        `this instance (execution segment ${setup.segment}) ran ${r.vusRan} of the run's ${planned} VUs: its ` +
          `figures are its share; \`npm run merge\` combines the instances' partial results (PARTIAL=true).`,
      );
    }
  }
  const notMeasured: string[] = [];
  const missing = TRANSPORTS[cfg.transport].notMeasured;
  if (missing) notMeasured.push(missing);
  if (plan.requests !== null) notMeasured.push('throughput intervals: REQUESTS mode has no time slices (use DURATION)');
  if (setup === null) notMeasured.push('everything: setup did not complete (see the message above)');
  else if (setup.failures?.length) notMeasured.push('everything: preflight failed, no load was sent (the diagnosis is below)');
  const report: Report = {
    benchmark: cfg.benchmark,
    kind,
    runId: setup?.runId ?? cfg.runId,
    generatedAt: now.toISOString(),
    transport: cfg.transport,
    notMeasured,
    settings: runSettings({ cfg, plan, load: spec.load }),
    variants: cfg.variants.map((v) => {
      const info = setup?.variants?.find((x) => x.variant === v.variant);
      return {
        variant: v.variant,
        url: v.url,
        dialect: info?.dialect ?? v.dialect,
        model: info?.model ?? v.model,
        engineLabel: info?.engineLabel ?? 'unknown',
        serverMetrics: info?.metrics ?? null,
        notes: info?.notes ?? [],
      };
    }),
    runs,
    comparisons: [],
    versus: null,
    knee: null,
    fallBehind: null,
    errorsByClass: {},
    preflightFailures: cfg.variants.flatMap((v) =>
      (Object.keys(PREFLIGHT_REASONS) as PreflightReason[])
        .filter((reason) => (data.metrics[preflightKey(v.variant, reason)]?.values.count ?? 0) > 0)
        .map((reason) => ({
          variant: v.variant,
          reason,
          headline: PREFLIGHT_REASONS[reason],
          message: setup?.failures?.find((f) => f.variant === v.variant && f.reason === reason)?.message ?? null,
        })),
    ),
    thresholds: [],
    warnings: [...(setup?.warnings ?? []), ...runs.flatMap((r) => r.notes.map((n) => `${r.scenario}: ${n}`))],
    testRunDurationMs: data.state?.testRunDurationMs ?? null,
    dataset: null,
  };
  const at = (run: Pick<Run, 'cell'>) => `at ${where(run.cell.isl, run.cell.osl, run.cell.load)}`;
  if (stop === null) {
    buildSections(report, { kind, cfg, plan, data, runs, complete: { runs, cells: plan.cells }, where: at });
    return report;
  }
  // Stopped early. Each run's state goes in its notes after the warnings were drawn from them: the
  // stop sentence speaks for them there.
  planned.forEach((run, i) => {
    const p = stateOf(run);
    if (p?.state === 'not run') runs[i].notes.unshift(NOT_RUN_NOTE);
    if (p?.state === 'incomplete') runs[i].notes.unshift(incompleteNote(p, run, plan.requests === null ? cuts[i] : null));
  });
  const complete = runs.filter((_, i) => stateOf(planned[i])?.state === 'complete');
  const cells = plan.cells.filter((c) => runs.filter((r) => r.cellId === c.id).every((r) => complete.includes(r)));
  buildSections(report, { kind, cfg, plan, data, runs, complete: { runs: complete, cells }, where: at });
  // At the top of the warnings, report.md and report.html.
  report.warnings.unshift(stop, `conclusions (knee, fall-behind, comparisons) from the ${complete.length} complete run(s) only.`);
  report.notMeasured.unshift(stop);
  return report;
}

export function where(isl: number, osl: number, load: RunFigures['load']): string {
  return `ISL ${isl}, OSL ${osl}, ${loadWords(load)}`;
}
