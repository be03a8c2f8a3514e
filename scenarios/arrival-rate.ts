// Benchmark arrival-rate: see BENCHMARKS['arrival-rate'] in lib/benchmarks.ts for the question it answers and its defaults.
import { defineBenchmark } from '../lib/k6/lifecycle/bundle-init';
import { BENCHMARKS } from '../lib/benchmarks';

export const { options, setup, measure, probe, watch, handleSummary } = defineBenchmark(BENCHMARKS['arrival-rate']);
export default measure;
