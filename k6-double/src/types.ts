// Public types shared by the double (runK6) and the real-binary runner (runRealK6).

import type { SummaryData } from './metrics/summary';

export type { SummaryData, SummaryMetric } from './metrics/summary';
export type { GroupSummary, CheckSummary } from './metrics/groups';

export interface RunOptions {
  /**
   * Becomes __ENV (k6 --env). Unlike `k6 run`, the double does not add the system environment
   * unless `includeSystemEnv` is true (k6's --include-system-env-vars, default true in k6).
   */
  env?: Record<string, string>;
  includeSystemEnv?: boolean;
  /** Directory handleSummary's file outputs are written relative to. Default: process.cwd(). */
  cwd?: string;
  /** Hard cap on the whole run: on expiry everything is stopped and the promise rejects. */
  timeoutMs?: number;
  /** Extensions compiled into the simulated binary. Default: none. */
  extensions?: { sse?: boolean };
  /** Like `k6 run -q`: no execution/scenario description on stdout. */
  quiet?: boolean;
  /**
   * k6's --execution-segment ("1/2:1", "0.5:1", "50%:100%"; "1/2" means "0:1/2") and
   * --execution-segment-sequence ("0,1/2,1"): run this instance's share of a test split over
   * several instances. The double scales constant-vus, per-vu-iterations and shared-iterations as
   * k6 does and refuses the other executors (see README).
   */
  executionSegment?: string;
  executionSegmentSequence?: string;
  /** Also write stdout/stderr to this process as they are produced (debugging aid). */
  echo?: boolean;
}

export interface K6RunResult {
  exitCode: number;
  stdout: string;
  stderr: string;
  /** Absolute paths of the files handleSummary's result was written to. */
  files: string[];
  /** The object handleSummary received (undefined when the run ended before the summary). */
  summaryData: SummaryData | undefined;
  durationMs: number;
}
