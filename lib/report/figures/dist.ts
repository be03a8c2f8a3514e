// A distribution as the end-of-test summary gives it: a leaf type, shared by the per-run figures
// (run-figures.ts) and the client self-check.
export interface Dist {
  avg: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
  count: number;
  /** Read from log-bucket counts (ITL_SAMPLES=histogram): quantiles within lib/stats/log-buckets.ts's RELATIVE_ERROR. */
  bucketed?: boolean;
}
