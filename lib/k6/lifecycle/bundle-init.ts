// The bundle's init, in every VU (VU 0 included): one mechanism behind every benchmark file:
// configuration at init, preflight in setup, the measuring exec function, the server-metrics probe
// and the end-of-test report. A benchmark is a BenchmarkSpec; scenarios/*.ts only re-export what
// defineBenchmark returns. The stages of a VU, in lib/k6/lifecycle/: bundle-init.ts (here),
// once-table.ts (what once.js holds), vu0-*.ts (VU 0), each-vu-bench.ts (each VU), each-run.ts
// (each run of a VU); docs/architecture.md draws them.
import type { BenchmarkSpec } from '../../benchmarks';
import type { Bench } from './each-vu-bench';
import { handedOver } from './vu0-handoff';
import { fromHandoff } from './each-vu-bench';
import { stopAtSetup } from '../config-error';
import { makeMeasure } from '../measure';
import { makeProbe } from '../probe-scenario';
import { makeWatch } from '../watch';

// VU 0's modules, from once.js beside the bundle (once-table.ts says how): k6 evaluates a bundle in
// every VU, and what only VU 0 runs is kept out of what every VU evaluates (docs/fidelity.md, "What
// a VU holds"). Each is a local door, a require() of its path that webpack.config.js turns into a
// read of once.js's table: an import would evaluate it in every VU.
declare function require(id: string): unknown;
const vu0Config = () => require('./vu0-config') as typeof import('./vu0-config');
const vu0Functions = () => require('./vu0-functions') as typeof import('./vu0-functions');

/** The one line that says once.js is not beside the bundle, or null where the door opens. */
function onceMissing(door: () => unknown): { error: string } | null {
  try {
    door();
    return null;
  } catch (e) {
    return {
      error:
        `k6-llm-bench: cannot load once.js, which must sit beside this bundle (setup, every report and the configuration's reader are in it): ` +
        `run the bundle from its dist/ folder, or copy dist/once.js (dist/sse/once.js for the sse bundles) with it (${String(e)})`,
    };
  }
}

/**
 * The Bench of this VU. VU 0 reads the configuration (vu0-config.ts, in once.js); every other
 * VU takes what VU 0 read (vu0-handoff.ts), and so never evaluates the parser, the plan's builder or
 * the catalog. Where VU 0 handed nothing over (a bad configuration), a VU reads it itself.
 */
function benchOf(spec: BenchmarkSpec): Bench | { error: string } {
  const h = __VU === 0 ? null : handedOver();
  if (h !== null) return fromHandoff(spec, h);
  return onceMissing(vu0Config) ?? vu0Config().loadBenchmark(spec);
}

export function defineBenchmark(spec: BenchmarkSpec) {
  const b = benchOf(spec);
  // A bad variable or file: setup() stops the run with one line, before any load.
  if ('error' in b) return stopAtSetup(b.error);
  // setup() and handleSummary() run in VU 0 only: the VUs that send requests never load them.
  const missing = __VU === 0 ? onceMissing(vu0Functions) : null;
  if (missing !== null) return stopAtSetup(missing.error);
  const vu0 = __VU === 0 ? vu0Functions().vu0Functions(b) : null;
  if (vu0 !== null && 'error' in vu0) return stopAtSetup(vu0.error);
  return {
    options: b.options,
    setup: vu0?.setup ?? onlyInVu0('setup'),
    measure: makeMeasure(b),
    probe: makeProbe(b),
    watch: makeWatch(b),
    handleSummary: vu0?.handleSummary ?? onlyInVu0('handleSummary'),
  };
}

function onlyInVu0(name: string): () => never {
  return () => {
    throw new Error(`k6-llm-bench: ${name}() ran in VU ${__VU}; k6 runs it in VU 0, where this bundle loads it`);
  };
}
