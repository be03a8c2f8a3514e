// npm run report on made-up raw records: gzip closed, gzip cut off (a killed k6), plain; the
// settings from the sidecar or the environment; handleSummary's files kept; records of several
// instances pooled.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { RUN_RECORD_FORMAT } from '../../lib/raw/record';
import { readRawRecord, reportFromRecord } from '../../scripts/report';
import { sidecarPath } from '../../scripts/raw-record';
import { linesUpTo, rampPlan } from '../lib/raw/synthetic';

const VARS = { TARGET_URL: 'http://127.0.0.1:9', CONCURRENCY: '1,2,3,4,5', DURATION: '4s', SLICES: '4', GRACEFUL_STOP: '1s', RUN_ID: 'r1' };
const { plan } = rampPlan();
const text = (stopMs: number) => linesUpTo(plan, stopMs).join('\n') + '\n';

function writeRecord(dir: string, name: string, body: Buffer | string, sidecar = true): string {
  const path = join(dir, name);
  writeFileSync(path, body);
  if (sidecar) writeFileSync(sidecarPath(path), JSON.stringify({ format: RUN_RECORD_FORMAT, benchmark: 'concurrency-ramp', variables: VARS, setup: null }));
  return path;
}

test('a gzip record: closed → finished; cut off mid-stream → read up to the cut, killed', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'report-test-'));
  const whole = gzipSync(text(40_000));
  const closed = await readRawRecord(writeRecord(dir, 'a.raw.json.gz', whole, false));
  assert.equal(closed.closed, true);
  // What a SIGKILL leaves: the file as far as the compressor had written it.
  const cutBody = gzipSync(text(14_500)).subarray(0, -20);
  const cut = await readRawRecord(writeRecord(dir, 'b.raw.json.gz', cutBody, false));
  assert.equal(cut.closed, false);
  const all = linesUpTo(plan, 14_500).length;
  assert.ok(cut.rec.lines >= all - 5, `${cut.rec.lines} of ${all} lines read before the cut`);
  const plain = await readRawRecord(writeRecord(dir, 'c.raw.json', text(40_000), false));
  assert.equal(plain.closed, null);
  const plainCut = await readRawRecord(writeRecord(dir, 'd.raw.json', text(40_000).slice(0, -30), false));
  assert.equal(plainCut.closed, false, 'a last line without its newline was cut mid-write');
  await assert.rejects(readRawRecord(writeRecord(dir, 'e.raw.json.gz', Buffer.alloc(0), false)), /no k6 samples in it/);
  await assert.rejects(readRawRecord(join(dir, 'missing.raw.json.gz')), /cannot read \(ENOENT\)/);
});

test("npm run report: settings from the sidecar, the files named after the run, handleSummary's own kept", async () => {
  const dir = mkdtempSync(join(tmpdir(), 'report-test-'));
  const path = writeRecord(dir, 'r1.raw.json.gz', gzipSync(text(14_500)).subarray(0, -20));
  const out = await reportFromRecord(path);
  assert.equal(out.settingsFrom, 'sidecar');
  assert.deepEqual(
    out.files,
    ['r1.summary.json', 'r1.report.md', 'r1.report.html'].map((f) => join(dir, f)),
  );
  const json = JSON.parse(readFileSync(out.files[0], 'utf8')) as {
    records: Array<{ run_state: string }>;
    rebuilt_from: { ending: string; setup_recorded: boolean };
  };
  assert.deepEqual(
    json.records.map((r) => r.run_state),
    ['complete', 'complete', 'incomplete', 'not run', 'not run'],
  );
  assert.equal(json.rebuilt_from.ending, 'killed');
  assert.equal(json.rebuilt_from.setup_recorded, false);
  assert.match(readFileSync(out.files[1], 'utf8'), /partial run: the test stopped/);
  assert.match(readFileSync(out.files[2], 'utf8'), /partial run: the test stopped/);
  assert.match(out.text, /^Rebuilt from the raw record .*settings from r1\.run\.json/);
  // Run again: the files exist (as handleSummary's would), so the rebuild goes beside them.
  const again = await reportFromRecord(path);
  assert.equal(again.files[0], join(dir, 'r1.rebuilt.summary.json'));
  assert.equal((await reportFromRecord(path, { force: true })).files[0], join(dir, 'r1.summary.json'));
});

test('without a sidecar: --benchmark and the variables from the environment; other settings are refused', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'report-test-'));
  const path = writeRecord(dir, 'x.raw.json.gz', gzipSync(text(40_000)), false);
  await assert.rejects(reportFromRecord(path, { env: VARS }), /names no benchmark .*give --benchmark NAME/);
  const out = await reportFromRecord(path, { env: VARS, benchmark: 'concurrency-ramp' });
  assert.equal(out.settingsFrom, 'environment');
  assert.equal(out.rebuilt.progress.ending, 'finished');
  await assert.rejects(reportFromRecord(path, { env: { ...VARS, CONCURRENCY: '8,16' }, benchmark: 'concurrency-ramp' }), /not the plan of these settings/);
});

test("the records of one test's instances are pooled: the same figures as one record", async () => {
  const dir = mkdtempSync(join(tmpdir(), 'report-test-'));
  const lines = linesUpTo(plan, 40_000);
  const head = lines.filter((l) => l.includes('"type":"Metric"'));
  const points = lines.filter((l) => !l.includes('"type":"Metric"'));
  const a = writeRecord(dir, 'r1.segment-0-1_2.raw.json.gz', gzipSync([...head, ...points.filter((_, i) => i % 2 === 0)].join('\n') + '\n'));
  const b = writeRecord(dir, 'r1.segment-1_2-1.raw.json.gz', gzipSync([...head, ...points.filter((_, i) => i % 2 === 1)].join('\n') + '\n'));
  const one = writeRecord(dir, 'one.raw.json.gz', gzipSync(lines.join('\n') + '\n'));
  const pooled = await reportFromRecord([a, b], { out: join(dir, 'pooled') });
  const single = await reportFromRecord(one, { out: join(dir, 'single') });
  assert.deepEqual(pooled.rebuilt.report.runs, single.rebuilt.report.runs);
  assert.ok(existsSync(join(dir, 'pooled', 'r1.summary.json')));
});
