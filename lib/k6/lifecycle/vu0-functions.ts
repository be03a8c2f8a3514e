// What only k6's VU 0 runs: setup() (preflight, the run record) and handleSummary() (every report,
// and the comparison with BASELINE). k6 runs a script's init code in every VU, and again in VU 0
// for the options, setup() and handleSummary(). bundle-init.ts requires this module in VU 0 alone,
// from once.js (once-table.ts), so the VUs that send requests never evaluate report rendering, charts,
// statistics, the comparison or the preflight's diagnosis.
import { readBaseline } from '../../compare/baseline';
import type { SetupData } from '../../variants';
import type { SummaryDataLike } from '../../report/build-report';
import type { Bench } from './vu0-config';
import { configErrorOf } from '../config-error';
import { makeSetup } from '../setup';
import { makeSummary } from '../handle-summary';

export interface Vu0Functions {
  setup: () => SetupData;
  handleSummary: (data: SummaryDataLike) => Record<string, string>;
}

/** setup() and handleSummary(), or the one-line message of a bad BASELINE. Call in the init context. */
export function vu0Functions(b: Bench): Vu0Functions | { error: string } {
  let baseline;
  try {
    // BASELINE: a summary.json this run is compared with at the end (lib/compare/baseline.ts).
    baseline = readBaseline(b.env, (path) => open(path));
  } catch (e) {
    return configErrorOf(b.spec, e);
  }
  return { setup: makeSetup(b), handleSummary: makeSummary(b, baseline) };
}
