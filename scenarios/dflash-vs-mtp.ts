// A/B: two deployments (DFLASH_URL, MTP_URL) on the same seeded workload over the matrix
// ISL × OSL × CONCURRENCY, runs alternating between them cell by cell. The summary gives each
// cell's speedup with a 95% bootstrap interval and a plain verdict.
import { defineBenchmark } from '../lib/k6/benchmark';

const b = defineBenchmark({ name: 'dflash-vs-mtp', report: 'ab', load: 'vus' });

export const options = b.options;
export const setup = b.setup;
export const measure = b.measure;
export const probe = b.probe;
export const handleSummary = b.handleSummary;
export default b.measure;
