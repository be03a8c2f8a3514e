// One mechanism behind every scenario file: configuration at init, preflight in setup, the
// measuring exec function, the server-metrics probe and the end-of-test report. A scenario is a
// BenchmarkSpec; scenarios/*.ts only re-export what defineBenchmark returns.
import exec from 'k6/execution';
import { sleep } from 'k6';
import { loadConfig, redacted, type BenchConfig, type Env } from '../config/load';
import { ConfigError } from '../config/parse';
import { benchmarkEnv, checkResultsDir, recordedVariables } from '../config/environment';
import type { BenchmarkSpec } from '../benchmarks';
import { promptIndex } from '../workload/prompts';
import { type SloLimits, type Window } from '../metrics/samples';
import { formatDuration, planOf, type Plan, type Run } from '../plan/matrix';
import { k6Options, setupTimeoutMs } from '../plan/k6-options';
import { renderHtml } from '../report/html';
import { summaryJson } from '../report/json';
import { renderMarkdown } from '../report/markdown';
import { buildReport, type SummaryDataLike } from '../report/report';
import { renderText } from '../report/text';
import { PARTIAL_FORMAT, reportMetrics, segmentFileName, type PartialResult } from '../report/partial';
import { probeWindow } from '../server-metrics/probe';
import { steadyWindow, probeScenario } from '../plan/matrix';
import { adder, createMetrics } from './metrics';
import { PreflightError, preflightTarget } from '../preflight/run';
import { k6Port } from './http-port';
import { createPromptPools, neededKinds } from './prompts';
import { resolveTargets, type ResolvedTarget, type SetupData } from '../targets';
import { SENDERS } from './transport';
import { llmRequest } from './request';
import { TRANSPORTS } from '../transports';
import { stopAtSetup } from './config-error';
import { BACKOFF, Reachability } from '../vu/reachability';
import { DatasetVu, openDataset, setupDataset, type SharedDataset } from './dataset';
import { recordDatasetRequest } from '../metrics/dataset-samples';
import { datasetThresholds } from '../plan/dataset-keys';
import { TOKENIZE_BUDGET_MS } from '../workload/dataset-plan';
import { baselineOutputs, readBaseline, type Baseline } from '../compare/baseline';


