// Runs a scenario bundle on the k6 test double and, when a k6 binary is found, on real k6 too:
// one test body, two runtimes.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findK6, runK6, runRealK6, type K6RunResult } from '../../k6-double';

export const ROOT = join(__dirname, '..', '..');

export interface Runner {
  name: string;
  /** Why it cannot run here, or null. */
  skip: string | null;
  run(scenario: string, env: Record<string, string>, timeoutMs: number, opts?: { sse?: boolean }): Promise<Run>;
  /** Why this runtime cannot use the sse transport, or null. */
  sseSkip: string | null;
  /** The runtime itself, for drivers that run bundles of their own choosing (the capacity search). */
  exec: typeof runK6;
}

export interface Run {
  result: K6RunResult;
  /** summary.json as written by handleSummary; null when none was written. */
  summary: SummaryJson | null;
  wallMs: number;
}

// The fields of summary.json the tests read.
export interface SummaryJson {
  records: Array<{
    cell: string;
    variant: string;
    requests: number;
    requests_ok: number;
    requests_failed: number;
    unreachable_attempts: number;
    errors_by_class: Record<string, number>;
    output_throughput_tokens_per_s: number | null;
    acceptance_length_tokens_per_step: number | null;
    acceptance_length_source: string | null;
    ttft_ms: { p50: number; avg: number; count: number } | null;
    itl_ms: { p50: number; avg: number; count: number } | null;
    e2e_ms: { p50: number; avg: number } | null;
    window_ms: { from: number; to: number } | null;
  }>;
  comparisons: Array<{ cell: string; throughput_ratio_a_over_b: number | null; throughput_ratio_ci95: [number, number] | null; verdict: string }>;
  preflight_failures: Array<{ variant: string; reason: string; headline?: string }>;
  errors_by_class: Record<string, number>;
  targets: Array<{ variant: string; model: string; dialect: string }>;
  warnings: string[];
}

function runner(name: string, skip: string | null, sseSkip: string | null, exec: typeof runK6): Runner {
  return {
    name,
    skip,
    sseSkip,
    exec,
    async run(scenario, env, timeoutMs, opts = {}) {
      const cwd = mkdtempSync(join(tmpdir(), 'llm-bench-'));
      const t0 = Date.now();
      const result = await exec(join(ROOT, 'dist', `${scenario}.js`), {
        cwd,
        env: { RESULTS_DIR: '.', RUN_ID: 'test', ...env },
        timeoutMs,
        quiet: true,
        extensions: { sse: opts.sse ?? true },
      });
      const file = result.files.find((f) => f.endsWith('.summary.json'));
      let summary: SummaryJson | null = null;
      try {
        if (file) summary = JSON.parse(readFileSync(file, 'utf8')) as SummaryJson;
      } catch {
        summary = null;
      }
      return { result, summary, wallMs: Date.now() - t0 };
    },
  };
}

// Tests talk to loopback only: no k6 usage report, no download of extension builds.
process.env.K6_NO_USAGE_REPORT = 'true';
process.env.K6_AUTO_EXTENSION_RESOLUTION = 'false';

const k6 = findK6();
const k6HasSse = k6 !== null && /xk6-sse/.test(spawnSync(k6, ['version'], { encoding: 'utf8' }).stdout ?? '');
export const RUNNERS: Runner[] = [
  runner('k6 test double', null, null, runK6),
  runner(
    'real k6',
    k6 ? null : 'no k6 binary: set K6_BIN or put k6 on PATH',
    k6HasSse ? null : `${k6 ?? 'k6'} has no xk6-sse extension: set K6_BIN to a build with it`,
    (script, opts) => runRealK6(script, opts),
  ),
];

/** Fails with k6's own output, which says what went wrong. */
export function explain(r: Run): string {
  return `exit ${r.result.exitCode}\n--- stdout\n${r.result.stdout.slice(-3000)}\n--- stderr\n${r.result.stderr.slice(-3000)}`;
}
