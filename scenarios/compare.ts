// Benchmark compare: see BENCHMARKS.compare in lib/benchmarks.ts for the question it answers and its variables.
import { defineBenchmark } from '../lib/k6/lifecycle/bundle-init';
import { BENCHMARKS } from '../lib/benchmarks';

export const { options, setup, measure, probe, watch, handleSummary } = defineBenchmark(BENCHMARKS.compare);
export default measure;
