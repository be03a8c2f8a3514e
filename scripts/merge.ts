// npm run merge -- [--out DIR] <run>.partial.json …
// Merges the partial results of one benchmark split over several k6 instances (PARTIAL=true with
// k6 --execution-segment, or the k6-operator's parallelism) into one summary.json, report.md and
// report.html, of the same shapes as a single run's, and prints the text report.
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { BENCHMARKS } from '../lib/benchmarks';
import { loadConfig } from '../lib/config/load';
import { planOf } from '../lib/plan/matrix';
import { renderHtml } from '../lib/report/render/html-report';
import { summaryJson } from '../lib/report/render/summary-json';
import { renderMarkdown } from '../lib/report/render/markdown-report';
import { MergeError, mergeInstanceResults, readInstanceResult } from '../lib/report/merge-instances';
import { buildReport, type Report } from '../lib/report/build-report';
import { renderText } from '../lib/report/render/text-report';

export interface MergeOutput {
  report: Report;
  files: string[];
  text: string;
}

/** Merges partial files and writes the reports into outDir (default: the first partial's folder). */
export function mergeFiles(paths: string[], outDir?: string, now = new Date()): MergeOutput {
  const parts = paths.map((p) => {
    let text: string;
    try {
      text = readFileSync(p, 'utf8');
    } catch (e) {
      throw new MergeError(`${p}: cannot read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
    }
    return { name: p, partial: readInstanceResult(p, text) };
  });
  const merged = mergeInstanceResults(parts);
  const spec = BENCHMARKS[merged.benchmark];
  if (!spec) throw new MergeError(`${paths[0]}: unknown benchmark '${merged.benchmark}'`);
  const cfg = loadConfig(spec, { ...merged.variables, RUN_ID: merged.runId }, now);
  const report = buildReport(spec, cfg, planOf(spec.load, cfg, merged.data.setup_data?.trace ?? null), merged.data, { now });
  report.warnings.unshift(
    `merged from ${merged.instances} instances' partial results: percentiles within 0.5 % of rank (0.1 % ` +
      `from p99) of the pooled samples; counts and sums exact.`,
  );
  const dir = outDir ?? dirname(paths[0]);
  const base = join(dir, report.runId);
  const out: Record<string, string> = {
    [`${base}.summary.json`]: summaryJson(report),
    [`${base}.report.md`]: renderMarkdown(report),
    [`${base}.report.html`]: renderHtml(report),
  };
  for (const [f, body] of Object.entries(out)) writeFileSync(f, body);
  return { report, files: Object.keys(out), text: renderText(report, Object.keys(out)) };
}

if (require.main === module) {
  const args = process.argv.slice(2);
  let out: string | undefined;
  const paths: string[] = [];
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--out') out = args[++i];
    else if (args[i].startsWith('--out=')) out = args[i].slice(6);
    else paths.push(args[i]);
  }
  if (paths.length === 0) {
    console.error('usage: npm run merge -- [--out DIR] <run>.partial.json …  (partials are written by runs with PARTIAL=true)');
    process.exit(2);
  }
  try {
    process.stdout.write(mergeFiles(paths, out).text);
  } catch (e) {
    if (e instanceof MergeError || (e as Error).name === 'ConfigError') {
      console.error(`npm run merge: ${(e as Error).message}`);
      process.exit(1);
    }
    throw e;
  }
}
