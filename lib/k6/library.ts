// The k6 side of the public library (lib/api/): the few calls into k6 it needs, behind plain
// functions, so that lib/api itself stays free of k6 imports like the rest of lib/.
import exec from 'k6/execution';
import { SharedArray } from 'k6/data';
import { METRICS } from '../metrics/catalog';
import { createMetrics, type K6Metrics } from './metrics';
import { sendHttp, sseSenderWith, type Send, type SseModule } from './transport';

export { k6Port } from './k6-http-port';
export type { Send, SseModule } from './transport';

let metrics: K6Metrics | null = null;

/** The catalog's k6 metrics, created once per VU (k6 allows it only in the init context). */
export function libraryMetrics(): K6Metrics {
  if (metrics === null) metrics = createMetrics(METRICS);
  return metrics;
}

/** What the library needs of the k6 scenario a VU is running; null outside one (setup, teardown, handleSummary). */
export interface ScenarioNow {
  name: string;
  /** Client clock when the scenario started (ms since the epoch). */
  startMs: number;
}

export function scenarioNow(): ScenarioNow | null {
  try {
    const s = exec.scenario;
    return { name: s.name, startMs: s.startTime };
  } catch {
    return null;
  }
}

/** The test's scenarios as k6 consolidated them (its `default` one included); null when k6 does not say. */
export function testScenarios(): Record<string, Record<string, unknown>> | null {
  try {
    const s = (exec.test.options as { scenarios?: Record<string, Record<string, unknown>> }).scenarios;
    return s && typeof s === 'object' ? s : null;
  } catch {
    return null;
  }
}

/** The run's `testid` tag, when the user set one (k6 --tag testid=…). */
export function testId(): string | null {
  try {
    return (exec.test.options.tags as Record<string, string> | undefined)?.testid ?? null;
  } catch {
    return null;
  }
}

/** Stops the whole test with this message (k6 prints "test aborted: …" and exits 108). */
export function abortTest(message: string): never {
  exec.test.abort(message);
  throw new Error(message);
}

export const httpSender = (): Send => sendHttp;

/**
 * The sse sender. `module` is the xk6-sse module when the user imported it (`import sse from
 * 'k6/x/sse'`, which also lets k6 >= 1.0 provision the extension); otherwise k6's global require
 * loads it here, in the init context, under a name built at run time: a bundler never sees it, and
 * k6 never provisions the extension for a script that uses only http.
 */
export function sseSender(module?: unknown): Send {
  let said = '';
  let loaded: unknown = module;
  if (loaded === undefined) {
    const req = (globalThis as { require?: (id: string) => unknown }).require;
    try {
      if (typeof req !== 'function') throw new Error('no require() in this context');
      loaded = req(['k6', 'x', 'sse'].join('/'));
    } catch (e) {
      said = String(e);
    }
  }
  // k6 v1 throws for an unknown module; k6 v2 hands back an empty placeholder.
  if (loaded && typeof (loaded as SseModule).open === 'function') return sseSenderWith(loaded as SseModule);
  throw new Error(
    "k6-llm-bench: transport 'sse' needs a k6 binary with the xk6-sse extension. Build one with " +
      '`xk6 build --with github.com/phymbert/xk6-sse`, or let k6 (v1.0 or newer, with network access) provision it: ' +
      "import the extension's module in your script and pass it as the client's `sse` option (docs/library.md); or use transport 'http'. " +
      'Create the client in the init context (at the top of the script). ' +
      `(k6: ${said || 'the extension is not in this build'})`,
  );
}

/** A read-only array shared by every VU (k6's SharedArray), built once by `make`. */
export function sharedArray<T>(name: string, make: () => T[]): T[] {
  return new SharedArray(name, make) as unknown as T[];
}

/** k6's open(): a file's text, read in the init context (relative paths: from the script k6 runs). */
export function readText(path: string): string {
  return open(path);
}
