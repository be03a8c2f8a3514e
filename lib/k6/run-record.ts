// The run record: one sample, taken at the end of setup, whose metadata holds the benchmark, its
// settings and setup's data, so that a raw record (k6 --out json) is read by `npm run report`
// on its own. Metadata reaches k6's JSON output but no time-series output: Prometheus sees one
// counter series of value 0 (k6_llm_run_record_total) and nothing else.
import exec from 'k6/execution';
import { Counter } from 'k6/metrics';
import { RUN_RECORD_FORMAT, RUN_RECORD_KEY, RUN_RECORD_METRIC, type RunRecordMeta } from '../raw/record';
import type { SetupData } from '../variants';

// k6 creates metrics in the init context only: this module is imported there.
const runRecord = new Counter(RUN_RECORD_METRIC);

/**
 * Call at the end of setup(): stamps the runs' start in the setup data (stoppedProgress reads it in
 * handleSummary) and writes the run record into the sample stream.
 */
export function writeRunRecord(benchmark: string, variables: Record<string, string>, setup: SetupData): void {
  setup.runsStartMs = Date.now();
  const meta: RunRecordMeta = { format: RUN_RECORD_FORMAT, benchmark, variables, setup };
  const md = exec.vu.metrics.metadata as Record<string, string | undefined>;
  md[RUN_RECORD_KEY] = JSON.stringify(meta);
  runRecord.add(0);
  delete md[RUN_RECORD_KEY];
}
