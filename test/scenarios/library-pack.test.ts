// The library as a user gets it: `npm pack` (its prepack builds dist/lib), the tarball installed
// offline into an empty project with its own package.json, tsconfig and esbuild config, a user
// script in TypeScript that imports 'k6-llm-bench' type-checked and bundled there, then run on
// real k6 over http and over sse against the simulator. Its metrics and its three reports must
// say what the simulator's ground truth says, as the benchmarks' do (single-server, sse tests).
// One more script imports the installed ES module by path, with no bundler at all.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fmt } from '../../lib/report/render/report-format';
import type { K6RunResult } from '../../scripts/k6-runtime';
import { spawnSim, type RemoteSim } from './sim-process';
import { explain, ROOT, RUNNERS } from './harness';

const OSL = 48;
const DURATION_MS = 8000;
const SLICES = 4;

const USER_SCRIPT = `// A user's own k6 script.
import { check } from 'k6';
import { LlmClient, llmOptions, llmSummary, preflight, type LlmResult, type LlmSetup, type SummaryData } from 'k6-llm-bench';

const transport = __ENV.TRANSPORT === 'sse' ? 'sse' : 'http';
const llm = new LlmClient({ url: __ENV.LLM_URL, dialect: 'auto', transport, name: 'sim', tags: { team: 'qa' } });

export const options = llmOptions(
  {
    scenarios: { steady: { executor: 'constant-vus', vus: 2, duration: '${DURATION_MS}ms' } },
    thresholds: { 'llm_success{variant:sim}': ['rate==1'], 'llm_e2e{team:qa}': ['p(99)<10000'], checks: ['rate==1'] },
  },
  { slices: ${SLICES} },
);

export function setup(): { llm: LlmSetup } {
  return { llm: preflight(llm) };
}

export default function (data: { llm: LlmSetup }): void {
  llm.adopt(data.llm);
  const r: LlmResult = llm.complete('Write a short poem about load testing.', { maxTokens: ${OSL}, ignoreEos: true });
  check(r, {
    'ok': (x) => x.ok && x.error === null,
    'tokens as asked': (x) => x.completionTokens === ${OSL} && x.finishReason === 'length',
    'TTFT only where measured': (x) => (transport === 'sse') === (x.ttftMs !== null && x.notMeasured.length === 0),
    'ITL per token where measured': (x) => transport === 'http' ? x.itlMs === null : x.itlRule === 'server-counts' && (x.itlMs?.length ?? 0) > 0,
  });
}

export function handleSummary(data: SummaryData) {
  return llmSummary(data, { title: 'my journey', dir: 'out' });
}
`;

const BUILD = `// The user's bundler config: esbuild, k6 modules external, CommonJS out.
require('esbuild').buildSync({
  entryPoints: ['test.ts'],
  outfile: 'dist/test.js',
  bundle: true,
  format: 'cjs',
  platform: 'neutral',
  target: 'es2017',
  external: ['k6', 'k6/*'],
});
`;

const DIRECT = `// No bundler: the installed ES module imported by its path.
import { LlmClient } from './node_modules/k6-llm-bench/dist/lib/k6-llm-bench.js';
const llm = new LlmClient({ url: __ENV.LLM_URL, dialect: 'sglang' });
export const options = { iterations: 3 };
export default function () {
  const r = llm.generate({ tokenIds: [1001, 1002, 1003, 1004], maxTokens: 8, ignoreEos: true });
  if (!r.ok || r.completionTokens !== 8) throw new Error(JSON.stringify(r));
}
`;

interface Rec {
  variant: string;
  scenario: string;
  requests_ok: number;
  requests_failed: number;
  output_tokens: number;
  input_tokens: number;
  osl_tokens: number;
  output_throughput_tokens_per_s: number;
  output_throughput_ci95_tokens_per_s: [number, number] | null;
  window_ms: { from: number; to: number; method: string };
  ttft_ms: { p50: number; count: number } | null;
  itl_ms: { avg: number; count: number } | null;
  e2e_ms: { p50: number; count: number };
}

