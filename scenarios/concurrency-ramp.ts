// Scenario concurrency-ramp: see SCENARIOS['concurrency-ramp'] in lib/scenarios.ts for the question it answers and its defaults.
import { defineBenchmark } from '../lib/k6/benchmark';
import { SCENARIOS } from '../lib/scenarios';

export const { options, setup, measure, probe, handleSummary } = defineBenchmark(SCENARIOS['concurrency-ramp']);
export default measure;
