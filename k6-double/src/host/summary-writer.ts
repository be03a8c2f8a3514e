// k6's handleSummaryResult (internal/cmd/run.go): each key of handleSummary's result is `stdout`,
// `stderr` or a file path relative to the working directory. Files are created or truncated but,
// as in k6, their directories are not created; failures are collected into k6's error text.

import * as fs from 'node:fs';
import * as path from 'node:path';
import type { SummaryOutput } from '../shared/protocol';
import type { OutputSink } from './log';

/** Writes the outputs; returns the files written and k6's error text when some failed. */
export function writeSummaryOutputs(outputs: SummaryOutput, cwd: string, sink: OutputSink): { files: string[]; error: string | null } {
  const files: string[] = [];
  const problems: string[] = [];
  for (const [key, value] of Object.entries(outputs)) {
    const text = typeof value === 'string' ? value : Buffer.from(value).toString('utf8');
    if (key === 'stdout') sink.out(text);
    else if (key === 'stderr') sink.err(text);
    else {
      const file = path.resolve(cwd, key);
      try {
        fs.writeFileSync(file, value);
        files.push(file);
      } catch (e) {
        problems.push(`could not open '${key}': open ${key}: ${errnoText(e as NodeJS.ErrnoException)}`);
      }
    }
  }
  const error = problems.length > 0 ? ['Could not save some summary information:', ...problems.map((p) => `\t- ${p}`)].join('\n') : null;
  return { files, error };
}

/** Go's syscall error strings for the common cases. */
function errnoText(e: NodeJS.ErrnoException): string {
  switch (e.code) {
    case 'ENOENT':
      return 'no such file or directory';
    case 'EACCES':
      return 'permission denied';
    case 'EISDIR':
      return 'is a directory';
    default:
      return e.message;
  }
}
