// A test double of the k6 runtime for running k6 bundles (dist/*.js) in Node, plus a runner for a
// real k6 binary with the same result shape. See docs/k6-double.md.

export { runK6, K6DoubleTimeoutError } from './runner.js';
export { findK6, runRealK6 } from './real-k6.js';
export { K6_VERSION } from './options.js';
export type { K6RunResult, RunOptions, SummaryData, SummaryMetric, GroupSummary, CheckSummary } from './types.js';
