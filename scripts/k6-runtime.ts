// Finding and running the k6 binary: the one place `npm start`, `npm run capacity`, the benchmarks and the
// tests learn which k6 they have (K6_BIN, else `k6` on PATH), its version, and whether it has xk6-sse.

import { spawn, spawnSync } from 'node:child_process';
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

/** The k6 versions the suite's own tests run on (CI: .ci/run and .github/workflows/test.yml). */
export const TESTED_K6 = ['v1.3', 'v2.2'] as const;

/** The module name xk6-sse registers; `k6 version` lists it whatever the extension's Go module is called. */
export const SSE_MODULE = 'k6/x/sse';

export const INSTALL_K6 = [
  `k6 is not installed (looked at K6_BIN and PATH). Install k6 (tested: ${TESTED_K6.join(' and ')}), then run this again:`,
  "  Debian/Ubuntu: add Grafana's k6 apt repository (k6 installation docs), then apt-get install k6",
  '  macOS:         brew install k6',
  '  Docker:        docker run --rm -v "$PWD/dist:/dist" grafana/k6 run /dist/smoke.js',
  '  Any OS:        download a release binary from github.com/grafana/k6/releases and set K6_BIN=/path/to/k6',
  '  GitHub Actions: uses: grafana/setup-k6-action@v1',
].join('\n');

export const INSTALL_SSE = [
  `TRANSPORT=sse needs a k6 binary with the xk6-sse extension (module ${SSE_MODULE}). Either`,
  '  build one: xk6 build --with github.com/phymbert/xk6-sse, and set K6_BIN to it, or',
  '  let k6 (v1.0 or newer, with network access) provision one for the bundle in dist/sse/: leave K6_AUTO_EXTENSION_RESOLUTION unset.',
].join('\n');

/**
 * The k6 binary: $K6_BIN when set (null if that is not an executable file), else `k6` from PATH;
 * null when neither exists.
 */
export function findK6(env: NodeJS.ProcessEnv = process.env): string | null {
  const fromEnv = env.K6_BIN;
  if (fromEnv) return isExecutable(fromEnv) ? fromEnv : null;
  for (const dir of (env.PATH ?? '').split(path.delimiter)) {
    if (!dir) continue;
    const candidate = path.join(dir, process.platform === 'win32' ? 'k6.exe' : 'k6');
    if (isExecutable(candidate)) return candidate;
  }
  return null;
}

