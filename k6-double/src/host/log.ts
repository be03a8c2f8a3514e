// k6 logs through logrus' TextFormatter when stderr is not a terminal:
//   time="2024-05-01T10:00:00Z" level=info msg="hello world" source=console
// time, level and msg come first, then the other fields sorted by key; a value is quoted (Go %q)
// only when it has characters outside [A-Za-z0-9-._/@^+]. The double writes the same shape so
// tests that grep k6's stderr work on both.

import type { LogLevel } from '../shared/protocol';

const BARE = /^[A-Za-z0-9\-._/@^+]+$/;

function quote(value: string): string {
  return BARE.test(value) ? value : JSON.stringify(value);
}

function timestamp(d: Date): string {
  return d.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

export function formatLogLine(level: LogLevel, msg: string, fields: Record<string, string> = {}, now = new Date()): string {
  const parts = [`time=${quote(timestamp(now))}`, `level=${level}`, `msg=${quote(msg)}`];
  for (const key of Object.keys(fields).sort()) parts.push(`${key}=${quote(fields[key]!)}`);
  return parts.join(' ') + '\n';
}

/** Collects what a k6 process would print, optionally echoing it live. */
export class OutputSink {
  stdout = '';
  stderr = '';

  constructor(private readonly echo: boolean) {}

  out(text: string): void {
    this.stdout += text;
    if (this.echo) process.stdout.write(text);
  }

  err(text: string): void {
    this.stderr += text;
    if (this.echo) process.stderr.write(text);
  }

  /** Debug lines are only shown by k6 with --verbose, so they are dropped. */
  log(level: LogLevel, msg: string, fields?: Record<string, string>): void {
    if (level === 'debug') return;
    this.err(formatLogLine(level, msg, fields));
  }
}
