// One target, stepped concurrency levels (constant-vus per level, one after another): where does
// throughput stop growing while latency climbs — the knee?
import { ConfigError } from '../lib/config/parse';
import { defineBenchmark } from '../lib/k6/benchmark';

const b = defineBenchmark({
  name: 'concurrency-ramp',
  report: 'ramp',
  load: 'vus',
  defaults: { CONCURRENCY: '1,2,4,8,16,32,64' },
  validate(cfg) {
    if (cfg.concurrency.length < 2) throw new ConfigError('CONCURRENCY needs at least two levels for a ramp, e.g. CONCURRENCY=1,4,16,64.');
  },
});

export const options = b.options;
export const setup = b.setup;
export const measure = b.measure;
export const probe = b.probe;
export const handleSummary = b.handleSummary;
export default b.measure;
