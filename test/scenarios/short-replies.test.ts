// Replies shorter than asked, against the simulator's own record: a server that stops at EOS
// although ignore_eos asks it not to (--eos-despite-ignore) has its short replies counted by the
// server's count, their finish reason said, the share of asked tokens written, and the run flagged
// in every report; a server that writes every token asked has none.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { spawnSim } from './sim-process';
import { explain, RUNNERS } from './harness';
import { MATRIX_ENV } from '../../scripts/fault-matrix';
import { energyAgainstTruth, type EnergyJson } from './energy-truth';

const OSL = Number(MATRIX_ENV.OSL);

interface ShortJson {
  variant: string;
  cell: string;
  counted: number;
  short: number;
  share: number | null;
  by_finish_reason: Record<string, number>;
  tokens_written_over_asked: number;
  flagged: boolean;
}

for (const runner of RUNNERS) {
  for (const transport of ['http', 'sse'] as const) {
    const skip = runner.skip ?? (transport === 'sse' ? runner.sseSkip : null) ?? undefined;
    describe(`replies shorter than asked, ${transport}, on ${runner.name}`, { skip, concurrency: 2 }, () => {
      for (const honours of [false, true]) {
        test(
          honours
            ? 'a server that writes every token asked: none short, no section'
            : 'a server that ignores ignore_eos: counted as the server counted, flagged in every report',
          async () => {
            const sim = await spawnSim({ engine: 'vllm', timeScale: 4, seed: 17, eosRate: 0.05, eosDespiteIgnore: !honours });
            try {
              // One run also scrapes the simulator's power-only exporter (nvidia_gpu_exporter: power × time),
              // over a steady window (SLICES=2 leaves the ramp-up out: the power gauge, a 1 s mean, lags a change of load).
              const gpu = transport === 'sse' && honours;
              const env = {
                ...MATRIX_ENV,
                TARGET_URL: sim.url,
                DIALECT: 'openai',
                TRANSPORT: transport,
                SERVER_METRICS: 'off',
                ...(gpu ? { GPU_METRICS_URL: `${sim.url}/sim/nvidia-smi/metrics`, SLICES: '2' } : {}),
              };
              const run = await runner.run('context-matrix', env, 90_000);
              const why = explain(run);
              assert.equal(run.result.exitCode, 0, why);
              const s = run.summary as unknown as { short_replies: ShortJson[] | null; warnings: string[]; records: Array<{ requests_ok: number }> };
              const truth = (await sim.requests()).filter((r) => r.maxNewTokens === OSL && r.status === 200 && r.finishReason !== 'disconnect');
              const short = truth.filter((r) => r.completionTokens < OSL);
              const md = readFileSync(
                run.result.files.find((f) => f.endsWith('.report.md'))!,
                'utf8',
              );
              const html = readFileSync(
                run.result.files.find((f) => f.endsWith('.report.html'))!,
                'utf8',
              );
              const row = s.short_replies?.[0];
              assert.ok(row, `short_replies in summary.json: ${JSON.stringify(s.short_replies)}`);
              assert.equal(row.counted, s.records[0].requests_ok, 'every successful reply had a server count');
              assert.equal(row.counted, truth.length, 'the client counted the replies the server wrote');
              assert.equal(row.short, short.length, `short replies: client ${row.short}, server ${short.length}`);
              const written = truth.reduce((a, r) => a + r.completionTokens, 0) / (truth.length * OSL);
              assert.ok(Math.abs(row.tokens_written_over_asked - written) < 1e-9, `tokens written over asked: ${row.tokens_written_over_asked} vs ${written}`);
              if (gpu) {
                const e = (run.summary as unknown as EnergyJson).energy.runs[0];
                assert.equal(e.energy_source, 'power-integral', 'no energy counter: power × time, and said so');
                assert.match(md, /no energy counter: power × time/);
                await energyAgainstTruth(
                  run.summary as unknown as EnergyJson,
                  sim.url,
                  'nvidia-smi',
                  0.05,
                  truth.flatMap((r) => r.events),
                );
              }
              if (honours) {
                assert.equal(short.length, 0);
                assert.equal(row.flagged, false);
                assert.doesNotMatch(md, /Replies shorter than asked/);
                return;
              }
              assert.ok(short.length > row.counted / 4, `the fault made replies short: ${short.length} of ${row.counted}`);
              assert.deepEqual(row.by_finish_reason, { stop: short.length }, 'each ended at EOS, and said so');
              assert.equal(row.flagged, true);
              const warning = s.warnings.find((w) => /were shorter than the 24 tokens asked/.test(w));
              assert.match(warning ?? '', /Likely cause: the server stopped at EOS or a stop sequence: it does not honour ignore_eos/);
              assert.match(md, /## Replies shorter than asked/);
              assert.ok(md.includes(warning as string), 'report.md carries the warning');
              assert.match(html, /<h2>Replies shorter than asked<\/h2>/);
              assert.match(run.result.stdout + run.result.stderr, /Replies shorter than asked:/, 'the terminal says so');
            } finally {
              await sim.stop();
            }
          },
        );
      }
    });
  }
}
