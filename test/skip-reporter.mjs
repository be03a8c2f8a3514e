// A node:test reporter that writes one JSON line per skipped test or group: what test/run.mjs counts.
export default async function* skipReporter(source) {
  for await (const event of source) {
    if (event.type !== 'test:pass' || event.data.skip === undefined || event.data.skip === false) continue;
    const reason = event.data.skip === true ? '' : String(event.data.skip);
    yield `${JSON.stringify({ name: event.data.name, file: event.data.file ?? '', reason })}\n`;
  }
}
