// The server-metrics probe of a run: its own k6 scenario scrapes the target's /metrics at the
// start and end of the run's steady window and records the window's figures.
import exec from 'k6/execution';
import { steadyWindow } from '../plan/matrix';
import type { SetupData } from '../variants';
import type { Bench } from './bench-context';
import { k6Port } from './http-port';
import { abortIfPreflightFailed } from './preflight-gate';

// The scraping code (and the engines' metric names) is evaluated on the first call, in the VUs
// that probe alone: k6 evaluates a script in every VU (docs/fidelity.md, "What a VU holds").
declare function require(id: string): unknown;
const probeModule = () => require('../server-metrics/probe') as typeof import('../server-metrics/probe');

type ServerKey = 'serverTtft' | 'serverItl' | 'serverE2e' | 'serverQueue' | 'serverAcceptance' | 'serverThroughput' | 'serverTimePerToken';

export function makeProbe(b: Bench): (data: SetupData) => void {
  const port = k6Port('probe');
  return function probe(data: SetupData): void {
    abortIfPreflightFailed(data);
    b.source.clearTags();
    const entry = b.runs.get(exec.scenario.name);
    if (!entry) return;
    const t = b.target(data, entry.run.variant);
    if (t.metrics === null) return;
    const w = steadyWindow(b.plan);
    const windowMs = w.toMs - w.fromMs;
    const out = probeModule().probeWindow(port, { url: t.url, engine: t.metrics, headers: t.probeHeaders }, exec.scenario.startTime + windowMs, windowMs);
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
  };
}
