// What a user sees when the server cannot be benchmarked, or dies during the run.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSim } from './sim-process';
import { explain, RUNNERS } from './harness';

const QUICK = { ISL: '64', OSL: '16', CONCURRENCY: '1', DURATION: '4s', SLICES: '2', REQUEST_TIMEOUT: '3s', GRACEFUL_STOP: '1s', WARMUP_REQUESTS: '1' };

for (const runner of RUNNERS) {
  describe(`diagnosis on ${runner.name}`, { skip: runner.skip ?? undefined }, () => {
    test('healthy but hung: diagnosed in under 15 s, no load sent, exit 108, reason in the report', async () => {
      const sim = await spawnSim({ engine: 'vllm', spec: 'mtp', timeScale: 1, stall: true });
      try {
        const health = await fetch(`${sim.url}/health`);
        assert.equal(health.status, 200, 'the stalled server still passes its health check');
        const run = await runner.run('smoke', { TARGET_URL: sim.url, PREFLIGHT_TIMEOUT: '3s', REQUEST_TIMEOUT: '60s' }, 60_000);
        assert.equal(run.result.exitCode, 108, explain(run));
        // The one-token check and the other route together (3 s); stall-deadline.test times it.
        assert.ok(run.wallMs < 15_000, `took ${run.wallMs} ms`);
        const out = run.result.stderr + run.result.stdout;
        assert.match(out, /GET \/health and GET \/v1\/models → 200 but no token within 3 s: the engine is stalled/);
        assert.match(out, /Both POST \/v1\/completions and POST \/v1\/chat\/completions produced no token in 3 s: the engine itself is stuck/);
        assert.deepEqual(
          run.summary?.preflight_failures.map((f) => ({ variant: f.variant, reason: f.reason, headline: f.headline })),
          [{ variant: 'target', reason: 'stalled', headline: 'healthy but hung: no token within PREFLIGHT_TIMEOUT' }],
        );
        assert.equal((await sim.requests()).filter((r) => r.completionTokens > 0).length, 0, 'no load reached the server');
      } finally {
        await sim.stop();
      }
    });

    test('the seed failure: DIALECT=sglang against vLLM says what the server is and what to set', async () => {
      const sim = await spawnSim({ engine: 'vllm', timeScale: 10 });
      try {
        const run = await runner.run('smoke', { TARGET_URL: sim.url, DIALECT: 'sglang' }, 60_000);
        assert.equal(run.result.exitCode, 108, explain(run));
        assert.match(run.result.stderr + run.result.stdout, /POST \/generate → 404: this server is vLLM [\d.]+ .*set DIALECT=openai/);
        assert.equal(run.summary?.preflight_failures[0]?.reason, 'wrong_dialect');
      } finally {
        await sim.stop();
      }
    });

    test('DIALECT=auto picks the native API of each server and runs', async () => {
      const sim = await spawnSim({ engine: 'sglang', timeScale: 10 });
      try {
        const run = await runner.run('smoke', { TARGET_URL: sim.url }, 60_000);
        assert.equal(run.result.exitCode, 0, explain(run));
        assert.match(run.result.stderr + run.result.stdout, /DIALECT=auto chose sglang/);
        assert.equal(run.summary?.records[0].requests_ok, 3);
      } finally {
        await sim.stop();
      }
    });

    test('API keys reach the variant only: never in the output, the reports or the tags', async () => {
      const key = 'sk-test-4f1c9e27b3';
      const sim = await spawnSim({ engine: 'vllm', timeScale: 10, apiKey: key });
      try {
        const wrong = await runner.run('smoke', { TARGET_URL: sim.url, API_KEY: 'sk-wrong-key-0000' }, 60_000);
        assert.equal(wrong.result.exitCode, 108, explain(wrong));
        assert.match(wrong.result.stderr + wrong.result.stdout, /rejected the credentials; set API_KEY/);
        assert.doesNotMatch(wrong.result.stderr + wrong.result.stdout, /sk-wrong-key-0000/);

        const run = await runner.run('smoke', { TARGET_URL: sim.url, API_KEY: key }, 60_000);
        assert.equal(run.result.exitCode, 0, explain(run));
        assert.equal(run.summary?.records[0].requests_ok, 3, 'the key was sent');
        const everything = [
          run.result.stdout,
          run.result.stderr,
          ...run.result.files.map((f) => readFileSync(f, 'utf8')),
          JSON.stringify(run.result.summaryData),
        ].join('\n');
        assert.equal(everything.includes(key), false, 'the key leaked');
      } finally {
        await sim.stop();
      }
    });

    test('a CONFIG file stands in for the variables; the environment wins over it; a bad key is named', async () => {
      const sim = await spawnSim({ engine: 'sglang', timeScale: 10 });
      const dir = mkdtempSync(join(tmpdir(), 'cfg-'));
      try {
        const file = join(dir, 'bench.json');
        writeFileSync(file, JSON.stringify({ TARGET_URL: sim.url, ISL: [64], OSL: 8, REQUESTS: 2, CONCURRENCY: 1 }));
        const run = await runner.run('smoke', { CONFIG: file, OSL: '12' }, 60_000);
        assert.equal(run.result.exitCode, 0, explain(run));
        assert.equal(run.summary?.records[0].cell, 'i64_o12_c1');
        assert.equal(run.summary?.records[0].requests_ok, 2);
        writeFileSync(file, JSON.stringify({ TARGET_URL: sim.url, CONCURENCY: 4 }));
        const bad = await runner.run('smoke', { CONFIG: file }, 30_000);
        assert.equal(bad.result.exitCode, 108, explain(bad));
        assert.match(bad.result.stderr + bad.result.stdout, /test aborted: k6-llm-bench smoke: CONFIG=.*unknown key 'CONCURENCY'/);
      } finally {
        await sim.stop();
      }
    });

    test('nothing listening: waited for until PREFLIGHT_TIMEOUT, then unreachable, with the variable to check', async () => {
      const sim = await spawnSim({ engine: 'vllm' });
      const url = sim.url;
      await sim.stop();
      const run = await runner.run('smoke', { TARGET_URL: url, PREFLIGHT_TIMEOUT: '2s' }, 60_000);
      assert.equal(run.result.exitCode, 108, explain(run));
      assert.ok(run.wallMs >= 2000, `gave up after ${run.wallMs} ms`);
      assert.match(
        run.result.stderr + run.result.stdout,
        /cannot connect to http:\/\/127\.0\.0\.1:\d+ for 2 s \(connection refused\): nothing listens there .*raise PREFLIGHT_TIMEOUT\) and is TARGET_URL right\?/,
      );
      assert.equal(run.summary?.preflight_failures[0]?.reason, 'unreachable');
    });

    test('a vLLM still loading its model (refusing connections) is waited for and passes preflight', async () => {
      // 30 model s at time-scale 10: connections are refused for 3 s.
      const sim = await spawnSim({ engine: 'vllm', timeScale: 10, startupDelayMs: 30_000 }, true);
      try {
        const run = await runner.run('smoke', { TARGET_URL: sim.url, ISL: '32', OSL: '8', PREFLIGHT_TIMEOUT: '10s' }, 60_000);
        assert.equal(run.result.exitCode, 0, explain(run));
        assert.ok(run.wallMs >= 2500, `did not wait: ${run.wallMs} ms`);
        assert.equal(run.summary?.records[0].requests_ok, 3);
      } finally {
        await sim.stop();
      }
    });

    test('transient 500s in preflight are retried: preflight passes, and the warning counts them', async () => {
      let warned = 0;
      for (const seed of [1, 2, 3]) {
        const sim = await spawnSim({ engine: 'sglang', timeScale: 10, 'error-rate-500': 0.3, seed });
        try {
          const run = await runner.run('smoke', { TARGET_URL: sim.url, ISL: '32', OSL: '8', WARMUP_REQUESTS: '2' }, 60_000);
          assert.ok(run.result.exitCode === 0 || run.result.exitCode === 99, explain(run));
          assert.deepEqual(run.summary?.preflight_failures, [], explain(run));
          // Preflight's generations come first (the one-token check, the warm-ups, retries included);
          // they end with the second warm-up, the only request with 16 output tokens.
          const reqs = (await sim.requests()).sort((a, b) => a.arrivalMs - b.arrivalMs);
          const end = reqs.findIndex((r) => r.completionTokens === 16);
          assert.ok(end > 0, 'the second warm-up succeeded');
          // The warning counts the route the run uses (the OpenAI layer's probe beside the check is not retried).
          const failedInPreflight = reqs.slice(0, end).filter((r) => r.route === '/generate' && r.errorClass === 'fault_500').length;
          const warning = (run.summary?.warnings ?? []).find((w) => /failed transiently/.test(w));
          if (failedInPreflight > 0) {
            warned++;
            assert.match(warning ?? '', new RegExp(`^target: ${failedInPreflight} of \\d+ preflight requests failed transiently \\(500\\)`), explain(run));
          } else assert.equal(warning, undefined);
        } finally {
          await sim.stop();
        }
      }
      assert.ok(warned > 0, 'no seed had a transient failure in preflight: pick other seeds');
    });

    test('the OpenAI layer hangs, the native API answers: said so, with the dialect that works around it', async () => {
      const sim = await spawnSim({ engine: 'sglang', timeScale: 10, stallOpenai: true });
      try {
        const run = await runner.run('smoke', { TARGET_URL: sim.url, DIALECT: 'openai-chat', PREFLIGHT_TIMEOUT: '2s' }, 60_000);
        assert.equal(run.result.exitCode, 108, explain(run));
        assert.match(
          run.result.stderr + run.result.stdout,
          /only POST \/v1\/chat\/completions hangs \(no token in 2 s\); POST \/generate answers: the OpenAI layer \(tokenizer manager, chat template\) is stuck, not the engine; DIALECT=sglang works around it/,
        );
        assert.equal(run.summary?.preflight_failures[0]?.reason, 'stalled_layer');
      } finally {
        await sim.stop();
      }
    });

    test('ISL_SPREAD counts in the context check: the longest prompt, with the figures', async () => {
      const sim = await spawnSim({ engine: 'vllm', timeScale: 10, maxModelLen: 1024 });
      try {
        const run = await runner.run('smoke', { TARGET_URL: sim.url, ISL: '960', ISL_SPREAD: '0.2', OSL: '32' }, 60_000);
        assert.equal(run.result.exitCode, 108, explain(run));
        assert.match(
          run.result.stderr + run.result.stdout,
          /the longest prompt \(ISL 960 with ISL_SPREAD=0\.2: 1152 tokens\) \+ OSL 32 = 1184 tokens exceeds the model's context length of 1024: lower ISL, ISL_SPREAD or OSL/,
        );
        assert.equal(run.summary?.preflight_failures[0]?.reason, 'context_length');
        assert.equal((await sim.requests()).length, 0, 'nothing was sent');
      } finally {
        await sim.stop();
      }
    });

    test('SGLang with a MODEL it does not serve: a warning, and the report names the served model', async () => {
      const sim = await spawnSim({ engine: 'sglang', timeScale: 10 });
      try {
        const run = await runner.run('smoke', { TARGET_URL: sim.url, ISL: '32', OSL: '8', MODEL: 'llama-wrong' }, 60_000);
        assert.equal(run.result.exitCode, 0, explain(run));
        const w =
          "target: MODEL='llama-wrong' is not what this SGLang serves ('qwen3-32b-sim'); SGLang ignores the model name: the report names 'qwen3-32b-sim'.";
        assert.ok(run.summary?.warnings.includes(w), explain(run));
        assert.equal(run.summary?.variants[0].model, 'qwen3-32b-sim');
      } finally {
        await sim.stop();
      }
    });

    test('a bad variable stops the run before any load in one line, naming variable, value and what is allowed', async () => {
      const run = await runner.run('smoke', { TARGET_URL: 'http://127.0.0.1:9', CONCURRENCY: '1,two' }, 30_000);
      assert.equal(run.result.exitCode, 108, explain(run));
      const out = run.result.stderr + run.result.stdout;
      assert.match(out, /test aborted: k6-llm-bench smoke: CONCURRENCY=.1,two. is not valid: expected a comma-separated list of whole numbers/);
      assert.doesNotMatch(out, /\tat |at file:\/\//, 'no JavaScript stack after the message');
      assert.equal(run.summary, null, 'nothing ran, nothing was written');
    });

    test('the variant dies mid-run: the run goes on to its end, errors classified, reports written, exit 99', async () => {
      const [dflash, mtp] = await Promise.all([
        spawnSim({ engine: 'sglang', spec: 'dflash', timeScale: 4 }),
        spawnSim({ engine: 'vllm', spec: 'mtp', timeScale: 4 }),
      ]);
      // Crash MTP 1.5 s into its run (of 4 s), whenever that comes: once its first measured request arrives.
      let stopped = false;
      const crash = setTimeout(function poll() {
        void mtp.requests().then(
          (rs) => {
            if (stopped) return;
            if (rs.some((r) => r.maxNewTokens === Number(QUICK.OSL))) setTimeout(() => void mtp.crash(), 1500);
            else setTimeout(poll, 100);
          },
          () => undefined,
        );
      }, 100);
      try {
        const run = await runner.run('dflash-vs-mtp', { ...QUICK, DFLASH_URL: dflash.url, MTP_URL: mtp.url }, 90_000);
        assert.equal(run.result.exitCode, 99, explain(run));
        const s = run.summary;
        assert.ok(s, explain(run));
        const m = s.records.find((r) => r.variant === 'mtp')!;
        const d = s.records.find((r) => r.variant === 'dflash')!;
        assert.equal(d.requests_failed, 0);
        assert.ok(m.requests_ok > 0, 'requests before the crash are kept');
        // The crash fails the request in flight (connection_lost), if one was, and the attempts after it (unreachable).
        assert.ok(m.requests_failed + m.unreachable_attempts > 0, explain(run));
        const classes = Object.keys(m.errors_by_class);
        assert.ok(
          classes.every((c) => c === 'unreachable' || c === 'connection_lost'),
          classes.join(','),
        );
        assert.match(run.result.stdout, /✗ llm_success{variant:mtp} rate>=0.95/);
      } finally {
        stopped = true;
        clearTimeout(crash);
        await Promise.all([dflash.stop(), mtp.stop()]);
      }
    });
  });
}
