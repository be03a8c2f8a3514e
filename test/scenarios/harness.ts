// Runs a scenario bundle on the real k6 binary the tests were given (K6_BIN, else `k6` on PATH).
// Without one every test that needs it is skipped with a reason starting NEEDS_K6, which test/run.mjs
// counts; with REQUIRE_K6=1 (set by .ci/run) a missing binary fails instead.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findK6, k6Info, runK6, type K6Info, type K6RunResult } from '../../scripts/k6-runtime';

export const ROOT = join(__dirname, '..', '..');

/** The start of every skip reason that means "no k6 here"; test/run.mjs counts these. */
export const NEEDS_K6 = 'needs k6';

export interface Runner {
  name: string;
  /** Why it cannot run here, or null. */
  skip: string | null;
  run(scenario: string, env: Record<string, string>, timeoutMs: number): Promise<Run>;
  /** Why this runtime cannot use the sse transport, or null. */
  sseSkip: string | null;
  /** The runtime itself, for drivers that run bundles of their own choosing (the capacity search). */
  exec: typeof runK6;
  /** The binary's version and extensions; null without one. */
  k6: K6Info | null;
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
    ttst_ms?: { p50: number; avg: number; count: number } | null;
    itl_ms: { p50: number; avg: number; count: number } | null;
    e2e_ms: { p50: number; avg: number } | null;
    window_ms: { from: number; to: number } | null;
  }>;
  comparisons: Array<{ cell: string; throughput_ratio_a_over_b: number | null; throughput_ratio_ci: [number, number] | null; verdict: string }>;
  preflight_failures: Array<{ variant: string; reason: string; headline?: string }>;
  errors_by_class: Record<string, number>;
  variants: Array<{ variant: string; model: string; dialect: string }>;
  warnings: string[];
}

function runner(name: string, k6: K6Info | null, skip: string | null, sseSkip: string | null): Runner {
  const exec: typeof runK6 = (script, opts) => runK6(script, { ...opts, bin: k6?.bin });
  return {
    name,
    k6,
    skip,
    sseSkip,
    exec,
    async run(scenario, env, timeoutMs) {
      const cwd = mkdtempSync(join(tmpdir(), 'llm-bench-'));
      const t0 = Date.now();
      const result = await exec(join(ROOT, 'dist', `${scenario}.js`), {
        cwd,
        env: { RESULTS_DIR: '.', RUN_ID: 'test', ...env },
        timeoutMs,
        quiet: true,
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

function theK6(): K6Info | null {
  const bin = findK6();
  if (bin) return k6Info(bin);
  const why = process.env.K6_BIN ? `K6_BIN=${process.env.K6_BIN} is not an executable file` : 'K6_BIN is unset and there is no k6 on PATH';
  if (process.env.REQUIRE_K6 === '1') throw new Error(`REQUIRE_K6=1 and ${why}`);
  return null;
}

const k6 = theK6();
export const K6 = k6;
export const RUNNERS: Runner[] = [
  runner(
    k6 ? `k6 ${k6.version ?? k6.banner}${k6.hasSse ? ' + xk6-sse' : ''}` : 'k6',
    k6,
    k6 ? null : `${NEEDS_K6}: no k6 binary (set K6_BIN or put k6 on PATH)`,
    k6?.hasSse ? null : `${NEEDS_K6} with xk6-sse: ${k6 ? `${k6.bin} has no k6/x/sse` : 'no k6 binary'} (set K6_BIN to a build with it)`,
  ),
];

/** Fails with k6's own output, which says what went wrong. */
export function explain(r: Run): string {
  return `exit ${r.result.exitCode}\n--- stdout\n${r.result.stdout.slice(-3000)}\n--- stderr\n${r.result.stderr.slice(-3000)}`;
}
