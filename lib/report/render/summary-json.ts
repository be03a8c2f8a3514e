// summary.json: one record per cell and variant, every field named with its unit. Values that
// were not measured are null, never zero.
import type { ConnectionFigures, Dist, RunFigures } from '../figures/run-figures';
import type { Report } from '../report-types';
import { renamedKeys, sectionsJson } from '../sections/index';
import { faithful } from '../figures/client-overhead';
import { RELATIVE_ERROR } from '../../stats/log-buckets';
import { ciBounds } from './report-format';

function ms(d: Dist | null) {
  if (d === null) return null;
  const out = { avg: d.avg, p50: d.p50, p90: d.p90, p99: d.p99, max: d.max, count: d.count };
  // Counted in log buckets (ITL_SAMPLES=histogram): say how close the quantiles are.
  return d.bucketed ? { ...out, relative_error: RELATIVE_ERROR } : out;
}

function clientCheckJson(c: RunFigures['client']) {
  return {
    e2e_overhead_ms: c.e2eOverheadMs,
    ttft_overhead_ms: c.ttftOverheadMs,
    vu_gap_ms: c.gap === null ? null : { avg: c.gap.avg, p50: c.gap.p50, p99: c.gap.p99, count: c.gap.count },
    itl_quantised: c.itlQuantised,
    client_limited: c.limited.length > 0,
    reasons: c.limited,
    held_by_network: c.held,
  };
}

/** The network's share of the run's requests (RunFigures.connection); null: not measured. */
function connectionJson(c: ConnectionFigures | null) {
  return c === null ? null : { requests: c.requests, new_connections: c.opened, connect_ms: ms(c.connect), tls_handshake_ms: ms(c.tls) };
}

/** A per-request rate's figures: as ms() gives them, without the max and count this field never had. */
function rate(d: Dist | null) {
  const x = ms(d);
  if (x === null) return null;
  const { max: _max, count: _count, ...rest } = x;
  return rest;
}

/**
 * The steady window's slices one by one (the bootstrap's samples), so a later run can be compared
 * with this one with an interval (`npm run compare`); null in REQUESTS mode (no slices).
 */
function steadySlices(r: RunFigures) {
  if (r.window === null || r.window.method !== 'steady-slices' || r.slices.length === 0) return null;
  return {
    slice_ms: (r.window.toMs - r.window.fromMs) / r.slices.length,
    output_tokens_per_s: r.slices.map((x) => x[0]),
    e2e_sum_ms: r.slices.map((x) => x[1]),
    requests: r.slices.map((x) => x[2]),
  };
}

