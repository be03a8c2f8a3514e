// What k6 itself says when Prometheus remote write fails: its experimental-prometheus-rw output
// keeps no counter of failed writes; it logs one error line per push that failed
// ("Failed to send the time series data to the endpoint") and drops that push's series (no retry,
// no buffer). So the loss is counted from k6's log: failed pushes × the push interval.
// Pure: the caller hands over k6's stderr text (logfmt, or --log-format json).

export const RW_FAILED = 'Failed to send the time series data to the endpoint';
/** k6 logs this warning when a push took longer than the push interval: samples may have been dropped. */
export const RW_SLOW = 'Some samples may be dropped';

export interface RemoteWriteLoss {
  /** Pushes that failed: each one's series never reached Prometheus. */
  failed: number;
  /** Pushes that were slower than the interval (k6: "some samples may be dropped"). */
  slow: number;
  firstAt: string | null;
  lastAt: string | null;
  /** The last failure's error, e.g. "connection refused". */
  lastError: string | null;
}

const field = (line: string, name: string): string | null => {
  const m = new RegExp(`(?:^|\\s|[{,])"?${name}"?[=:]"((?:[^"\\\\]|\\\\.)*)"`).exec(line);
  return m ? m[1].replace(/\\"/g, '"') : null;
};

/** Counts the remote-write failures in k6's log text. */
export function remoteWriteLoss(log: string): RemoteWriteLoss {
  const out: RemoteWriteLoss = { failed: 0, slow: 0, firstAt: null, lastAt: null, lastError: null };
  for (const line of log.split('\n')) {
    if (line.includes(RW_FAILED)) {
      out.failed++;
      const t = field(line, 'time');
      out.firstAt ??= t;
      out.lastAt = t;
      out.lastError = field(line, 'error');
    } else if (line.includes(RW_SLOW)) out.slow++;
  }
  return out;
}

/** One line for the terminal and the reports; null when every push arrived. */
export function lossSentence(loss: RemoteWriteLoss, pushIntervalMs: number, testRunDurationMs: number | null): string | null {
  if (loss.failed === 0 && loss.slow === 0) return null;
  const pushes = testRunDurationMs === null ? null : Math.max(loss.failed, Math.ceil(testRunDurationMs / pushIntervalMs));
  const secs = (loss.failed * pushIntervalMs) / 1000;
  const parts: string[] = [];
  if (loss.failed > 0) {
    parts.push(
      `Prometheus remote write: ${loss.failed}${pushes === null ? '' : ` of ~${pushes}`} pushes failed (${loss.firstAt ?? '?'} to ` +
        `${loss.lastAt ?? '?'}${loss.lastError ? `; last error: ${loss.lastError}` : ''}): ` +
        (`the series of about ${secs.toFixed(0)} s of the test (${pushIntervalMs / 1000} s per push) did not reach ` +
          `Prometheus; k6 does not retry them. The raw record and the reports have every sample.`),
    );
  }
  if (loss.slow > 0) parts.push(`${loss.slow} push(es) took longer than the push interval: k6 says some samples may have been dropped.`);
  return parts.join(' ');
}
