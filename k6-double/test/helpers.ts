// Helpers for the double's tests: fixture paths and reading k6-style log lines back.

import * as path from 'node:path';

export const FIXTURES = path.resolve(__dirname, 'fixtures');

export function fixture(name: string): string {
  return path.join(FIXTURES, name);
}

export interface LogLine {
  level: string;
  msg: string;
  fields: Record<string, string>;
}

/** Parses logfmt lines (time=... level=... msg=... k=v) as the double and k6 print them. */
export function logLines(stderr: string): LogLine[] {
  const out: LogLine[] = [];
  for (const line of stderr.split('\n')) {
    if (!line.startsWith('time=')) continue;
    const fields: Record<string, string> = {};
    const re = /(\w+)=("(?:[^"\\]|\\.)*"|\S+)/g;
    for (let m = re.exec(line); m; m = re.exec(line)) fields[m[1]!] = m[2]!.startsWith('"') ? (JSON.parse(m[2]!) as string) : m[2]!;
    const { level = '', msg = '', time: _t, ...rest } = fields;
    out.push({ level, msg, fields: rest });
  }
  return out;
}

/** The objects a fixture logged with console.log(JSON.stringify(...)). */
export function loggedJSON<T = Record<string, unknown>>(stderr: string): T[] {
  return logLines(stderr)
    .filter((l) => l.fields.source === 'console' && l.msg.startsWith('{'))
    .map((l) => JSON.parse(l.msg) as T);
}
