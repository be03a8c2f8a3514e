// What VU 0's init hands the VUs that send requests, so that they never evaluate the code that
// makes it: the configuration's parser and its variables, the plan, the metric catalog's texts
// (docs/fidelity.md, "What a VU holds"). k6 initialises VU 0 (the one that reads the options)
// before every other VU, and a SharedArray made there is the same array in each VU of the
// process; the others only read it. It holds one element: the JSON below.
import { SharedArray } from 'k6/data';
import type { BenchConfig, Env } from '../../config/config-types';
import type { Plan } from '../../plan/plan-types';
import type { MetricDecls } from '../metrics';

export interface Handoff {
  env: Env;
  cfg: BenchConfig;
  plan: Plan;
  metrics: MetricDecls;
}

const NAME = 'k6-llm-bench:vu-handoff';

/** In VU 0's init. */
export function handOff(h: Handoff): void {
  new SharedArray(NAME, () => [JSON.stringify(h)]);
}

/** In another VU's init: what VU 0 handed over, or null where it handed nothing (a bad configuration). */
export function handedOver(): Handoff | null {
  const a = new SharedArray(NAME, () => []) as unknown as ArrayLike<string>;
  return a.length > 0 ? (JSON.parse(a[0]) as Handoff) : null;
}
