// Preflight only, in about 30 seconds: can this server be benchmarked? Checks reachability,
// dialect, model, a one-token generation under PREFLIGHT_TIMEOUT, warm-up, then a few requests.
import { defineBenchmark } from '../lib/k6/benchmark';

const b = defineBenchmark({
  name: 'smoke',
  report: 'smoke',
  load: 'vus',
  defaults: { ISL: '128', OSL: '16', CONCURRENCY: '1', REQUESTS: '3', DURATION: '20s', WARMUP_REQUESTS: '1' },
});

export const options = b.options;
export const setup = b.setup;
export const measure = b.measure;
export const probe = b.probe;
export const handleSummary = b.handleSummary;
export default b.measure;
