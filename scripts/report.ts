// npm run report -- [--out DIR] [--force] [--benchmark NAME] <run>.raw.json.gz …
// Rebuilds summary.json, report.md and report.html from a run's raw record (k6's own JSON output,
// `k6 run --out json=<run>.raw.json.gz`, which `npm start` writes by default): for a run that
// finished, the figures handleSummary wrote; for one that was killed or stopped, every run it
// finished, the run in flight marked incomplete with its partial figures, and where and why it
// stopped. The settings come from the record itself (the run record setup writes), else from the
// sidecar <run>.run.json npm start writes, else from this environment (the variables the k6 run
// was given) and --benchmark. Several records of one test (its instances' execution segments) are
// read as one: their samples pooled, so the percentiles are the whole run's.
import { closeSync, createReadStream, existsSync, fstatSync, mkdirSync, openSync, readFileSync, readSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import { constants, createGunzip } from 'node:zlib';
import { BENCHMARKS } from '../lib/benchmarks';
import { benchmarkEnv } from '../lib/config/environment';
import { loadConfig, type Env } from '../lib/config/load';
import { METRICS } from '../lib/metrics/catalog';
import { rebuiltFiles } from '../lib/raw/output';
import { RawRecord, RUN_RECORD_FORMAT, type RunRecordMeta } from '../lib/raw/record';
import { rebuild, RawRecordError, type Rebuilt } from '../lib/raw/rebuild';
import { renderText } from '../lib/report/render/text-report';
import { sidecarPath } from './raw-record';

export interface ReadRecord {
  rec: RawRecord;
  /** true: ended as k6 closes it (gzip trailer); false: cut off mid-write; null: a plain file, which cannot tell. */
  closed: boolean | null;
}

/** A gzip file's last four bytes: the length of what it holds, mod 2³² (its trailer, when k6 closed it). */
function gzipTrailerSize(path: string): number | null {
  const fd = openSync(path, 'r');
  try {
    const size = fstatSync(fd).size;
    if (size < 18) return null;
    const b = Buffer.alloc(4);
    readSync(fd, b, 0, 4, size - 4);
    return b.readUInt32LE(0);
  } finally {
    closeSync(fd);
  }
}

/**
 * Reads a raw record, gzip or plain, line by line (into `rec`, with others). A gzip stream cut off
 * (a killed k6) is read up to the cut: inflated with sync flushes, so that nothing decodable
 * before the cut is held back, and told from a closed one by its trailer (the length it holds).
 */
export async function readRawRecord(path: string, rec = new RawRecord()): Promise<ReadRecord> {
  const before = rec.lines;
  const gz = path.endsWith('.gz');
  let rest = '';
  let cut = false;
  const utf8 = new StringDecoder('utf8');
  let inflated = 0;
  await new Promise<void>((resolve, reject) => {
    const file = createReadStream(path);
    file.on('error', (e) => reject(new RawRecordError(`${path}: cannot read (${(e as NodeJS.ErrnoException).code ?? e.message})`)));
    const onData = (d: Buffer | string) => {
      const text = rest + (typeof d === 'string' ? d : utf8.write(d));
      let from = 0;
      for (let nl = text.indexOf('\n', from); nl >= 0; nl = text.indexOf('\n', from)) {
        rec.add(text.slice(from, nl));
        from = nl + 1;
      }
      rest = text.slice(from);
    };
    if (!gz) {
      file.on('data', onData);
      file.on('end', () => resolve());
      return;
    }
    const gunzip = createGunzip({ finishFlush: constants.Z_SYNC_FLUSH });
    gunzip.on('data', (d: Buffer) => {
      inflated += d.length;
      onData(d);
    });
    gunzip.on('end', () => {
      cut = gzipTrailerSize(path) !== inflated % 2 ** 32;
      resolve();
    });
    gunzip.on('error', (e: NodeJS.ErrnoException) => {
      if (e.code === 'Z_BUF_ERROR') {
        cut = true;
        resolve();
      } else reject(new RawRecordError(`${path}: not a gzip file, or damaged (${e.message})`));
    });
    file.pipe(gunzip);
  });
  // A last line without its newline was cut mid-write.
  if (rest.length > 0) {
    rec.add(rest);
    cut = true;
  }
  if (rec.lines === before) throw new RawRecordError(`${path}: no k6 samples in it (is it k6's --out json output?)`);
  return { rec, closed: gz ? !cut : cut ? false : null };
}

export interface ReportOptions {
  out?: string;
  force?: boolean;
  benchmark?: string;
  /** The environment to read the settings from when neither the record nor a sidecar has them. */
  env?: NodeJS.ProcessEnv;
  /** Lines the caller knows and the record cannot (e.g. Prometheus remote-write loss counted from k6's log): added to the warnings. */
  warnings?: string[];
  now?: Date;
}

export interface ReportOutput {
  rebuilt: Rebuilt;
  files: string[];
  text: string;
  /** Where the settings came from. */
  settingsFrom: 'record' | 'sidecar' | 'environment';
}

function readSidecar(path: string): RunRecordMeta | null {
  if (!existsSync(path)) return null;
  let o: RunRecordMeta;
  try {
    o = JSON.parse(readFileSync(path, 'utf8')) as RunRecordMeta;
  } catch (e) {
    throw new RawRecordError(`${path}: not JSON (${(e as Error).message})`);
  }
  if (o?.format !== RUN_RECORD_FORMAT) throw new RawRecordError(`${path}: not a run sidecar (format '${String(o?.format)}'; expected ${RUN_RECORD_FORMAT})`);
  return o;
}

/** Rebuilds the reports of a raw record (or of the records of one test's instances) and writes them; the text report is returned. */
export async function reportFromRecord(paths: string | string[], o: ReportOptions = {}): Promise<ReportOutput> {
  const all = typeof paths === 'string' ? [paths] : paths;
  const path = all[0];
  const rec = new RawRecord();
  let closed: boolean | null = true;
  for (const p of all) {
    const r = await readRawRecord(p, rec);
    // One cut record makes the whole partial; a plain one makes it unknown.
    if (r.closed === false) closed = false;
    else if (r.closed === null && closed === true) closed = null;
  }
  if (all.length > 1 && rec.testids.size > 1)
    throw new RawRecordError(`the records are of ${rec.testids.size} tests (${[...rec.testids].join(', ')}): give the records of one test`);
  const now = o.now ?? new Date();
  const sidecar = rec.meta ? null : readSidecar(sidecarPath(path));
  const meta = rec.meta ?? sidecar;
  const settingsFrom = rec.meta ? 'record' : sidecar ? 'sidecar' : 'environment';
  const benchmark = o.benchmark ?? meta?.benchmark;
  if (!benchmark)
    throw new RawRecordError(
      `${path}: the record names no benchmark and there is no ${basename(sidecarPath(path))} next to it: give ` +
        `--benchmark NAME and the variables the test was given`,
    );
  const spec = BENCHMARKS[benchmark];
  if (!spec) throw new RawRecordError(`unknown benchmark '${benchmark}' (expected one of ${Object.keys(BENCHMARKS).join(', ')})`);
  let variables: Env;
  if (meta) variables = { ...meta.variables };
  else {
    // The variables as k6 read them: this environment, CONFIG's file, the benchmark's defaults; an sse bundle's runs have TTFT samples.
    const sse = (rec.metrics.get(METRICS.ttft.name)?.groups.size ?? 0) > 0;
    variables = benchmarkEnv({ ...(o.env ?? process.env) } as Env, (p) => readFileSync(p, 'utf8'), spec.defaults, sse ? 'sse' : null);
  }
  const runId = [...rec.testids][0] ?? variables.RUN_ID;
  const cfg = loadConfig(spec, { ...variables, ...(runId ? { RUN_ID: runId } : {}) }, now);
  spec.validate?.(cfg);
  // The instances' records together are the whole run again.
  const setup = rec.meta?.setup ? (all.length > 1 ? { ...rec.meta.setup, segment: null, sequence: null } : rec.meta.setup) : null;
  const rebuilt = rebuild({ rec, closed }, spec, cfg, setup, now);
  rebuilt.report.warnings.push(...(o.warnings ?? []));
  const dir = o.out ?? dirname(path);
  mkdirSync(dir, { recursive: true });
  let base = join(dir, rebuilt.report.runId);
  // handleSummary's own files are not overwritten unless asked: the rebuild goes next to them.
  if (!o.force && ['summary.json', 'report.md', 'report.html'].some((f) => existsSync(`${base}.${f}`))) base += '.rebuilt';
  const files = rebuiltFiles(rebuilt, all.join(', '), base);
  for (const [f, body] of Object.entries(files)) writeFileSync(f, body);
  const from = settingsFrom === 'record' ? 'the record' : settingsFrom === 'sidecar' ? basename(sidecarPath(path)) : 'this environment';
  const head =
    `Rebuilt from the raw record${all.length > 1 ? `s ${all.join(', ')}` : ` ${path}`} (settings from ${from}` +
    `${rebuilt.setupRecorded ? '' : "; setup data not recorded: variants' engines unknown"}).\n`;
  return { rebuilt, files: Object.keys(files), text: head + renderText(rebuilt.report, Object.keys(files)), settingsFrom };
}

if (require.main === module) {
  const args = process.argv.slice(2);
  const o: ReportOptions = {};
  const paths: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === '--out' || a === '--benchmark') o[a === '--out' ? 'out' : 'benchmark'] = args[++i];
    else if (a.startsWith('--out=')) o.out = a.slice(6);
    else if (a.startsWith('--benchmark=')) o.benchmark = a.slice(12);
    else if (a === '--force') o.force = true;
    else if (a.startsWith('-')) {
      console.error(`npm run report: unknown option ${a}`);
      process.exit(2);
    } else paths.push(a);
  }
  if (paths.length === 0) {
    console.error(
      'usage: npm run report -- [--out DIR] [--force] [--benchmark NAME] <run>.raw.json.gz …  (the raw ' +
        'record npm start writes, or k6 run --out json=<file>; several: the instances of one test)',
    );
    process.exit(2);
  }
  reportFromRecord(paths, o).then(
    (r) => process.stdout.write(r.text),
    (e: Error) => {
      if (e instanceof RawRecordError || e.name === 'ConfigError') {
        console.error(`npm run report: ${e.message}`);
        process.exit(1);
      }
      console.error(e.stack ?? e);
      process.exit(1);
    },
  );
}