const read = (run: K6RunResult, name: string) => {
  const f = run.files.find((x) => x.endsWith(`out/${name}`));
  assert.ok(f, `${name} not written: ${run.files.join(', ')}`);
  return readFileSync(f, 'utf8');
};

/** The run's generation requests as the simulator saw them: preflight's one-token check left out. */
async function truth(sim: RemoteSim) {
  const reqs = (await sim.requests()).filter((r) => r.route === '/generate' && r.completionTokens === OSL);
  const start = Math.min(...reqs.map((r) => r.arrivalMs));
  const window = await sim.summary(start + DURATION_MS / SLICES, start + DURATION_MS);
  return { reqs, window };
}

for (const runner of RUNNERS) {
  describe(`the packed library on ${runner.name}`, { skip: runner.skip ?? undefined }, () => {
    const work = mkdtempSync(join(tmpdir(), 'llm-pack-'));
    const project = join(work, 'project');
    let bundle = '';

    before(() => {
      // npm pack runs prepack (npm run build:lib): the tarball holds a fresh dist/lib.
      execFileSync('npm', ['pack', '--pack-destination', work, '--silent'], { cwd: ROOT, stdio: 'pipe', timeout: 120_000 });
      const tarball = readdirSync(work).find((f) => f.endsWith('.tgz'));
      assert.ok(tarball, 'npm pack wrote no tarball');
      mkdirSync(project);
      writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'my-k6-tests', version: '1.0.0', private: true }, null, 2));
      execFileSync('npm', ['install', '--offline', '--no-audit', '--no-fund', join(work, tarball)], { cwd: project, stdio: 'pipe', timeout: 120_000 });
      writeFileSync(join(project, 'test.ts'), USER_SCRIPT);
      writeFileSync(join(project, 'build.cjs'), BUILD);
      writeFileSync(join(project, 'direct.js'), DIRECT);
      // The user's tsconfig: the library's types come from the installed package's "exports"; k6's from @types/k6 (here, the repository's copy).
      const k6Types = join(ROOT, 'node_modules', '@types', 'k6');
      writeFileSync(
        join(project, 'tsconfig.json'),
        JSON.stringify({
          compilerOptions: {
            target: 'ES2020',
            module: 'ES2020',
            moduleResolution: 'bundler',
            strict: true,
            noEmit: true,
            skipLibCheck: false,
            typeRoots: [join(ROOT, 'node_modules', '@types')],
            types: ['k6'],
            paths: { k6: [join(k6Types, 'index.d.ts')], 'k6/*': [join(k6Types, '*')] },
          },
          files: ['test.ts'],
        }),
      );
      // esbuild and typescript are the user's dev dependencies; here the repository's, found through NODE_PATH.
      const env = { ...process.env, NODE_PATH: join(ROOT, 'node_modules') };
      execFileSync(process.execPath, [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.json'], { cwd: project, env, stdio: 'pipe' });
      execFileSync(process.execPath, ['build.cjs'], { cwd: project, env, stdio: 'pipe' });
      bundle = join(project, 'dist', 'test.js');
    });
    after(() => rmSync(work, { recursive: true, force: true }));

    test('the tarball holds the ES module, its declarations, the examples and docs/library.md; nothing else of the repository', () => {
      const pkg = join(project, 'node_modules', 'k6-llm-bench');
      const manifest = JSON.parse(readFileSync(join(pkg, 'package.json'), 'utf8')) as { exports: Record<string, unknown>; types: string };
      assert.match(readFileSync(join(pkg, 'dist', 'lib', 'k6-llm-bench.js'), 'utf8'), /^export \{[^}]*\bLlmClient\b/m);
      assert.ok(readFileSync(join(pkg, manifest.types), 'utf8').includes('LlmClient'));
      assert.ok(readdirSync(join(pkg, 'examples')).includes('agent-loop.ts'));
      assert.ok(readFileSync(join(pkg, 'docs', 'library.md'), 'utf8').length > 1000);
      assert.deepEqual(readdirSync(pkg).sort(), ['README.md', 'dist', 'docs', 'examples', 'package.json']);
      assert.deepEqual(readdirSync(join(pkg, 'dist')), ['lib'], 'no scenario bundles');
      // Nothing names the extension: k6 >= 1.0 would provision a binary with it for every script that imports the library.
      assert.ok(!readFileSync(join(pkg, 'dist', 'lib', 'k6-llm-bench.js'), 'utf8').includes('k6/x/sse'), 'the library names k6/x/sse');
      assert.ok(!readFileSync(bundle, 'utf8').includes('k6/x/sse'), 'the user bundle names k6/x/sse');
    });

    for (const transport of ['http', 'sse'] as const) {
      test(
        `over ${transport}: the metrics and summary.json, report.md, report.html match the simulator's ground truth`,
        { skip: transport === 'sse' ? (runner.sseSkip ?? undefined) : undefined },
        async (ctx) => {
          const sim = await spawnSim({ engine: 'sglang', spec: 'dflash', timeScale: 4, seed: transport === 'http' ? 31 : 32 });
          try {
            const cwd = mkdtempSync(join(work, `${transport}-`));
            mkdirSync(join(cwd, 'out')); // k6 writes handleSummary's files into existing folders only
            const run = await runner.exec(bundle, { cwd, env: { LLM_URL: sim.url, TRANSPORT: transport }, timeoutMs: 90_000, quiet: true });
            assert.equal(run.exitCode, 0, explain({ result: run, summary: null, wallMs: 0 }));
            const t = await truth(sim);
            const m = run.summaryData!.metrics;

            // The metrics, by the benchmarks' names and tags (variant = the client's name, dialect found by auto, the user's own tag).
            assert.equal(m['llm_success{scenario:steady,variant:sim}'].values.passes, t.reqs.length, 'one sample per request the server answered');
            assert.equal(
              m['llm_output_tokens'].values.count,
              t.reqs.reduce((n, r) => n + r.completionTokens, 0),
            );
            assert.equal(
              m['llm_input_tokens'].values.count,
              t.reqs.reduce((n, r) => n + r.promptTokens, 0),
            );
            assert.equal(m['llm_e2e{team:qa}'].values.count, t.reqs.length);
            assert.equal(m['checks'].values.rate, 1);
            assert.ok(m['llm_acceptance_length'].values.count === t.reqs.length, 'acceptance length per request (SGLang meta_info)');
            if (transport === 'http') {
              // Declared for the report, never sampled: not measured, not estimated.
              for (const k of ['llm_ttft', 'llm_itl', 'llm_tpot']) assert.equal(m[k]?.values.count ?? 0, 0, `${k} over http`);
            } else {
              const ttfts = t.reqs.map((r) => (r.firstTokenMs as number) - r.arrivalMs).sort((a, b) => a - b);
              const p50 = ttfts[Math.floor(ttfts.length / 2)];
              const client = m['llm_ttft'].values.med;
              assert.ok(client - p50 > -2 && client - p50 < 10 + 0.1 * p50, `TTFT p50 client ${client} vs server ${p50}`);
              let gaps = 0;
              let tokens = 0;
              for (const r of t.reqs) {
                for (let i = 1; i < r.events.length; i++) {
                  gaps += r.events[i].timeMs - r.events[i - 1].timeMs;
                  tokens += r.events[i].tokens;
                }
              }
              assert.ok(
                Math.abs(m['llm_itl'].values.avg / (gaps / tokens) - 1) < 0.15,
                `ITL mean client ${m['llm_itl'].values.avg} vs server ${gaps / tokens} per token`,
              );
              assert.equal(m['llm_itl'].values.count, tokens, 'one ITL sample per token after the first event, multi-token events spread');
            }

            // summary.json: one record, the scenario's; throughput over the steady slices as the simulator counted it.
            const summary = JSON.parse(read(run, 'summary.json')) as {
              benchmark: string;
              records: Rec[];
              not_measured: string[];
              variants: Array<{ engineLabel: string; dialect: string }>;
            };
            assert.equal(summary.benchmark, 'my journey');
            assert.equal(summary.records.length, 1);
            const rec = summary.records[0];
            assert.equal(rec.variant, 'sim');
            assert.equal(rec.scenario, 'steady');
            assert.equal(rec.requests_ok, t.reqs.length);
            assert.equal(rec.requests_failed, 0);
            assert.equal(rec.osl_tokens, OSL, 'OSL: the mean output tokens per request');
            assert.equal(rec.window_ms.method, 'steady-slices');
            assert.ok(rec.output_throughput_ci95_tokens_per_s, 'an interval from the slices');
            const tps = rec.output_throughput_tokens_per_s;
            ctx.diagnostic(
              `${transport}: ${t.reqs.length} requests; throughput ${tps.toFixed(0)} tok/s vs the simulator's ` +
                `${t.window.outputTokensPerSec.toFixed(0)}` +
                (transport === 'sse'
                  ? `; TTFT p50 ${m['llm_ttft'].values.med} ms; ITL mean ${m['llm_itl'].values.avg.toFixed(3)} ms over ${m['llm_itl'].values.count} tokens`
                  : ''),
            );
            assert.ok(
              Math.abs(tps / t.window.outputTokensPerSec - 1) < 0.1,
              `throughput ${tps.toFixed(0)} vs the simulator's ${t.window.outputTokensPerSec.toFixed(0)} tokens/s over the steady window`,
            );
            assert.equal(summary.variants[0].engineLabel, 'SGLang');
            assert.equal(summary.variants[0].dialect, 'sglang');
            if (transport === 'http')
              assert.ok(
                summary.not_measured.some((n) => n.startsWith('TTFT, ITL and TPOT')),
                summary.not_measured.join('; '),
              );
            else assert.ok(rec.ttft_ms && rec.ttft_ms.count === t.reqs.length && rec.itl_ms && rec.itl_ms.count > 0);

            // report.md and report.html: the same figures, rendered.
            const md = read(run, 'report.md');
            const html = read(run, 'report.html');
            assert.match(md, /^# my journey — /);
            const row = md.split('\n').find((l) => l.includes('| c=2 | sim |'));
            assert.ok(row && row.includes(`| ${t.reqs.length} |`) && row.includes(fmt(tps)), `${row} (throughput ${fmt(tps)})`);
            assert.ok(html.startsWith('<!doctype html>') || html.startsWith('<!DOCTYPE html>'), html.slice(0, 40));
            assert.ok(html.includes(fmt(tps)) && html.includes('my journey'));
            if (transport === 'http')
              assert.ok(
                md.includes('TTFT, ITL and TPOT: the http transport receives each reply whole') &&
                  html.includes('the http transport receives each reply whole'),
              );
            else assert.ok(md.includes('TTFT p50') && html.includes('TTFT'));
            assert.match(run.stdout, /my journey/);
          } finally {
            await sim.stop();
          }
        },
      );
    }

    test('the ES module imported by path, without a bundler', async () => {
      const sim = await spawnSim({ engine: 'sglang', timeScale: 4, seed: 33 });
      try {
        const run = await runner.exec(join(project, 'direct.js'), { cwd: project, env: { LLM_URL: sim.url }, timeoutMs: 60_000, quiet: true });
        assert.equal(run.exitCode, 0, explain({ result: run, summary: null, wallMs: 0 }));
        const gens = (await sim.requests()).filter((r) => r.route === '/generate');
        assert.deepEqual(
          gens.map((g) => [g.promptTokens, g.completionTokens]),
          [
            [4, 8],
            [4, 8],
            [4, 8],
          ],
        );
        assert.equal(run.summaryData!.metrics['llm_output_tokens'].values.count, 24);
      } finally {
        await sim.stop();
      }
    });
  });
}
