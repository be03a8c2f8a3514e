// Benchmark dflash-vs-mtp: see BENCHMARKS['dflash-vs-mtp'] in lib/benchmarks.ts for the question it answers and its defaults.
import { defineBenchmark } from '../lib/k6/lifecycle/bundle-init';
import { BENCHMARKS } from '../lib/benchmarks';

export const { options, setup, measure, probe, watch, handleSummary } = defineBenchmark(BENCHMARKS['dflash-vs-mtp']);
export default measure;
