// A configuration error, said in one line. An exception thrown at init makes k6 print the
// JavaScript stack after the message; an abort in setup() prints the message alone ("test
// aborted: …", exit 108). So a bad variable or file yields a benchmark whose setup() says why and
// stops, before any VU sends anything, and whose summary writes no report.
import exec from 'k6/execution';
import type { BenchmarkSpec } from '../benchmarks';
import { ConfigError } from '../config/parse';

/** A ConfigError as the one line setup() stops with; any other exception is rethrown. */
export function configErrorOf(spec: BenchmarkSpec, e: unknown): { error: string } {
  if (e instanceof ConfigError) return { error: `k6-llm-bench ${spec.name}: ${e.message}` };
  throw e;
}

export function stopAtSetup(message: string) {
  const nothing = () => undefined;
  return {
    options: {
      scenarios: { configuration_error: { executor: 'shared-iterations' as const, vus: 1, iterations: 1, exec: 'measure' } },
      setupTimeout: '10s',
    },
    setup(): void {
      exec.test.abort(message);
    },
    measure: nothing,
    probe: nothing,
    watch: nothing,
    handleSummary: (): Record<string, string> => ({}),
  };
}
