// The server-metrics probe of a run: its own k6 scenario scrapes the target's /metrics at the
// start and end of the run's steady window and records the window's figures. The same exec
// function makes a run's prefix-cache reset in the gap before it (CACHE_RESET, its reset_ scenario).
import exec from 'k6/execution';
import { steadyWindow } from '../plan/matrix';
import { resetScenario, resetSlot } from '../plan/cache-reset';
import { resetBeforeRun } from './cache-reset';
import { probeWindow } from '../server-metrics/probe';
import type { SetupData } from '../variants';
import type { Bench } from './bench-context';
import { k6Port } from './http-port';
import { abortIfPreflightFailed } from './preflight-gate';

type ServerKey =
  | 'serverTtft'
  | 'serverItl'
  | 'serverE2e'
  | 'serverQueue'
  | 'serverAcceptance'
  | 'serverThroughput'
  | 'serverTimePerToken'
  | 'serverCacheHits'
  | 'serverCacheQueries';

export function makeProbe(b: Bench): (data: SetupData) => void {
  const port = k6Port('probe');
  return function probe(data: SetupData): void {
    abortIfPreflightFailed(data);
    b.source.clearTags();
    const entry = b.runs.get(exec.scenario.name);
    if (!entry) return;
    if (exec.scenario.name === resetScenario(entry.run)) return resetBeforeRun(b, data, entry.run, port, resetSlot(entry.run).budgetMs);
    const t = b.target(data, entry.run.variant);
    if (t.metrics === null) return;
    const w = steadyWindow(b.plan);
    const windowMs = w.toMs - w.fromMs;
    const out = probeWindow(port, { url: t.url, engine: t.metrics, headers: t.probeHeaders }, exec.scenario.startTime + windowMs, windowMs);
    if ('notMeasured' in out) {
      console.warn(`${entry.run.scenario}: server-side figures not measured: ${out.notMeasured}`);
      return;
    }
    const f = out.figures;
    const add = (key: ServerKey, v: number | null) => {
      if (v !== null && Number.isFinite(v)) b.metrics[key].add(v);
    };
    add('serverTtft', f.ttftMeanMs);
    add('serverItl', f.itlMeanMs);
    add('serverE2e', f.e2eMeanMs);
    add('serverQueue', f.queueMeanMs);
    add('serverAcceptance', f.acceptanceLength);
    add('serverThroughput', f.outputTokensPerSecond);
    add('serverTimePerToken', f.timePerTokenMs);
    if (f.prefixCache !== null) {
      add('serverCacheHits', f.prefixCache.hitTokens);
      add('serverCacheQueries', f.prefixCache.queryTokens);
    }
  };
}
