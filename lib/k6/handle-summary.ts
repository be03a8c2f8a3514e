// handleSummary: the reports (terminal, summary.json, report.md, report.html), an instance's
// partial result for merging, and the comparison with a BASELINE run.
import { recordedVariables } from '../config/environment';
import { baselineOutputs, type Baseline } from '../compare/baseline';
import { renderHtml } from '../report/render/html-report';
import { summaryJson } from '../report/render/summary-json';
import { renderMarkdown } from '../report/render/markdown-report';
import { INSTANCE_RESULT_FORMAT, reportMetrics, segmentFileName, type InstanceResult } from '../report/merge-instances';
import { buildReport, type SummaryDataLike } from '../report/build-report';
import { withRunTrends } from '../report/run-trends';
import { renderText } from '../report/render/text-report';
import type { Bench } from './lifecycle/each-vu-bench';
import { stoppedProgress } from '../raw/progress';

export function makeSummary(b: Bench, baseline: Baseline | null): (data: SummaryDataLike) => Record<string, string> {
  const { spec, cfg, plan, env } = b;
  return function handleSummary(k6Data: SummaryDataLike): Record<string, string> {
    const data = { ...k6Data, metrics: withRunTrends(plan, k6Data.metrics, cfg) };
    // Stopped early (Ctrl-C, SIGTERM): the cell in flight is marked incomplete, as `npm run report` marks it.
    const report = buildReport(spec, cfg, plan, data, { now: new Date(), progress: stoppedProgress(plan, data, Date.now()) });
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
      const partial: InstanceResult = {
        format: INSTANCE_RESULT_FORMAT,
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
      baseline === null
        ? null
        : segment
          ? {
              text:
                `\nBASELINE: not compared here (one instance of several); compare the merged summary: npm run compare ` +
                `-- ${baseline.path} <merged>.summary.json\n`,
              files: {},
            }
          : baselineOutputs(baseline, json, base);
    return { stdout: renderText(report, Object.keys(files)) + (compared?.text ?? ''), ...files, ...compared?.files };
  };
}
