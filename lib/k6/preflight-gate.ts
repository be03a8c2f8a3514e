// The first iteration of every VU: a run whose preflight failed stops there, before anything is
// sent (setup() returns anyway, so that the reports receive the diagnosis in the setup data).
import exec from 'k6/execution';
import type { SetupData } from '../variants';

/** Stops the run at the first iteration when preflight failed (setup returned to hand the reports the diagnosis). */
export function abortIfPreflightFailed(data: SetupData): void {
  if (data.failures.length > 0) {
    exec.test.abort(`preflight failed, no load was sent:\n  ${data.failures.map((f) => f.message).join('\n  ')}`);
  }
}
