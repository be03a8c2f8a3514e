// What `npm start` runs in place of each variant of a benchmark: the engine the simulator imitates
// and its speculative profile. The benchmarks (lib/benchmarks.ts) name their variants; this is the
// simulator's side of them, kept here so that lib/ holds nothing of the simulator.
import type { EngineName } from './imitations';
import type { SpecMode } from './options';

export interface StandIn {
  engine: EngineName;
  spec: SpecMode;
}

const SPECS: readonly SpecMode[] = ['none', 'mtp', 'dflash', 'ddtree'];

/** Variants whose stand-in is not the default one, by benchmark. */
const BY_BENCHMARK: Record<string, Record<string, StandIn>> = {
  // The A/B: two deployments, each its own engine and speculative method.
  'dflash-vs-mtp': { dflash: { engine: 'sglang', spec: 'dflash' }, mtp: { engine: 'vllm', spec: 'mtp' } },
};

/**
 * The simulated server for one variant of a benchmark: as listed above; else SGLang with the
 * speculative profile of the variant's name (none, mtp, dflash, ddtree), the single-server
 * benchmarks' `target` with DFlash, and any other name without speculation.
 */
export function standIn(benchmark: string, variant: string): StandIn {
  const listed = BY_BENCHMARK[benchmark]?.[variant];
  if (listed) return listed;
  if (variant === 'target') return { engine: 'sglang', spec: 'dflash' };
  return { engine: 'sglang', spec: SPECS.includes(variant as SpecMode) ? (variant as SpecMode) : 'none' };
}
