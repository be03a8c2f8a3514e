// A test double of the k6 runtime for running k6 bundles (dist/*.js) in Node, plus a runner for a
// real k6 binary with the same result shape. The package's only public entry; see README.md.

export { runK6, K6DoubleTimeoutError } from './src/runner';
export { findK6, runRealK6 } from './src/real-k6';
export { K6_VERSION } from './src/options';
export type { K6RunResult, RunOptions, SummaryData, SummaryMetric, GroupSummary, CheckSummary } from './src/types';
