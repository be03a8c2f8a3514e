// ADAPTERS against a real llama-server: two tiny LoRA adapters for the test model (make-lora.py),
// loaded with --lora; a short run spreads requests over both and the base model through the
// per-request `lora` list, with the ids the preflight read from GET /lora-adapters. llama.cpp counts
// no requests per adapter (its /metrics have no adapter label; each reply echoes the list it applied
// in generation_settings.lora), so the check is: every adapter's requests came back with the
// server's token counts, their sum is the run's, and nothing failed; an adapter the server has not
// loaded stops the run in preflight. TEST_LONG=1 only: a server start and six requests, ~30 s on 2 cores.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { explain, RUNNERS } from '../scenarios/harness';
import { llamaUnavailableReason, prepareLlama, startLlamaServer } from './servers';

const HERE = __dirname;

/** Writes the adapters beside the models, with the python that has gguf (the chroot's in chroot mode). */
function makeAdapters(setup: { mode: string; root: string | null; hostModels: string; models: string }): void {
  const script = readFileSync(join(HERE, 'make-lora.py'), 'utf8');
  const [cmd, args] =
    setup.mode === 'chroot'
      ? ['chroot', [setup.root as string, 'env', '-i', 'PATH=/usr/bin:/bin', 'HOME=/root', 'python3', '-', setup.models]]
      : ['python3', ['-', setup.hostModels]];
  const r = spawnSync(cmd, args, { input: script, encoding: 'utf8' });
  assert.equal(r.status, 0, `make-lora.py: ${r.stderr}`);
}

const long = process.env.TEST_LONG === '1' ? null : 'TEST_LONG=1 runs it (a real llama-server start and six requests, ~30 s)';

for (const runner of RUNNERS) {
  describe(`ADAPTERS on llama-server, ${runner.name}`, { skip: runner.skip ?? long ?? undefined }, () => {
    test(
      'requests spread over two LoRA adapters and the base model, each answered with the server’s counts; a ' + 'missing adapter stops the preflight',
      async (t) => {
        const reason = await llamaUnavailableReason();
        if (reason !== null) return t.skip(reason);
        const prep = await prepareLlama();
        assert.ok(prep.ok);
        makeAdapters(prep.setup);
        const m = prep.setup.models;
        const server = await startLlamaServer({ parallel: 2, ctx: 4096, extraArgs: ['--lora', `${m}/lora-sql.gguf,${m}/lora-chat.gguf`] });
        try {
          const run = await runner.run(
            'context-matrix',
            {
              TARGET_URL: server.url,
              ADAPTERS: 'lora-sql:1,lora-chat:1,base:1',
              ISL: '16',
              OSL: '8',
              // One VU, six requests: its seeded draw (SEED 1) is base, lora-chat, lora-sql, lora-chat, lora-sql, lora-sql.
              CONCURRENCY: '1',
              REQUESTS: '6',
              WARMUP_REQUESTS: '0',
              REQUEST_TIMEOUT: '20s',
            },
            120_000,
          );
          assert.equal(run.result.exitCode, 0, explain(run));
          const ad = (
            run.summary as unknown as {
              adapters: { runs: Array<{ adapters: Array<{ adapter: string; requests: number; failed: number; output_tokens: number }> }> };
            }
          ).adapters;
          const rows = ad.runs[0].adapters;
          assert.deepEqual(
            rows.map((r) => [r.adapter, r.requests]),
            [
              ['lora-sql', 3],
              ['lora-chat', 2],
              ['base', 1],
            ],
          );
          for (const r of rows) {
            assert.equal(r.failed, 0, `${r.adapter}: ${explain(run)}`);
            assert.equal(r.output_tokens, r.requests * 8, `${r.adapter}: the server counted ${r.output_tokens} tokens for ${r.requests} requests of 8`);
          }
          // The server applied what the requests named: the slot of its last task (the sixth request, lora-sql, id 0) holds that list.
          const slots = (await (await fetch(`${server.url}/slots`)).json()) as Array<{ id_task?: number; params?: { lora?: unknown } }>;
          const last = slots.reduce((a, b) => ((b.id_task ?? -1) > (a.id_task ?? -1) ? b : a));
          assert.deepEqual(last.params?.lora, [{ id: 0, scale: 1 }], JSON.stringify(slots.map((x) => [x.id_task, x.params?.lora])));
          const rec = run.summary!.records[0] as unknown as { requests: number; output_tokens: number };
          assert.equal(
            rows.reduce((s, r) => s + r.output_tokens, 0),
            rec.output_tokens,
          );
          assert.equal(
            rows.reduce((s, r) => s + r.requests, 0),
            rec.requests,
          );
          const bad = await runner.run('smoke', { TARGET_URL: server.url, ADAPTERS: 'lora-sql,code' }, 60_000);
          assert.notEqual(bad.result.exitCode, 0, explain(bad));
          assert.match(
            bad.result.stdout + bad.result.stderr,
            /ADAPTERS names code, which the server has not loaded \(GET \/lora-adapters lists: 0 \(lora-sql\.gguf\), 1 \(lora-chat\.gguf\)\)/,
          );
        } finally {
          await server.stop();
        }
      },
    );
  });
}
