// Scenario dflash-vs-mtp: see SCENARIOS['dflash-vs-mtp'] in lib/scenarios.ts for the question it answers and its defaults.
import { defineBenchmark } from '../lib/k6/benchmark';
import { SCENARIOS } from '../lib/scenarios';

export const { options, setup, measure, probe, handleSummary } = defineBenchmark(SCENARIOS['dflash-vs-mtp']);
export default measure;