function isExecutable(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

export interface K6Info {
  bin: string;
  /** "v2.2.0"; null when `k6 version` printed no version. */
  version: string | null;
  major: number | null;
  minor: number | null;
  /** Whether the binary has xk6-sse compiled in. */
  hasSse: boolean;
  /** The first line of `k6 version`. */
  banner: string;
}

/** Reads `k6 version` of a binary. Throws with k6's output when it does not run. */
export function k6Info(bin: string): K6Info {
  const r = spawnSync(bin, ['version'], { encoding: 'utf8', timeout: 30_000 });
  if (r.status !== 0) throw new Error(`${bin} version failed (${r.error?.message ?? `exit ${r.status}`}): ${(r.stderr ?? '').trim()}`);
  return parseK6Version(bin, r.stdout);
}

/** `k6 version` output → K6Info. Exported for tests. */
export function parseK6Version(bin: string, out: string): K6Info {
  const banner = out.trim().split('\n')[0] ?? '';
  const m = /\bv(\d+)\.(\d+)\.(\d+)\S*/.exec(banner);
  // Extensions are listed one per line as "<go module> <version>, <js module> [js]".
  const hasSse = out.split('\n').some((l) => new RegExp(`(^|[\\s,])${SSE_MODULE.replace(/\//g, '\\/')}\\s+\\[js\\]`).test(l));
  return { bin, version: m ? m[0] : null, major: m ? Number(m[1]) : null, minor: m ? Number(m[2]) : null, hasSse, banner };
}

/** A warning when the binary's version is not one the suite is tested on; null when it is. */
export function versionWarning(info: K6Info): string | null {
  if (info.major === null) return `could not read k6's version from "${info.banner}"; the suite is tested on k6 ${TESTED_K6.join(' and ')}`;
  const tested = TESTED_K6.some((t) => t === `v${info.major}.${info.minor}`);
  if (tested) return null;
  if (info.major < 1)
    return `k6 ${info.version} is older than the versions this suite is tested on (${TESTED_K6.join(', ')}); upgrade if a bundle fails to start`;
  return `k6 ${info.version}: the suite is tested on ${TESTED_K6.join(' and ')}`;
}

export interface RunOptions {
  /** Becomes __ENV (k6 -e). The system environment is not added unless includeSystemEnv is true. */
  env?: Record<string, string>;
  includeSystemEnv?: boolean;
  /** Directory k6 runs in (handleSummary's relative file outputs land here). Default: process.cwd(). */
  cwd?: string;
  /** Hard cap on the whole run: on expiry k6 is killed and the promise rejects. */
  timeoutMs?: number;
  /** k6 run --quiet. */
  quiet?: boolean;
  /** k6's --execution-segment and --execution-segment-sequence. */
  executionSegment?: string;
  executionSegmentSequence?: string;
  /** Also write k6's output to this process as it comes (debugging aid). */
  echo?: boolean;
  /** The binary; default findK6(). */
  bin?: string;
}

/** What handleSummary received: the parts the tests read. */
export interface SummaryData {
  metrics: Record<string, { type: string; contains?: string; values: Record<string, number>; thresholds?: Record<string, { ok: boolean }> }>;
  [key: string]: unknown;
}

export interface K6RunResult {
  exitCode: number;
  stdout: string;
  stderr: string;
  /** Absolute paths of the files handleSummary's result was written to. */
  files: string[];
  /** The object handleSummary received (undefined when the test ended before the summary). */
  summaryData: SummaryData | undefined;
  durationMs: number;
}

/**
 * Runs a script on k6. To capture what handleSummary receives, the script is loaded through a small
 * wrapper (an ES module for an ES module, else CommonJS) written next to it (so open() paths resolve the same way) whose handleSummary calls
 * the script's and adds one more output: a JSON file with the data and the output keys.
 */
export async function runK6(scriptPath: string, opts: RunOptions = {}): Promise<K6RunResult> {
  const k6 = opts.bin ?? findK6();
  if (!k6) throw new Error(INSTALL_K6);
  const script = path.resolve(scriptPath);
  const cwd = opts.cwd ?? process.cwd();
  const sidecar = path.join(os.tmpdir(), `k6-summary-${crypto.randomBytes(6).toString('hex')}.json`);
  const wrapper = writeWrapper(script, sidecar);
  const args = ['run', '--no-usage-report', `--include-system-env-vars=${opts.includeSystemEnv ? 'true' : 'false'}`];
  if (opts.quiet) args.push('--quiet');
  if (opts.executionSegment !== undefined) args.push('--execution-segment', opts.executionSegment);
  if (opts.executionSegmentSequence !== undefined) args.push('--execution-segment-sequence', opts.executionSegmentSequence);
  for (const [k, v] of Object.entries(opts.env ?? {})) args.push('-e', `${k}=${v}`);
  args.push(wrapper);

  const t0 = performance.now();
  try {
    const { exitCode, stdout, stderr } = await run(k6, args, cwd, opts);
    let summaryData: SummaryData | undefined;
    let files: string[] = [];
    if (fs.existsSync(sidecar)) {
      const captured = JSON.parse(fs.readFileSync(sidecar, 'utf8')) as { data: SummaryData; keys: string[] };
      summaryData = captured.data;
      files = captured.keys.filter((k) => k !== 'stdout' && k !== 'stderr').map((k) => path.resolve(cwd, k));
    }
    return { exitCode, stdout, stderr, files, summaryData, durationMs: performance.now() - t0 };
  } finally {
    fs.rmSync(wrapper, { force: true });
    fs.rmSync(sidecar, { force: true });
  }
}

function writeWrapper(script: string, sidecar: string): string {
  const file = path.join(path.dirname(script), `.k6-run-wrapper-${crypto.randomBytes(4).toString('hex')}.js`);
  const capture = (inner: string) => `function (data) {
  const result = typeof ${inner}.handleSummary === "function" ? ${inner}.handleSummary(data) || {} : {};
  const out = Object.assign({}, result);
  out[${JSON.stringify(sidecar)}] = JSON.stringify({ data: data, keys: Object.keys(result) });
  return out;
}`;
  const src = fs.readFileSync(script, 'utf8');
  // The project's bundles are ES modules (webpack.config.js says why); a user's script may be CommonJS.
  const esm = /^(?:import|export)\b/m.test(src);
  const at = JSON.stringify(script);
  const source = esm
    ? `// Generated by scripts/k6-runtime.ts; removed after the run.
import * as inner from ${at};
export * from ${at};
${/\bas default\b|^export default\b/m.test(src) ? `export { default } from ${at};\n` : ''}// Without a handleSummary of its own the script's ` +
      `default summary is not printed: the data is captured instead.
export const handleSummary = ${capture('inner')};
`
    : `// Generated by scripts/k6-runtime.ts; removed after the run.
const inner = require(${at});
const outer = Object.assign({}, inner);
// Without a handleSummary of its own the script's default summary is not printed: the data is captured instead.
outer.handleSummary = ${capture('inner')};
module.exports = outer;
`;
  fs.writeFileSync(file, source);
  return file;
}

function run(bin: string, args: string[], cwd: string, opts: RunOptions): Promise<{ exitCode: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(bin, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => {
      stdout += d;
      if (opts.echo) process.stdout.write(d);
    });
    child.stderr.on('data', (d: Buffer) => {
      stderr += d;
      if (opts.echo) process.stderr.write(d);
    });
    const timer = opts.timeoutMs
      ? setTimeout(() => {
          child.kill('SIGKILL');
          reject(new Error(`k6 did not finish within timeoutMs=${opts.timeoutMs}\n${stderr}`));
        }, opts.timeoutMs)
      : undefined;
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ exitCode: code ?? (signal ? 128 : 1), stdout, stderr });
    });
  });
}
