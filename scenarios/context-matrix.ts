// One target, the ISL × OSL grid at a fixed concurrency: how latency and throughput move with
// context and output length.
import { ConfigError } from '../lib/config/parse';
import { defineBenchmark } from '../lib/k6/benchmark';

const b = defineBenchmark({
  name: 'context-matrix',
  report: 'context',
  load: 'vus',
  defaults: { ISL: '128,1024,4096', OSL: '128,512', CONCURRENCY: '4' },
  validate(cfg) {
    if (cfg.concurrency.length !== 1) {
      throw new ConfigError(`CONCURRENCY=${cfg.concurrency.join(',')}: context-matrix runs at one concurrency; give one value (use dflash-vs-mtp or concurrency-ramp for several).`);
    }
  },
});

export const options = b.options;
export const setup = b.setup;
export const measure = b.measure;
export const probe = b.probe;
export const handleSummary = b.handleSummary;
export default b.measure;
