// A node:test reporter that writes one JSON line per test (not per suite): passed, failed or skipped,
// with the skip's reason or the failure's message. test/run.mjs counts these and reports the skips that mean "no k6 here".
export default async function* recordReporter(source) {
  for await (const event of source) {
    if (event.type !== 'test:pass' && event.type !== 'test:fail') continue;
    const d = event.data;
    const skipped = d.skip !== undefined && d.skip !== false;
    // A suite counts only when skipped whole; its failures are its tests' (the exit code catches the rest).
    if (d.details?.type === 'suite' && !skipped) continue;
    const kind = event.type === 'test:fail' ? 'fail' : skipped ? 'skip' : 'pass';
    const reason = skipped ? (d.skip === true ? '' : String(d.skip)) : undefined;
    // A failure's message, short: the end of a long log must still say what failed and why.
    const error = kind === 'fail' ? failure(d.details?.error) : undefined;
    yield `${JSON.stringify({ kind, name: d.name, file: d.file ?? '', reason, error })}\n`;
  }
}

function failure(err) {
  if (!err) return '';
  const e = err.cause ?? err;
  const text = String(e.message ?? e)
    .split('\n')
    .slice(0, 8)
    .join('\n');
  return text.length > 1500 ? `${text.slice(0, 1500)}…` : text;
}