export function defineBenchmark(spec: BenchmarkSpec) {
  let env: Env;
  let cfg: BenchConfig;
  let dataset: SharedDataset | null;
  let baseline: Baseline | null;
  try {
    const read = (path: string) => open(path);
    // The sse bundles (dist/sse/*.js, see bundle.d.ts) measure TTFT by default; TRANSPORT=http still works there.
    env = benchmarkEnv(__ENV, read, spec.defaults, __SSE_BUNDLE__ ? 'sse' : null);
    cfg = loadConfig(spec, env, new Date());
    spec.validate?.(cfg);
    checkResultsDir(cfg.resultsDir, __ENV.PWD, read);
    // DATASET: read and parsed once per test (SharedArray); a bad file stops here with one line.
    dataset = openDataset(cfg, read);
    // BASELINE: a summary.json this run is compared with at the end (lib/compare/baseline.ts).
    baseline = readBaseline(env, read);
  } catch (e) {
    // One line that names the variable (k6 would print a stack after an exception at init).
    if (e instanceof ConfigError) return stopAtSetup(`k6-llm-bench ${spec.name}: ${e.message}`);
    throw e;
  }
  const plan: Plan = planOf(spec.load, cfg);
  const runs = new Map<string, { run: Run; index: number }>();
  plan.runs.forEach((run, index) => {
    runs.set(run.scenario, { run, index });
    runs.set(probeScenario(run), { run, index });
  });
  const metrics = createMetrics();
  const add = adder(metrics);
  const transport = TRANSPORTS[cfg.transport];
  const send = SENDERS[cfg.transport]();
  const pools = dataset === null ? createPromptPools(cfg, neededKinds(cfg)) : null;
  const datasetVu = dataset === null ? null : new DatasetVu(cfg, dataset);
  const slo: SloLimits = { ttftP99Ms: cfg.slo.ttftP99Ms, itlP99Ms: cfg.slo.itlP99Ms, e2eP99Ms: cfg.slo.e2eP99Ms };
  const stream = transport.streams || cfg.stream;
  const options = k6Options(plan, cfg);
  if (dataset !== null) {
    // Per-domain and per-turn figures reach the summary only as declared sub-metrics; setup also counts the prompts' tokens.
    Object.assign(options.thresholds as Record<string, string[]>, datasetThresholds(plan, dataset.shape));
    options.setupTimeout = `${setupTimeoutMs(cfg) + TOKENIZE_BUDGET_MS + 10_000}ms`;
  }

  let targets: Map<string, ResolvedTarget> | null = null;
  const target = (data: SetupData, label: string): ResolvedTarget => {
    if (targets === null) targets = resolveTargets(cfg, data);
    return targets.get(label) as ResolvedTarget;
  };
  // Each VU logs the first error of each class it meets; the summary has the counts.
  const logged = new Set<string>();
  // Per VU and target: back-off while nothing listens, and whether the target was declared down.
  const reach = new Map<string, Reachability>();
  const reachOf = (label: string) => {
    let r = reach.get(label);
    if (!r) reach.set(label, (r = new Reachability({ ...BACKOFF, downAfterMs: cfg.targetDownAfterMs })));
    return r;
  };

  function setup(): SetupData {
    const c = redacted(cfg);
    console.log(
      `k6-llm-bench ${spec.name}: ${plan.cells.length} cell(s) × ${cfg.targets.length} target(s) = ${plan.runs.length} run(s), ` +
        `${plan.requests === null ? `${formatDuration(cfg.durationMs)} each` : `${plan.requests} requests each`}, ≈${formatDuration(plan.totalMs)} in all; ${transport.measures}.`,
    );
    const testid = (exec.test.options.tags as Record<string, string> | undefined)?.testid ?? c.runId;
    const o = exec.test.options as { executionSegment?: string | null; executionSegmentSequence?: string | null };
    const data: SetupData = { runId: testid, targets: [], warnings: [], failures: [], segment: o.executionSegment || null, sequence: o.executionSegmentSequence || null };
    for (const t of cfg.targets) {
      try {
        const r = preflightTarget(k6Port('preflight'), cfg, t);
        data.targets.push(r.info);
        data.warnings.push(...r.warnings);
        console.log(`${t.variant}: ${r.info.engine} at ${t.url}, dialect ${r.info.dialect}${r.info.model ? `, model ${r.info.model}` : ''}${r.info.notes.length ? ` (${r.info.notes.join('; ')})` : ''}`);
      } catch (e) {
        if (!(e instanceof PreflightError)) throw e;
        data.failures.push({ variant: t.variant, reason: e.reason, message: e.message });
        metrics.preflightFailed.add(1, { variant: t.variant, reason: e.reason });
      }
    }
    if (dataset !== null && data.failures.length === 0) data.dataset = setupDataset(k6Port('dataset'), cfg, dataset, data.targets, spec.name);
    for (const w of data.warnings) console.warn(`warning: ${w}`);
    // setup() returns even when preflight failed, so that the reports receive the diagnosis in the
    // setup data; the first iteration then aborts the run before sending anything.
    return data;
  }

  function abortIfPreflightFailed(data: SetupData): void {
    if (data.failures.length > 0) {
      exec.test.abort(`preflight failed, no load was sent:\n  ${data.failures.map((f) => f.message).join('\n  ')}`);
    }
  }

  // What a VU needs for the scenario it is running, resolved on its first iteration there: k6's
  // execution fields are calls into the runtime, so per-request work reads only two of them.
  let current: { name: string; run: Run; index: number; target: ResolvedTarget; window: Window; slot: number; sent: number; reach: Reachability; downNoted: boolean; lastEndMs: number | null } | null = null;

  function measure(data: SetupData): void {
    abortIfPreflightFailed(data);
    const name = exec.scenario.name;
    if (current === null || current.name !== name) {
      const entry = runs.get(name);
      if (!entry) throw new Error(`no run named ${name}`);
      const t = target(data, entry.run.variant);
      const start = exec.scenario.startTime;
      const steady = cfg.latencyWindow === 'steady' && plan.slices > 1 && plan.requests === null;
      const window: Window = { cellStartMs: start, sliceMs: plan.sliceMs, slices: plan.slices, trackLastEnd: plan.requests !== null, latencyFromMs: steady ? start + plan.sliceMs : -Infinity };
      current = { name, run: entry.run, index: entry.index, target: t, window, slot: (exec.vu.idInTest - 1) % entry.run.vus, sent: 0, reach: reachOf(t.variant), downNoted: false, lastEndMs: null };
      exec.vu.metrics.tags.dialect = t.dialect.name;
      // Instances of one run would otherwise write identical series to Prometheus.
      if (data.segment) exec.vu.metrics.tags.segment = data.segment;
      if (datasetVu !== null && data.dataset) datasetVu.start(data.dataset, t, entry.run.cell.isl, current.slot, entry.run.vus);
      add('runVus', 1);
      if (exec.scenario.iterationInTest === 0) console.log(`▶ run ${entry.index + 1}/${plan.runs.length}: ${entry.run.variant} ${entry.run.cell.id}`);
    }
    const { run, target: t, window, reach: r } = current;
    if (r.downAtMs !== null) {
      if (!current.downNoted) {
        current.downNoted = true;
        add('targetDown', 1);
      }
      // Nothing more is sent to a dead target; a closed-loop VU idles instead of spinning.
      if (run.cell.load.kind === 'vus') sleep(1);
      return;
    }
    const item = datasetVu === null ? null : datasetVu.next(run.cell.osl);
    if (item !== null && item.turn > 1 && cfg.dataset !== null && cfg.dataset.thinkTimeMs > 0) {
      // A user reading the reply and typing the next turn: the VU's own pause, not a client gap.
      sleep(cfg.dataset.thinkTimeMs / 1000);
      current.lastEndMs = null;
    }
    const outcome = llmRequest(send, t, {
      prompt: item !== null ? item.prompt : (pools as NonNullable<typeof pools>).prompt(run.cell.isl, t.promptKind, promptIndex(current.slot, current.sent++, run.vus, cfg.promptPool)),
      maxTokens: item !== null ? item.maxTokens : run.cell.osl,
      ignoreEos: cfg.ignoreEos,
      temperature: cfg.temperature,
      stream,
      model: t.model || undefined,
    }, cfg.requestTimeoutMs, window, slo, add);
    // The VU's own time between requests: a closed loop's load is only as high as this lets it be.
    if (current.lastEndMs !== null) add('clientGap', outcome.startMs - current.lastEndMs);
    if (item !== null) {
      recordDatasetRequest(outcome.result, item.intended, add);
      (datasetVu as DatasetVu).done(outcome.result);
    }
    const err = outcome.result.error;
    if (err && !logged.has(err.class)) {
      logged.add(err.class);
      console.warn(`${run.variant} ${run.cell.id}: ${err.class}: ${err.message}`);
    }
    const next = r.after(err?.class === 'unreachable', outcome.endMs);
    if (next.declaredDown) {
      console.warn(
        `${run.variant}: nothing has listened at ${t.url} for ${Math.round((outcome.endMs - (r.downSinceMs ?? outcome.endMs)) / 1000)} s (TARGET_DOWN_AFTER): ` +
          'declared down; this VU sends it nothing more and the report marks its remaining runs as not fully measured.',
      );
    }
    if (next.waitMs > 0) sleep(next.waitMs / 1000);
    current.lastEndMs = next.waitMs > 0 || run.cell.load.kind === 'rate' ? null : outcome.endMs;
  }

  const probePort = k6Port('probe');
  function probe(data: SetupData): void {
    abortIfPreflightFailed(data);
    datasetVu?.clearTags();
    const entry = runs.get(exec.scenario.name);
    if (!entry) return;
    const t = target(data, entry.run.variant);
    if (t.metrics === null) return;
    const w = steadyWindow(plan);
    const windowMs = w.toMs - w.fromMs;
    const out = probeWindow(probePort, { url: t.url, engine: t.metrics, headers: t.probeHeaders }, exec.scenario.startTime + windowMs, windowMs);
    if ('notMeasured' in out) {
      console.warn(`${entry.run.scenario}: server-side figures not measured: ${out.notMeasured}`);
      return;
    }
    const f = out.figures;
    const add = (key: 'serverTtft' | 'serverItl' | 'serverE2e' | 'serverQueue' | 'serverAcceptance' | 'serverThroughput' | 'serverTimePerToken', v: number | null) => {
      if (v !== null && Number.isFinite(v)) metrics[key].add(v);
    };
    add('serverTtft', f.ttftMeanMs);
    add('serverItl', f.itlMeanMs);
    add('serverE2e', f.e2eMeanMs);
    add('serverQueue', f.queueMeanMs);
    add('serverAcceptance', f.acceptanceLength);
    add('serverThroughput', f.outputTokensPerSecond);
    add('serverTimePerToken', f.timePerTokenMs);
  }

  function handleSummary(data: SummaryDataLike): Record<string, string> {
    const report = buildReport(spec, cfg, plan, data, new Date());
    // Instances of one run share its id (and a results volume, under the k6-operator): each
    // names its files after its segment.
    const segment = data.setup_data?.segment;
    const base = `${cfg.resultsDir}/${report.runId}${segment ? `.segment-${segmentFileName(segment)}` : ''}`;
    const json = summaryJson(report);
    const files: Record<string, string> = {
      [`${base}.summary.json`]: json,
      [`${base}.report.md`]: renderMarkdown(report),
      [`${base}.report.html`]: renderHtml(report),
    };
    if (cfg.partial) {
      const setup = data.setup_data ?? null;
      const partial: PartialResult = {
        format: PARTIAL_FORMAT,
        benchmark: spec.name,
        runId: report.runId,
        segment: setup?.segment ?? null,
        sequence: setup?.sequence ?? null,
        variables: recordedVariables(env),
        setup,
        metrics: reportMetrics(data.metrics),
        testRunDurationMs: data.state?.testRunDurationMs ?? null,
      };
      files[`${base}.partial.json`] = JSON.stringify(partial);
    }
    // One instance's figures are its share of each run: only the merged summary compares with a baseline.
    const compared =
      baseline === null ? null : segment ? { text: `\nBASELINE: not compared here (one instance of several); compare the merged summary: npm run compare -- ${baseline.path} <merged>.summary.json\n`, files: {} } : baselineOutputs(baseline, json, base);
    return { stdout: renderText(report, Object.keys(files)) + (compared?.text ?? ''), ...files, ...compared?.files };
  }

  return { options, setup, measure, probe, handleSummary };
}