export function runRecord(r: RunFigures) {
  return {
    cell: r.cellId,
    variant: r.variant,
    scenario: r.scenario,
    ...(r.repeat === undefined ? {} : { repeat: r.repeat }),
    isl_tokens: r.isl,
    osl_tokens: r.osl,
    concurrency_vus: r.load.kind === 'vus' ? r.load.vus : null,
    arrival_rate_per_s: r.load.kind === 'rate' ? r.load.rate : null,
    trace:
      r.load.kind === 'trace'
        ? {
            speed: r.load.speed,
            arrivals: r.load.arrivals ?? null,
            requests: r.load.requests,
            vus: r.load.vus,
            schedule_lag_ms: ms(r.client.schedule?.lag ?? null),
            max_lag_ms: r.load.maxLagMs,
            faithful: faithful(r.client.schedule?.lag ?? null, r.load.maxLagMs),
          }
        : null,
    requests: r.requests.total,
    requests_ok: r.requests.ok,
    requests_failed: r.requests.failed,
    unreachable_attempts: r.requests.unreachable,
    variant_down_vus: r.variantDown,
    target_down_vus: r.variantDown,
    errors_by_class: r.requests.errors,
    window_ms: r.window === null ? null : { from: r.window.fromMs, to: r.window.toMs, method: r.window.method },
    output_throughput_tokens_per_s: r.throughput,
    output_throughput_ci95_tokens_per_s: r.throughputCi === null ? null : [r.throughputCi.lo, r.throughputCi.hi],
    steady_slices: steadySlices(r),
    request_rate_per_s: r.requestRate,
    goodput_requests_per_s: r.goodput,
    e2e_ms: ms(r.e2e),
    ttft_ms: ms(r.ttft),
    ttst_ms: ms(r.ttst ?? null),
    itl_ms: ms(r.itl),
    itl_per_chunk_ms: ms(r.itlPerChunk),
    itl_rule: r.itlRule.rule,
    itl_rule_requests: r.itlRule.requests,
    tpot_ms: ms(r.tpot),
    request_output_rate_tokens_per_s: rate(r.requestTps),
    acceptance_length_tokens_per_step: r.acceptance?.value ?? null,
    acceptance_length_source: r.acceptance?.source ?? null,
    acceptance_length_ci95: ciBounds(r.acceptance?.ci),
    draft_acceptance_rate: r.draftAcceptance?.rate ?? null,
    draft_tokens: r.draftAcceptance?.drafted ?? null,
    draft_accepted_tokens: r.draftAcceptance?.accepted ?? null,
    output_tokens: r.tokens.output,
    input_tokens: r.tokens.input,
    cached_input_tokens: r.tokens.cached,
    reasoning:
      // Absent in figures read back from a run written before reasoning was measured.
      (r.reasoning ?? null) === null
        ? null
        : {
            requests: r.reasoning!.requests,
            ttft_reasoning_ms: ms(r.reasoning!.ttftReasoning),
            ttft_answer_ms: ms(r.reasoning!.ttftAnswer),
            reasoning_tokens: r.reasoning!.reasoningTokens,
            answer_tokens: r.reasoning!.answerTokens,
          },
    saturation: (r.saturation ?? null) === null ? null : { rule: r.saturation!.rule, after_ms: r.saturation!.afterMs, waiting: r.saturation!.waiting },
    server_ttft_mean_ms: r.server?.ttftMeanMs ?? null,
    server_itl_mean_ms: r.server?.itlMeanMs ?? null,
    server_e2e_mean_ms: r.server?.e2eMeanMs ?? null,
    server_queue_mean_ms: r.server?.queueMeanMs ?? null,
    server_output_throughput_tokens_per_s: r.server?.outputTokensPerSec ?? null,
    server_time_per_token_ms: r.server?.timePerTokenMs ?? null,
    dropped_iterations: r.dropped,
    client_check: clientCheckJson(r.client),
    connection: connectionJson(r.connection ?? null),
    notes: r.notes,
  };
}

/** summary.json keys renamed outside the sections (old path → new); the old key is written one release more. */
const RENAMED: Record<string, string> = {
  targets: 'variants',
  'targets[].engine': 'variants[].engineLabel',
  'records[].target_down_vus': 'records[].variant_down_vus',
};
/** Metrics renamed (old name → new): k6 emits the old name beside the new one until the next release. */
const RENAMED_METRICS: Record<string, string> = { llm_target_down: 'renamed llm_variant_down; the old name is emitted until the next release' };

export function summaryJson(report: Report): string {
  return JSON.stringify(
    {
      benchmark: report.benchmark,
      run_id: report.runId,
      generated_at: report.generatedAt,
      transport: report.transport,
      not_measured: report.notMeasured,
      settings: report.settings,
      variants: report.variants,
      targets: report.variants.map(({ engineLabel, ...t }) => ({ ...t, engine: engineLabel })),
      records: report.runs.map(runRecord),
      ...sectionsJson(report, 'checks'),
      ...sectionsJson(report, 'conclusions'),
      ...sectionsJson(report, 'outcomes'),
      preflight_failures: report.preflightFailures,
      warnings: report.warnings,
      test_run_duration_ms: report.testRunDurationMs,
      ...sectionsJson(report, 'details'),
      renamed_keys: renamedKeys(RENAMED),
      renamed_metrics: RENAMED_METRICS,
    },
    null,
    2,
  );
}
