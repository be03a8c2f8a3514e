// Scenario context-matrix: see SCENARIOS['context-matrix'] in lib/scenarios.ts for the question it answers and its defaults.
import { defineBenchmark } from '../lib/k6/benchmark';
import { SCENARIOS } from '../lib/scenarios';

export const { options, setup, measure, probe, handleSummary } = defineBenchmark(SCENARIOS['context-matrix']);
export default measure;
