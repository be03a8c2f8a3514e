// Scenario smoke: see SCENARIOS['smoke'] in lib/scenarios.ts for the question it answers and its defaults.
import { defineBenchmark } from '../lib/k6/benchmark';
import { SCENARIOS } from '../lib/scenarios';

const b = defineBenchmark(SCENARIOS['smoke']);

export const options = b.options;
export const setup = b.setup;
export const measure = b.measure;
export const probe = b.probe;
export const handleSummary = b.handleSummary;
export default b.measure;
