// Where a benchmark's variables come from, in order of precedence: the environment, a JSON file
// named by CONFIG, the benchmark's own defaults, the bundle's default transport; and the checks
// that can only be made on the machine (RESULTS_DIR). Pure: k6's open() comes in as a function.
import { mergeFile, type Env } from './load';
import { ConfigError, quote } from './parse';
import { resultsDirProbePath, resultsDirState } from './results-dir';
import { RENAMED_VARIABLES, VARIABLES } from './variables';

/** Reads a file as k6's open() does (relative to the bundle); throws when it cannot. */
export type ReadFile = (path: string) => string;

export function benchmarkEnv(system: Env, read: ReadFile, defaults: Record<string, string> | undefined, defaultTransport: string | null): Env {
  let env: Env = { ...system };
  const path = env.CONFIG;
  if (path) {
    let text: string;
    try {
      text = read(path);
    } catch (e) {
      throw new ConfigError(
        `CONFIG=${quote(path)}: cannot read the file: k6 reads it relative to the bundle (dist/), so give an ` +
          `absolute path or one like ../my-config.json (${String(e)}).`,
      );
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (e) {
      throw new ConfigError(`CONFIG=${quote(path)}: not valid JSON (${String(e)}).`);
    }
    env = mergeFile(env, parsed, path);
  }
  env = renamedRead(env);
  for (const [k, v] of Object.entries(defaults ?? {})) if (env[k] === undefined || env[k] === '') env[k] = v;
  if (defaultTransport !== null && (env.TRANSPORT === undefined || env.TRANSPORT === '')) env.TRANSPORT = defaultTransport;
  return env;
}

/** A renamed variable set under its old name counts under the new one (unless that is set too), with a one-line note. */
function renamedRead(env: Env): Env {
  for (const [old, now] of Object.entries(RENAMED_VARIABLES)) {
    if (env[old] === undefined || env[old] === '') continue;
    console.warn(`${old} is renamed ${now}; the old name is still read until the next release.`);
    if (env[now] === undefined || env[now] === '') env[now] = env[old];
  }
  return env;
}

/** Stops at init when RESULTS_DIR is missing or a file, rather than losing the reports after the run. */
export function checkResultsDir(dir: string, workingDir: string | undefined, read: ReadFile): void {
  const path = resultsDirProbePath(dir, workingDir);
  if (path === null) return;
  let error: string | null = null;
  try {
    read(path);
  } catch (e) {
    error = String(e);
  }
  const state = resultsDirState(error);
  if (state === 'missing')
    throw new ConfigError(`RESULTS_DIR=${quote(dir)}: no such folder (${path}); create it (k6 cannot create folders) or point RESULTS_DIR at an existing one.`);
  if (state === 'file') throw new ConfigError(`RESULTS_DIR=${quote(dir)} is a file, not a folder (${path}).`);
}

/** The settings a run used, as a partial result records them: every known variable set, secrets left out. */
export function recordedVariables(env: Env): Record<string, string> {
  const out: Record<string, string> = {};
  for (const v of VARIABLES) {
    const value = env[v.name];
    if (!v.secret && value !== undefined && value !== '') out[v.name] = value;
  }
  return out;
}
