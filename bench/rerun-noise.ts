// How far two uninterrupted runs of the same plan and seed, each against a fresh simulator, land
// apart: the run-to-run noise the kill test (test/scenarios/durability.test.ts) allows between a
// killed run's finished cells and an uninterrupted run's. Runs the five-cell plan N times per
// transport on real k6 (with xk6-sse for sse) and prints, per figure, the largest relative
// difference between any two runs in cells 1 and 2. Prints figures; asserts nothing.
//   npx tsx bench/rerun-noise.ts [--runs 3] [--transports http,sse]
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findK6 } from '../scripts/k6-runtime';
import { spawnSim } from '../test/scenarios/sim-process';
import { COMPARED, FIVE_CELLS, recordedRun, relativeDiffs, SIM } from '../test/scenarios/durability-run';

const arg = (name: string, def: string): string => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? (process.argv[i + 1] ?? def) : def;
};
const RUNS = Number(arg('runs', '3'));
const TRANSPORTS = arg('transports', 'http,sse').split(',');

async function main(): Promise<void> {
  const bin = findK6();
  if (!bin) throw new Error('no k6 (set K6_BIN)');
  for (const transport of TRANSPORTS) {
    const records: Array<Array<Record<string, unknown>>> = [];
    for (let i = 0; i < RUNS; i++) {
      const sim = await spawnSim({ ...SIM });
      const dir = mkdtempSync(join(tmpdir(), 'rerun-noise-'));
      try {
        const r = await recordedRun(
          bin,
          transport === 'sse' ? 'dist/sse/concurrency-ramp.js' : 'dist/concurrency-ramp.js',
          'concurrency-ramp',
          { ...FIVE_CELLS, TARGET_URL: sim.url, RUN_ID: `noise${i}` },
          { dir, timeoutMs: 120_000 },
        );
        if (r.code !== 0 || r.summary === null) throw new Error(`run ${i} exit ${r.code}: ${r.stderr.slice(-1500)}`);
        records.push((r.summary as { records: Array<Record<string, unknown>> }).records);
      } finally {
        await sim.stop();
      }
    }
    const worst: Record<string, number> = {};
    for (let i = 0; i < RUNS; i++)
      for (let j = i + 1; j < RUNS; j++)
        for (const cell of [0, 1])
          for (const [f, d] of Object.entries(relativeDiffs(records[i][cell], records[j][cell]))) worst[f] = Math.max(worst[f] ?? 0, d);
    console.log(`${transport}: largest relative difference between ${RUNS} runs, cells 1–2:`);
    for (const f of COMPARED) if (f in worst) console.log(`  ${f.padEnd(36)} ${(worst[f] * 100).toFixed(1)} %`);
  }
}

main().catch((e: unknown) => {
  console.error((e as Error).stack ?? e);
  process.exit(1);
});
