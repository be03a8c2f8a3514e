// The report of a user's own script, built by the benchmarks' report code (lib/report) from a plan
// made of the script's scenarios (plan.ts) and a configuration made of its clients (config.ts).
// What the benchmarks' report would say about settings the script does not have (ISL, OSL,
// CONCURRENCY …) is replaced by what the script did set. Pure.
import { buildReport, type Report, type SummaryDataLike } from '../report/build-report';
import type { SummaryMetrics } from '../report/figures/run-figures';
import type { SetupData, VariantInfo } from '../variants';
import { TRANSPORTS, type TransportName } from '../transports';
import { libraryConfig, type ClientSpec } from './config';
import { reportPlan, variantsByScenario, windowMode, type ScenarioOptions, type WindowMode } from './plan';
import { HTTP_NOT_MEASURED } from './result';
import { METRICS } from '../metrics/catalog';

/** What preflight() in setup() found, as the script returns it from setup (directly or under `llm`). */
export interface LlmSetup {
  ok: boolean;
  variants: VariantInfo[];
  /** @deprecated `variants`' old name: preflight() writes both until the next release; readers take either. */
  targets?: VariantInfo[];
  warnings: string[];
  failures: Array<{ variant: string; reason: string; message: string }>;
}

export interface LibraryReportInput {
  title: string;
  runId: string;
  clients: readonly ClientSpec[];
  scenarios: Record<string, ScenarioOptions>;
  slices: number;
  data: { metrics: SummaryMetrics; setup_data?: unknown; state?: { testRunDurationMs?: number } };
  now: Date;
}

function isLlmSetup(v: unknown): v is LlmSetup {
  const o = v as LlmSetup | null;
  return (
    o !== null && typeof o === 'object' && (Array.isArray(o.variants) || Array.isArray(o.targets)) && Array.isArray(o.failures) && Array.isArray(o.warnings)
  );
}

/** The LlmSetup a script's setup() returned, as itself or as its `llm` field; null when there is none. */
export function setupOf(setupData: unknown): LlmSetup | null {
  if (isLlmSetup(setupData)) return setupData;
  const inner = (setupData as { llm?: unknown } | null | undefined)?.llm;
  return isLlmSetup(inner) ? inner : null;
}

function windowText(mode: WindowMode): string {
  return mode.kind === 'slices'
    ? `${mode.slices} slices of ${mode.sliceMs / 1000} s per scenario, the first left out as ramp-up`
    : "from each scenario's start to its last request's end";
}

export function libraryReport(input: LibraryReportInput): Report {
  const { clients, scenarios, data } = input;
  const metrics = data.metrics;
  const mode = windowMode(scenarios, input.slices);
  const names = clients.map((c) => c.name);
  const byScenario = variantsByScenario(metrics, Object.keys(scenarios), names);
  const plan = reportPlan(scenarios, mode, metrics, byScenario);
  const setup = setupOf(data.setup_data);
  const ran = new Set([...byScenario.values()].flat());
  const failedPreflight = new Set(setup?.failures.map((f) => f.variant) ?? []);
  let used = clients.filter((c) => ran.has(c.name) || failedPreflight.has(c.name));
  if (used.length === 0) used = clients.slice();
  const transports = new Set(used.map((c) => c.transport));
  const transport: TransportName = transports.has('sse') ? 'sse' : 'http';
  // Two clients side by side at one load: the A/B verdicts of the benchmarks, cell by cell.
  const single = [...ran].filter((v) => names.includes(v));
  const paired = single.length === 2 && plan.cells.some((cell) => single.every((v) => plan.runs.some((r) => r.cell.id === cell.id && r.variant === v)));
  const ordered = paired ? [...used].sort((a, b) => Number(!single.includes(a.name)) - Number(!single.includes(b.name))) : used;
  const cfg = libraryConfig(input.title, input.runId, ordered, transport);
  const setupData: SetupData = {
    runId: input.runId,
    variants: setup?.variants ?? setup?.targets ?? [],
    warnings: setup?.warnings ?? [],
    failures: setup?.failures ?? [],
    segment: null,
    sequence: null,
  };
  const dataLike: SummaryDataLike = { metrics, setup_data: setupData, state: data.state };
  const report = buildReport({ report: paired ? 'ab' : 'smoke', load: 'vus' }, cfg, plan, dataLike, { now: input.now });

  // Settings: what this script set, not the benchmarks' variables.
  report.settings = {
    SCENARIOS: Object.keys(scenarios).join(','),
    WINDOW: windowText(mode),
    SLICES: mode.kind === 'slices' ? mode.slices : null,
    TRANSPORT: [...transports].join(','),
    CLIENTS: used.map((c) => `${c.name}=${c.transport}`).join(','),
    REQUEST_TIMEOUT_s: cfg.requestTimeoutMs / 1000,
    LATENCY_WINDOW: 'all',
    ISL_OSL: 'measured: mean prompt and output tokens per successful request, as the server counted them',
  };
  const notMeasured: string[] = [];
  const httpClients = used.filter((c) => !TRANSPORTS[c.transport].timesEvents).map((c) => c.name);
  if (httpClients.length > 0) notMeasured.push(transports.size > 1 ? `${httpClients.join(', ')}: ${HTTP_NOT_MEASURED}` : HTTP_NOT_MEASURED);
  if (mode.kind !== 'slices' && plan.runs.length > 0) {
    notMeasured.push(
      'throughput intervals: the scenarios are not all constant-vus or constant-arrival-rate of one ' +
        'duration, so there are no time slices (throughput is over each scenario until its last request)',
    );
  }
  notMeasured.push("server-side figures: the library does not scrape the server's /metrics");
  if (setupData.failures.length > 0) notMeasured.push('everything: preflight failed, no load was sent (the diagnosis is below)');
  else if (plan.runs.length === 0) {
    const all = metrics[METRICS.success.name]?.values;
    notMeasured.push(
      all && (all.passes ?? 0) + (all.fails ?? 0) > 0
        ? 'per-scenario figures: k6 kept none in its summary; wrap the options in llmOptions() (after creating the clients) so that it keeps them'
        : 'everything: no LLM request was recorded in any scenario',
    );
  }
  report.notMeasured = notMeasured;
  for (const v of report.variants) {
    if (v.engineLabel === 'unknown') v.engineLabel = 'not identified (no preflight result in the setup data)';
  }
  for (const r of plan.runs) {
    if (r.variant.includes('+')) {
      report.warnings.push(
        `${r.scenario}: clients ${r.variant.split('+').join(' and ')} both sent requests in this scenario, so ` +
          `its figures mix them; run each client in a scenario of its own to compare them.`,
      );
    }
  }
  return report;
}
