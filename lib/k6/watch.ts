// The saturation watch of a run (SATURATION_STOP): its own k6 scenario scrapes the variant's queue
// gauge about once a second for the whole run. When the rule in lib/server-metrics/saturation.ts
// fires, it records when and why, and ends the test: k6 cannot skip the later, heavier levels of
// its plan any other way, and each would only queue more. The reports still run (k6 calls
// handleSummary after an abort) and say where and why the run stopped.
import exec from 'k6/execution';
import type { SetupData } from '../variants';
import type { Bench } from './lifecycle/each-vu-bench';
import { k6Port } from './k6-http-port';
import { abortIfPreflightFailed } from './preflight-gate';
import { clearAdapterTag } from './adapter-tag';

// Evaluated on the first call, in the VUs that watch alone (as probe-scenario.ts's scraping code).
declare function require(id: string): unknown;
const saturation = () => require('../server-metrics/saturation') as typeof import('../server-metrics/saturation');

export function makeWatch(b: Bench): (data: SetupData) => void {
  const port = k6Port('watch');
  return function watch(data: SetupData): void {
    abortIfPreflightFailed(data);
    b.source.clearTags();
    clearAdapterTag();
    const entry = b.runs.get(exec.scenario.name);
    if (!entry) return;
    const { run } = entry;
    const variant = b.variant(data, run.variant);
    if (variant.metrics === null) return; // the probe says once why the server's figures are not measured
    const { queueNames, watchRun } = saturation();
    if (queueNames(variant.metrics) === null) {
      if (entry.index === 0) console.warn(`${run.variant}: saturation not watched: ${variant.metrics} exposes no queue gauge in /metrics; every level runs.`);
      return;
    }
    const start = exec.scenario.startTime;
    const v = watchRun(port, { url: variant.url, engine: variant.metrics, headers: variant.probeHeaders }, run.cell.load, start + run.durationMs);
    if (v === null) return;
    const afterMs = v.atMs - start;
    b.metrics.saturated.add(1, { saturation_rule: v.rule });
    b.metrics.saturationAfter.add(afterMs);
    b.metrics.saturationWaiting.add(v.waiting);
    const message =
      `${run.variant} ${run.cell.id}: the server is saturated ${(afterMs / 1000).toFixed(1)} s into this level: ` +
      `${v.evidence}. Later levels are not run (SATURATION_STOP=false runs every level).`;
    console.warn(message);
    exec.test.abort(message);
  };
}
