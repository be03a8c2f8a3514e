// What the suite's own JavaScript costs per streamed event on a real k6: a simulator stream is
// recorded once per dialect, then replayed through the sse transport, the stream's reader and
// the request's samples inside k6 (bench/k6/sse-path.k6.ts), with a stand-in for xk6-sse. Needs
// any real k6 (--k6 PATH, else K6_BIN or PATH; no extension). Prints figures; asserts nothing.
//   npx tsx bench/sse-path.ts [--k6 PATH] [--dialects openai,sglang,openai-chat,anthropic,responses] [--osl 256] [--requests 200]
//                             [--itl-samples every|histogram]
//
// The figure is per event of a one-token-per-event stream: the request's cost (handler, reading,
// samples, one ITL sample per token) minus the stand-in's own replay, median of three rounds. Then
// its parts, each timed alone: the handler (stamping and keeping each event), the reader over kept
// events, and the request's samples: their JavaScript, and what k6 adds to take them. The parts
// include each request's fixed cost spread over its events (try --osl 16 to see that cost).
// bench/sse-cost.ts measures a whole load test instead, network and xk6-sse included.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildSync } from 'esbuild';
import { findK6 } from '../scripts/k6-runtime';
import { splitSseEvents } from '../lib/reading';
import { startSim } from '../sim/index';

const arg = (name: string, def: string): string => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? (process.argv[i + 1] ?? def) : def;
};
const DIALECTS = arg('dialects', 'openai,sglang').split(',');
const OSL = Number(arg('osl', '256'));
const REQUESTS = Number(arg('requests', '200'));
const K6 = arg('k6', '') || findK6();
const ITL_SAMPLES = arg('itl-samples', 'every');

const ROUTES: Record<string, { engine: 'vllm' | 'sglang'; path: string; body: Record<string, unknown> }> = {
  openai: {
    engine: 'vllm',
    path: '/v1/completions',
    body: {
      prompt: [1000, 1001, 1002],
      max_tokens: OSL,
      ignore_eos: true,
      stream: true,
      stream_options: { include_usage: true, continuous_usage_stats: true },
    },
  },
  'openai-chat': {
    engine: 'vllm',
    path: '/v1/chat/completions',
    body: {
      messages: [{ role: 'user', content: 'hi' }],
      max_tokens: OSL,
      ignore_eos: true,
      stream: true,
      stream_options: { include_usage: true, continuous_usage_stats: true },
    },
  },
  anthropic: { engine: 'vllm', path: '/v1/messages', body: { messages: [{ role: 'user', content: 'hi' }], max_tokens: OSL, ignore_eos: true, stream: true } },
  responses: { engine: 'vllm', path: '/v1/responses', body: { input: 'hi', max_output_tokens: OSL, ignore_eos: true, stream: true } },
  sglang: {
    engine: 'sglang',
    path: '/generate',
    body: { input_ids: [1000, 1001, 1002], sampling_params: { max_new_tokens: OSL, ignore_eos: true }, stream: true },
  },
};

async function recordStream(dialect: string): Promise<string[]> {
  const route = ROUTES[dialect];
  if (!route) throw new Error(`no route for dialect ${dialect} (one of ${Object.keys(ROUTES).join(', ')})`);
  const sim = await startSim({ engine: route.engine, port: 0, timeScale: 50, seed: 11 });
  try {
    const res = await fetch(sim.url + route.path, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ model: 'qwen3-32b-sim', ...route.body }),
    });
    if (res.status !== 200) throw new Error(`${route.path}: status ${res.status}`);
    return splitSseEvents(await res.text()).data;
  } finally {
    await sim.stop();
  }
}

const median = (xs: number[]): number => xs.slice().sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function main(): Promise<void> {
  if (!K6) throw new Error('needs a real k6: pass --k6 PATH or set K6_BIN (any k6 binary; the extension is not used)');
  const dir = mkdtempSync(join(tmpdir(), 'sse-path-'));
  const script = join(dir, 'sse-path.js');
  // The bundle's k6 modules stay require() calls, as webpack leaves them (webpack.config.js).
  buildSync({
    entryPoints: [join(__dirname, 'k6', 'sse-path.k6.ts')],
    bundle: true,
    format: 'cjs',
    target: 'es2020',
    platform: 'neutral',
    external: ['k6', 'k6/*'],
    define: { __SSE_BUNDLE__: 'true' },
    outfile: script,
    logLevel: 'warning',
  });
  console.log(`k6: ${K6}; ${REQUESTS} requests per round, one token per event, OSL ${OSL}, ITL_SAMPLES=${ITL_SAMPLES}`);
  console.log('dialect       events  replay µs/ev  request µs/ev  suite µs/ev  (rounds: suite µs/ev)  |  handler  reader  samples: JS  k6');
  for (const dialect of DIALECTS) {
    const events = await recordStream(dialect);
    const file = join(dir, `${dialect}.json`);
    writeFileSync(file, JSON.stringify(events));
    const run = spawnSync(K6, ['run', '-q', '--log-format', 'raw', '--no-usage-report', script], {
      env: { ...process.env, EVENTS_FILE: file, DIALECT: dialect, REQUESTS: String(REQUESTS), ITL_SAMPLES, K6_AUTO_EXTENSION_RESOLUTION: 'false' },
      encoding: 'utf8',
    });
    const line = `${run.stdout}\n${run.stderr}`.split('\n').find((l) => l.startsWith('RESULT '));
    if (run.status !== 0 || !line) throw new Error(`k6 exited ${run.status} without a result:\n${run.stderr.slice(-2000)}`);
    const r = JSON.parse(line.slice(7)) as { events: number; rounds: Array<Record<'replay' | 'request' | 'keep' | 'read' | 'samplesJs' | 'samples', number>> };
    const suite = r.rounds.map((x) => x.request - x.replay);
    // The parts, each the median of its rounds: the reader over kept events (less the keeping), the
    // samples given to a function that drops them (their JavaScript) and to k6 (the rest is k6's),
    // and the handler, what the request costs beyond those.
    const m = (f: (x: (typeof r.rounds)[number]) => number) => median(r.rounds.map(f));
    const reader = m((x) => x.read - x.keep);
    const parts = [median(suite) - reader - m((x) => x.samples), reader, m((x) => x.samplesJs), m((x) => x.samples - x.samplesJs)];
    console.log(
      `${dialect.padEnd(12)} ${String(r.events).padStart(7)}  ${median(r.rounds.map((x) => x.replay))
        .toFixed(2)
        .padStart(12)}  ${median(r.rounds.map((x) => x.request))
        .toFixed(2)
        .padStart(13)}  ${median(suite).toFixed(2).padStart(11)}  (${suite.map((x) => x.toFixed(2)).join(', ')})  |  ${parts
        .map((x) => x.toFixed(2))
        .join('  ')}`,
    );
  }
}

main().catch((e) => {
  console.error(`sse-path: ${e instanceof Error ? e.message : String(e)}`);
  process.exit(1);
});
