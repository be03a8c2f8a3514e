// npm run compare -- [--tolerance 5%] [--force] [--out DIR] <baseline summary.json> <new summary.json>
// Judges every cell and variant both runs measured (faster, slower, no significant difference, with
// 95% bootstrap intervals on new ÷ baseline), prints the table, writes <run>.compare.md and
// <run>.compare.html next to the new summary (or into --out DIR) and exits 0 (no regression),
// 3 (a regression beyond the tolerance), 4 (workloads differ, refused) or 2 (bad usage or input).
// The logic is lib/compare/; docs/compare.md describes the rules.
import { readFileSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { compareSummaries, DEFAULT_TOLERANCE, EXIT, parseTolerance } from '../lib/compare/compare-summaries';
import { renderCompareHtml, renderCompareMarkdown, renderCompareText } from '../lib/compare/render-comparison';
import { CompareInputError, parseSummary, type BenchSummary } from '../lib/compare/read-summary';

const USAGE = 'usage: npm run compare -- [--tolerance 5%] [--force] [--out DIR] <baseline summary.json> <new summary.json>';

export interface CompareRun {
  code: number;
  stdout: string;
  stderr: string;
  files: string[];
}

/** <run>.summary.json → <run>.compare; summary.json → compare; other.json → other.compare. */
export function outputStem(newPath: string): string {
  const b = basename(newPath);
  if (b === 'summary.json') return 'compare';
  if (b.endsWith('.summary.json')) return `${b.slice(0, -'.summary.json'.length)}.compare`;
  return `${b.replace(/\.json$/, '')}.compare`;
}

function read(path: string): BenchSummary {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new CompareInputError(
      `${path}: cannot read (${code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'a folder, not a file' : (code ?? (e as Error).message)})`,
    );
  }
  return parseSummary(text, path);
}

/** The whole command, without touching the process: tests call it directly. */
export function runCompare(args: string[], env: Record<string, string | undefined> = process.env): CompareRun {
  const fail = (line: string, code: number = EXIT.usage): CompareRun => ({ code, stdout: '', stderr: `npm run compare: ${line}\n`, files: [] });
  let force = false;
  let out: string | undefined;
  let toleranceRaw: { raw: string; name: string } | null = env.REGRESSION_TOLERANCE ? { raw: env.REGRESSION_TOLERANCE, name: 'REGRESSION_TOLERANCE' } : null;
  const paths: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    const value = (flag: string): string | null => (a === flag ? (args[++i] ?? null) : a.startsWith(`${flag}=`) ? a.slice(flag.length + 1) : null);
    if (a === '--force') force = true;
    else if (a === '--help' || a === '-h') return { code: EXIT.ok, stdout: `${USAGE}\n`, stderr: '', files: [] };
    else if (a === '--out' || a.startsWith('--out=')) {
      const v = value('--out');
      if (!v) return fail(`--out needs a folder. ${USAGE}`);
      out = v;
    } else if (a === '--tolerance' || a.startsWith('--tolerance=')) {
      const v = value('--tolerance');
      if (!v) return fail(`--tolerance needs a percentage, e.g. --tolerance 5%. ${USAGE}`);
      toleranceRaw = { raw: v, name: '--tolerance' };
    } else if (a.startsWith('-') && a !== '-') return fail(`unknown option ${a}. ${USAGE}`);
    else paths.push(a);
  }
  if (paths.length !== 2)
    return fail(
      `${paths.length === 0 ? 'no summaries given' : paths.length === 1 ? 'one summary given, two needed' : `${paths.length} files given, two needed`}` +
        `. ${USAGE}`,
    );
  try {
    const tolerance = toleranceRaw ? parseTolerance(toleranceRaw.raw, toleranceRaw.name) : DEFAULT_TOLERANCE;
    const [base, next] = paths.map(read);
    const outcome = compareSummaries(base, next, { tolerance, force });
    if (outcome.refused) return fail(outcome.line, outcome.exitCode);
    const c = outcome.comparison;
    const stem = join(out ?? dirname(paths[1]), outputStem(paths[1]));
    const files = [`${stem}.md`, `${stem}.html`];
    try {
      writeFileSync(files[0], renderCompareMarkdown(c));
      writeFileSync(files[1], renderCompareHtml(c));
    } catch (e) {
      return fail(
        `cannot write ${stem}.md: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}${out ? ' (does --out name an existing folder?)' : ''}`,
      );
    }
    return { code: c.exitCode, stdout: renderCompareText(c, files), stderr: '', files };
  } catch (e) {
    if (e instanceof CompareInputError) return fail(e.message);
    throw e;
  }
}

if (require.main === module) {
  const r = runCompare(process.argv.slice(2));
  process.stdout.write(r.stdout);
  process.stderr.write(r.stderr);
  process.exitCode = r.code;
}
