// setup(): say what the run will do, preflight every variant (a failure is kept for the reports and
// stops the run at the first iteration), and count DATASET prompts' tokens.
import exec from 'k6/execution';
import { redacted } from '../config/load';
import { formatDuration } from '../plan/matrix';
import { resetDue, resetInSetup } from '../plan/cache-reset-plan';
import { resetBeforeRun } from './run-cache-reset';
import { PreflightError, preflightVariant } from '../preflight/run';
import { readServingConfig } from '../preflight/serving';
import { engineById } from '../engines/index';
import type { SetupData } from '../variants';
import type { Bench } from './lifecycle/each-vu-bench';
import { setupDataset } from './shared-dataset';
import { k6Port } from './k6-http-port';
import { writeRunRecord } from './run-record';
import { instanceClock } from './clock';
import { recordedVariables } from '../config/environment';
import { traceLogLine } from '../workload/trace';

/** How long setup keeps asking a busy server to reset its cache (the warm-ups' requests may still be ending). */
const SETUP_RESET_BUDGET_MS = 10_000;

export function makeSetup(b: Bench): () => SetupData {
  const { spec, cfg, plan } = b;
  return function setup(): SetupData {
    console.log(
      `k6-llm-bench ${spec.name}: ${plan.cells.length} cell(s) × ${cfg.variants.length} variant(s)` +
        `${plan.repeats ? ` × ${plan.repeats} repeats` : ''} = ${plan.runs.length} run(s), ` +
        (`${plan.requests === null ? `${formatDuration(cfg.durationMs)} each` : `${plan.requests} requests each`}, ≈` +
          `${formatDuration(plan.totalMs)} in all; ${b.transport.measures}.`),
    );
    const testid = (exec.test.options.tags as Record<string, string> | undefined)?.testid ?? redacted(cfg).runId;
    const o = exec.test.options as { executionSegment?: string | null; executionSegmentSequence?: string | null };
    const data: SetupData = {
      runId: testid,
      variants: [],
      warnings: [],
      failures: [],
      segment: o.executionSegment || null,
      sequence: o.executionSegmentSequence || null,
    };
    for (const v of cfg.variants) {
      try {
        const r = preflightVariant(k6Port('preflight'), cfg, v);
        // Before any load: what each variant serves with, for the report's fairness check.
        r.info.serving = readServingConfig(k6Port('preflight'), cfg, v, engineById(r.info.engine), r.info.engineLabel);
        data.variants.push(r.info);
        data.warnings.push(...r.warnings);
        console.log(
          `${v.variant}: ${r.info.engineLabel} at ${v.url}, dialect ${r.info.dialect}${r.info.model ? `, model ${r.info.model}` : ''}` +
            `${r.info.notes.length ? ` (${r.info.notes.join('; ')})` : ''}`,
        );
      } catch (e) {
        if (!(e instanceof PreflightError)) throw e;
        data.failures.push({ variant: v.variant, reason: e.reason, message: e.message });
        b.metrics.preflightFailed.add(1, { variant: v.variant, reason: e.reason });
      }
    }
    if (b.trace !== null) {
      data.trace = b.trace.shape;
      console.log(traceLogLine(b.trace.source, b.trace.shape, cfg.trace as NonNullable<typeof cfg.trace>));
    }
    if (b.dataset !== null && data.failures.length === 0) data.dataset = setupDataset(k6Port('dataset'), cfg, b.dataset, data.variants, spec.name);
    // CACHE_RESET: the runs that start at once begin with an empty prefix cache too (warm-ups
    // included). Instances of one test (execution segments) start their load as their own setups
    // end: the first segment's alone resets, trying once, so that no setup waits on another's load.
    const segmented = data.segment !== null;
    if (data.failures.length === 0 && (!segmented || data.segment?.startsWith('0:')))
      for (const run of resetDue(plan, cfg.cacheReset))
        if (resetInSetup(run)) resetBeforeRun(b, data, run, k6Port('reset'), segmented ? 0 : SETUP_RESET_BUDGET_MS);
    // A split run's instance: its clock against the server host's, for the merge (docs/distributed.md).
    if (cfg.partial && cfg.variants.length > 0 && data.failures.length === 0)
      data.instance = instanceClock(
        b.env.INSTANCE_NAME || b.env.HOSTNAME || (data.segment ? `segment ${data.segment}` : 'instance'),
        cfg.variants[0].url,
        plan.sliceMs,
      );
    for (const w of data.warnings) console.warn(`warning: ${w}`);
    // The run record (a sample whose metadata holds the settings and this data): `npm run report`
    // rebuilds the reports from k6's JSON output with it, even when the test is killed.
    writeRunRecord(spec.name, recordedVariables(b.env), data);
    // setup() returns even when preflight failed, so that the reports receive the diagnosis in the
    // setup data; the first iteration then aborts the run before sending anything.
    return data;
  };
}
