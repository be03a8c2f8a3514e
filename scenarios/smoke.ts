// Scenario smoke: see SCENARIOS['smoke'] in lib/scenarios.ts for the question it answers and its defaults.
import { defineBenchmark } from '../lib/k6/benchmark';
import { SCENARIOS } from '../lib/scenarios';

export const { options, setup, measure, probe, handleSummary } = defineBenchmark(SCENARIOS['smoke']);
export default measure;
