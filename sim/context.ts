// What every route handler needs from the running simulator.
import type { BatchScheduler } from './scheduler/batch-scheduler';
import type { Imitation } from './imitations';
import type { Recorder } from './ground-truth';
import type { GpuMeter } from './gpu';
import type { Metrics } from './metrics';
import type { SimOptions } from './options';
import { Rng, deriveSeed } from './rng';
import type { Tokenizer } from './tokenizer';

export interface SimContext {
  /** Current options; `o.faults` changes at run time through setFaults and POST /sim/faults. */
  readonly o: SimOptions;
  /** How the simulator imitates the engine it serves as (IMITATIONS[o.engine]). */
  readonly imitation: Imitation;
  readonly scheduler: BatchScheduler;
  readonly tokenizer: Tokenizer;
  readonly recorder: Recorder;
  readonly metrics: Metrics;
  /** The simulated GPUs' power and energy (sim/gpu.ts). */
  readonly gpu: GpuMeter;
  /** False during the startup delay. */
  ready(): boolean;
  /** Arrival order of generation requests: seeds each request's draws. */
  nextOrdinal(): number;
}

/** A request id that is reproducible for a seed and arrival order: 32 hex digits, like uuid4().hex. */
export function requestHex(seed: number, ordinal: number): string {
  const r = new Rng(deriveSeed(seed, ordinal, 0x1d));
  let s = '';
  for (let i = 0; i < 4; i++)
    s += Math.floor(r.next() * 2 ** 32)
      .toString(16)
      .padStart(8, '0');
  return s;
}
