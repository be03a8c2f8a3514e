// One mechanism behind every benchmark file: configuration at init, preflight in setup, the
// measuring exec function, the server-metrics probe and the end-of-test report. A benchmark is a
// BenchmarkSpec; scenarios/*.ts only re-export what defineBenchmark returns.
import type { BenchmarkSpec } from '../benchmarks';
import { loadBenchmark } from './bench-context';
import { stopAtSetup } from './config-error';
import { makeMeasure } from './measure';
import { makeProbe } from './probe';
import { makeSetup } from './setup';
import { makeSummary } from './summary';
import { makeWatch } from './watch';

export function defineBenchmark(spec: BenchmarkSpec) {
  const b = loadBenchmark(spec);
  // A bad variable or file: setup() stops the run with one line, before any load.
  if ('error' in b) return stopAtSetup(b.error);
  return { options: b.options, setup: makeSetup(b), measure: makeMeasure(b), probe: makeProbe(b), watch: makeWatch(b), handleSummary: makeSummary(b) };
}
