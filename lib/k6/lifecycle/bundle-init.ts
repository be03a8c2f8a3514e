// One mechanism behind every benchmark file: configuration at init, preflight in setup, the
// measuring exec function, the server-metrics probe and the end-of-test report. A benchmark is a
// BenchmarkSpec; scenarios/*.ts only re-export what defineBenchmark returns.
import type { BenchmarkSpec } from '../benchmarks';
import type * as Vu0 from './vu0';
import type * as BenchContext from './bench-context';
import { handedOver } from './handoff';
import { fromHandoff } from './vu-bench';
import { stopAtSetup } from './config-error';
import { makeMeasure } from './measure';
import { makeProbe } from './probe';
import { makeWatch } from './watch';

// k6's require. webpack.config.js points a require() of a module in once.js's table (lib/k6/once.ts)
// at once.js beside the bundle (dist/once.js, dist/sse/once.js): k6 evaluates a bundle in every
// VU, and what only VU 0 runs is kept out of what every VU evaluates (docs/fidelity.md, "What a VU
// holds").
declare function require(id: string): unknown;

/** A module that once.js holds, or the one line that says once.js is not beside the bundle. */
function fromOnce<T>(load: () => T): T | { error: string } {
  try {
    return load();
  } catch (e) {
    return {
      error:
        `k6-llm-bench: cannot load once.js, which must sit beside this bundle (setup, every report and the configuration's reader are in it): ` +
        `run the bundle from its dist/ folder, or copy dist/once.js (dist/sse/once.js for the sse bundles) with it (${String(e)})`,
    };
  }
}

/**
 * The Bench of this VU. VU 0 reads the configuration (bench-context.ts, in once.js); every other
 * VU takes what VU 0 read (handoff.ts), and so never evaluates the parser, the plan's builder or
 * the catalog. Where VU 0 handed nothing over (a bad configuration), a VU reads it itself.
 */
function benchOf(spec: BenchmarkSpec): BenchContext.Bench | { error: string } {
  const h = __VU === 0 ? null : handedOver();
  if (h !== null) return fromHandoff(spec, h);
  const ctx = fromOnce(() => require('./bench-context') as typeof BenchContext);
  return 'error' in ctx ? ctx : ctx.loadBenchmark(spec);
}

export function defineBenchmark(spec: BenchmarkSpec) {
  const b = benchOf(spec);
  // A bad variable or file: setup() stops the run with one line, before any load.
  if ('error' in b) return stopAtSetup(b.error);
  // setup() and handleSummary() run in VU 0 only: the VUs that send requests never load them.
  const mod = __VU === 0 ? fromOnce(() => require('./vu0') as typeof Vu0) : null;
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
