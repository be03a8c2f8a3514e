// One mechanism behind every benchmark file: configuration at init, preflight in setup, the
// measuring exec function, the server-metrics probe and the end-of-test report. A benchmark is a
// BenchmarkSpec; scenarios/*.ts only re-export what defineBenchmark returns.
import type { BenchmarkSpec } from '../benchmarks';
import type * as Once from './once';
import type * as BenchContext from './bench-context';
import { handedOver } from './handoff';
import { assemble } from './vu-bench';
import { stopAtSetup } from './config-error';
import { makeMeasure } from './measure';
import { makeProbe } from './probe';
import { makeWatch } from './watch';

// k6's require. webpack.config.js leaves './once' to k6 as the file once.js beside the
// bundle (dist/once.js, dist/sse/once.js): k6 compiles a VU's whole script in each VU, so what only
// VU 0 runs is kept out of the file every VU compiles (docs/fidelity.md, "What a VU holds").
declare function require(id: string): unknown;

function loadOnce(): typeof Once | { error: string } {
  try {
    return require('./once') as typeof Once;
  } catch (e) {
    return {
      error:
        `k6-llm-bench: cannot load once.js, which must sit beside this bundle (setup and every report are in it): ` +
        `run the bundle from its dist/ folder, or copy dist/once.js (dist/sse/once.js for the sse bundles) with it (${String(e)})`,
    };
  }
}

/**
 * The Bench of this VU. VU 0 reads the configuration (bench-context.ts, which webpack evaluates
 * only when it is required here); every other VU takes what VU 0 read (handoff.ts), and so never
 * evaluates the parser, the plan's builder or the catalog. Where VU 0 handed nothing over, a VU
 * reads the configuration itself.
 */
function benchOf(spec: BenchmarkSpec): BenchContext.Bench | { error: string } {
  const h = __VU === 0 ? null : handedOver();
  if (h !== null) return assemble({ spec, ...h, dataset: null, trace: null, options: {} as BenchContext.K6Options });
  return (require('./bench-context') as typeof BenchContext).loadBenchmark(spec);
}

export function defineBenchmark(spec: BenchmarkSpec) {
  const b = benchOf(spec);
  // A bad variable or file: setup() stops the run with one line, before any load.
  if ('error' in b) return stopAtSetup(b.error);
  // setup() and handleSummary() run in VU 0 only: the VUs that send requests never load them.
  const mod = __VU === 0 ? loadOnce() : null;
  if (mod !== null && 'error' in mod) return stopAtSetup(mod.error);
  const once = mod === null ? null : mod.vu0Functions(b);
  if (once !== null && 'error' in once) return stopAtSetup(once.error);
  return {
    options: b.options,
    setup: once?.setup ?? onlyInVu0('setup'),
    measure: makeMeasure(b),
    probe: makeProbe(b),
    watch: makeWatch(b),
    handleSummary: once?.handleSummary ?? onlyInVu0('handleSummary'),
  };
}

function onlyInVu0(name: string): () => never {
  return () => {
    throw new Error(`k6-llm-bench: ${name}() ran in VU ${__VU}; k6 runs it in VU 0, where this bundle loads it`);
  };
}
