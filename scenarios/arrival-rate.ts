// One target, open model: requests arrive at RATE per second whether or not earlier ones are
// done (constant-arrival-rate). Finds the rate where the server falls behind: dropped
// iterations, completions below the offered rate, queueing.
import { defineBenchmark } from '../lib/k6/benchmark';

const b = defineBenchmark({ name: 'arrival-rate', report: 'arrival', load: 'rate' });

export const options = b.options;
export const setup = b.setup;
export const measure = b.measure;
export const probe = b.probe;
export const handleSummary = b.handleSummary;
export default b.measure;
