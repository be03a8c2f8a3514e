// BASELINE=<summary.json> on a k6 run: the baseline is read at init (k6's open(), handed in as a
// function) and checked there, so a bad file stops the run before any load; handleSummary then
// compares the run's own summary with it and writes <run>.compare.md and .compare.html beside the
// reports. The exit code stays k6's: a gate runs `npm run compare`, whose exit code says.
import { ConfigError, quote } from '../config/parse';
import type { ReadFile } from '../config/environment';
import { compareSummaries, DEFAULT_TOLERANCE, parseTolerance } from './compare-summaries';
import { renderCompareHtml, renderCompareMarkdown, renderCompareText } from './render-comparison';
import { CompareInputError, parseSummary, type BenchSummary } from './read-summary';

export interface Baseline {
  path: string;
  summary: BenchSummary;
  tolerance: number;
}

/** null without BASELINE; a ConfigError (one line) when the file or REGRESSION_TOLERANCE is bad. */
export function readBaseline(env: Record<string, string | undefined>, read: ReadFile): Baseline | null {
  const path = (env.BASELINE ?? '').trim();
  if (path === '') return null;
  let text: string;
  try {
    text = read(path);
  } catch (e) {
    throw new ConfigError(
      `BASELINE=${quote(path)}: cannot read the file: k6 reads it relative to the bundle (dist/), so give an ` +
        `absolute path or one like ../results/<run>.summary.json (${String(e)}).`,
    );
  }
  try {
    const tol = (env.REGRESSION_TOLERANCE ?? '').trim();
    return {
      path,
      summary: parseSummary(text, `BASELINE=${quote(path)}`),
      tolerance: tol === '' ? DEFAULT_TOLERANCE : parseTolerance(tol, 'REGRESSION_TOLERANCE'),
    };
  } catch (e) {
    if (e instanceof CompareInputError) throw new ConfigError(e.message);
    throw e;
  }
}

/**
 * The comparison of this test's summary.json text with the baseline: the terminal text and the
 * files to write (keyed by path, as handleSummary returns them) under `stem` (<results>/<run id>).
 */
export function baselineOutputs(b: Baseline, summaryText: string, stem: string): { text: string; files: Record<string, string> } {
  const next = parseSummary(summaryText, 'this test');
  const outcome = compareSummaries(b.summary, next, {
    tolerance: b.tolerance,
    forceHint: `\`npm run compare -- --force ${b.path} ${stem}.summary.json\` compares them anyway`,
  });
  if (outcome.refused) return { text: `\nBASELINE=${b.path}: ${outcome.line}\n`, files: {} };
  const files = { [`${stem}.compare.md`]: renderCompareMarkdown(outcome.comparison), [`${stem}.compare.html`]: renderCompareHtml(outcome.comparison) };
  return { text: `\n${renderCompareText(outcome.comparison, Object.keys(files))}`, files };
}
