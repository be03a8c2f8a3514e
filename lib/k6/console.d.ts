// k6 provides console (log lines on stderr); the k6-side tsconfig has no DOM or Node types.
interface Console {
  log(...data: unknown[]): void;
  info(...data: unknown[]): void;
  warn(...data: unknown[]): void;
  error(...data: unknown[]): void;
  debug(...data: unknown[]): void;
}
// eslint-disable-next-line no-var
declare var console: Console;
