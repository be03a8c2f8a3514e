// The raw record of a run: k6's own JSON output (`--out json=<run>.raw.json.gz`, gzip by the name),
// written while the run goes, and its sidecar `<run>.run.json` (the benchmark and its settings,
// written before k6 starts), from which `npm run report` rebuilds the reports of a run that was
// killed or stopped. `npm start` writes both unless --no-raw.
import { createReadStream, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createGunzip } from 'node:zlib';
import { createInterface } from 'node:readline';
import { dirname, isAbsolute, join } from 'node:path';
import { BENCHMARKS } from '../lib/benchmarks';
import { benchmarkEnv, recordedVariables } from '../lib/config/environment';
import type { Env } from '../lib/config/load';
import { RUN_RECORD_FORMAT, type RunRecordMeta } from '../lib/raw/record';
import { METRICS } from '../lib/metrics/catalog';

/** `<dir>/<run id>[.segment-…].raw.json.gz` */
export function rawRecordPath(dir: string, runId: string, segmentSuffix = ''): string {
  return join(dir, `${runId}${segmentSuffix}.raw.json.gz`);
}

/** The sidecar of a raw record: `x.raw.json.gz` → `x.run.json`. */
export function sidecarPath(record: string): string {
  return record.replace(/(\.raw)?\.json(\.gz)?$/, '') + '.run.json';
}

/** k6's --out argument for a raw record. */
export function rawRecordArgs(record: string): string[] {
  return ['--out', `json=${record}`];
}

/**
 * Writes the sidecar: the benchmark and the settings k6 will read (the environment, CONFIG's file
 * read as k6 reads it, relative to the bundle, the benchmark's defaults), secrets left out.
 */
export function writeSidecar(record: string, benchmark: string, env: NodeJS.ProcessEnv, bundle: string, sseBundle: boolean): RunRecordMeta {
  const spec = BENCHMARKS[benchmark];
  const read = (p: string) => readFileSync(isAbsolute(p) ? p : join(dirname(bundle), p), 'utf8');
  const full = benchmarkEnv(env as Env, read, spec?.defaults, sseBundle ? 'sse' : null);
  const meta: RunRecordMeta = { format: RUN_RECORD_FORMAT, benchmark, variables: recordedVariables(full), setup: null };
  writeFileSync(sidecarPath(record), JSON.stringify(meta, null, 2) + '\n');
  return meta;
}

/**
 * Whether a raw record holds one request's outcome (an llm_success sample, written for every
 * request that ended, ok or not): a run stopped at init or in setup has none, and its record is
 * not worth a rebuild. Reads until the first such line; a missing or unreadable file holds none.
 */
export async function recordMeasuredAny(record: string): Promise<boolean> {
  if (!existsSync(record)) return false;
  const needle = `"metric":"${METRICS.success.name}"`;
  const file = createReadStream(record);
  const input = record.endsWith('.gz') ? file.pipe(createGunzip()) : file;
  const lines = createInterface({ input, crlfDelay: Infinity });
  try {
    for await (const line of lines) if (line.includes('"type":"Point"') && line.includes(needle)) return true;
  } catch {
    // A record cut off mid-write (gzip's end missing): what was read so far is the answer.
  } finally {
    lines.close();
    file.destroy();
  }
  return false;
}
