// What a user whose k6 has no xk6-sse meets (CI runs this file on stock k6 v2.2.0): http bundles run;
// TRANSPORT=sse and the sse bundles stop at init with one line saying how to get the extension and
// no stack frames after it, on k6 v1 (which throws for an unknown module) as on
// k6 v2 (which hands back a placeholder and would fail after init with only its own words).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSim } from './sim-process';
import { explain, RUNNERS } from './harness';

const runner = RUNNERS[0];
const skip =
  runner.skip ??
  (runner.k6?.hasSse ? `${runner.k6.bin} has xk6-sse: these tests need a k6 without it (CI runs them with K6_BIN set to stock k6 v2.2.0)` : null);

/** The error lines k6 printed: one, with no Go error of k6's own after it. */
function errorLines(out: string): string[] {
  return out.split('\n').filter((l) => /level=error/.test(l));
}

/** The one line the error ends in: the message alone, no JavaScript stack after it. */
function oneLine(out: string): void {
  assert.equal(errorLines(out).length, 1, out);
  assert.match(out, /msg="k6-llm-bench: TRANSPORT=sse needs/);
  assert.doesNotMatch(out, /\\tat |at loadSse/, 'no stack frames after the message');
}

describe(`sse on ${runner.name} without the extension`, { skip: skip ?? undefined }, () => {
  test('TRANSPORT=sse stops at init with how to get a binary that has it, in one line', async () => {
    const run = await runner.run('smoke', { TARGET_URL: 'http://127.0.0.1:9', TRANSPORT: 'sse' }, 30_000);
    assert.equal(run.result.exitCode, 107, explain(run));
    const out = run.result.stderr + run.result.stdout;
    assert.match(out, /TRANSPORT=sse needs a k6 binary with the xk6-sse extension\. Build one with `xk6 build --with github\.com\/phymbert\/xk6-sse`/);
    assert.match(out, /run the bundle of the same name in dist\/sse\//);
    oneLine(out);
    assert.doesNotMatch(out, /GoError|failed to handle the end-of-test summary/);
  });

  test('the sse bundle stops at init too, in one line saying how to get the extension', async () => {
    const run = await runner.run('sse/smoke', { TARGET_URL: 'http://127.0.0.1:9' }, 30_000);
    assert.equal(run.result.exitCode, 107, explain(run));
    const out = run.result.stderr + run.result.stdout;
    assert.match(out, /TRANSPORT=sse needs a k6 binary with the xk6-sse extension/);
    assert.match(out, /provision one for this bundle by itself: run it with automatic extension resolution on \(K6_AUTO_EXTENSION_RESOLUTION/);
    // k6 v1 throws "unknown module: k6/x/sse"; v2 returns an empty placeholder.
    assert.match(out, /\(k6: (GoError: unknown module: k6\/x\/sse|the extension is not in this build)\)/);
    oneLine(out);
  });

  test('the sse bundle with TRANSPORT=http runs on it', async () => {
    const sim = await spawnSim({ spec: 'dflash', timeScale: 1, seed: 7 });
    try {
      const run = await runner.run('sse/smoke', { TARGET_URL: sim.url, TRANSPORT: 'http' }, 60_000);
      assert.equal(run.result.exitCode, 0, explain(run));
      const rec = run.summary!.records[0];
      assert.ok(rec.requests_ok >= 3, `${rec.requests_ok} requests`);
      assert.equal(rec.ttft_ms, null, 'no TTFT over http');
    } finally {
      await sim.stop();
    }
  });
});
