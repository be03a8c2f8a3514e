// Which client measures right: the suite beside AIPerf, GuideLLM and inference-perf against the
// simulator's ground truth (docs/parity.md). One simulator (in this process, so its record of every
// request is read directly) serves each tool in turn, load by load, tools interleaved within a load
// so they share the machine's conditions. For each tool and load: the error of its reported p50 and
// p99 of TTFT, ITL, TPOT and e2e against the truth's p50 and p99 over the requests of its run, its
// token count against the tokens served, its failures, and its own CPU and peak memory.
// Prints figures; asserts nothing.
//   npm run parity -- [--loads 8,64,256,512] [--duration 25] [--isl 128] [--osl 64]
//                     [--tools suite,aiperf,guidellm,inference-perf] [--k6 PATH] [--out FILE.md]
//                     [--client-nice N]
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, setPriority, tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSim } from '../sim/index';
import type { RequestRecord } from '../sim/index';
import { findK6, INSTALL_K6 } from '../scripts/k6-runtime';
import { markdownTable, toolLine, truthLine, truthOf, type Row } from './parity/figures';
import { runTree } from './parity/measure';
import { PEERS, type ToolPaths, type Workload } from './parity/peers';

const ROOT = join(__dirname, '..');
const arg = (name: string, def: string): string => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? (process.argv[i + 1] ?? def) : def;
};
const positive = (name: string, def: string): number[] => {
  const v = arg(name, def)
    .split(',')
    .map((s) => Number(s.trim()));
  if (v.length === 0 || v.some((n) => !Number.isInteger(n) || n <= 0))
    throw new Error(`--${name} takes positive whole numbers (comma-separated), got "${arg(name, def)}"`);
  return v;
};

const LOADS = positive('loads', '8,64,256,512');
const [DURATION] = positive('duration', '25');
const [ISL] = positive('isl', '128');
const [OSL] = positive('osl', '64');
const TOOLS = arg('tools', 'suite,aiperf,guidellm,inference-perf').split(',');
const CACHE = process.env.PARITY_CACHE ?? '/var/cache/k6-llm-bench/parity';
const OUT = arg('out', '');
// Run every client under `nice -n N` (negative: ahead of the machine's other work; root only), to
// tell a client's own lateness from the CPU it was denied on a shared machine.
const CLIENT_NICE = Number(arg('client-nice', '0'));
const MODEL = 'qwen3-32b-sim';

/** Every file under `dir` (the tools nest their reports in folders of their own naming). */
function filesUnder(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...filesUnder(p));
    else out.push(p);
  }
  return out;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const nowMs = (): number => performance.timeOrigin + performance.now();

async function main(): Promise<void> {
  const unknown = TOOLS.filter((t) => !PEERS[t]);
  if (unknown.length) throw new Error(`unknown tool(s) ${unknown.join(', ')}: one of ${Object.keys(PEERS).join(', ')}`);
  const k6 = arg('k6', '') || findK6();
  if (TOOLS.includes('suite') && !k6) throw new Error(`the suite needs a k6 built with xk6-sse (--k6 PATH or K6_BIN). ${INSTALL_K6}`);
  if (TOOLS.some((t) => t !== 'suite')) {
    const peers = TOOLS.filter((t) => t !== 'suite');
    const install = spawnSync('bash', [join(__dirname, 'parity', 'install.sh'), ...peers], {
      stdio: ['ignore', 'inherit', 'inherit'],
      env: { ...process.env, PARITY_CACHE: CACHE },
    });
    if (install.status !== 0) throw new Error('installing the peers failed (the line above says which)');
  }
  const paths: ToolPaths = {
    aiperf: join(CACHE, 'aiperf', 'bin'),
    guidellm: join(CACHE, 'guidellm', 'bin'),
    inferencePerf: join(CACHE, 'inference-perf', 'bin'),
    k6: k6 ?? '',
    bundle: join(ROOT, 'dist', 'sse', 'context-matrix.js'),
  };
  // The simulator runs in this process: ahead of the clients and of the machine's other work for
  // the CPU (root only; elsewhere it stays as it is), so that its record of the truth is read on time.
  try {
    setPriority(-5);
  } catch {
    console.error("parity: could not raise the simulator's priority (not root): its intake lag may be larger");
  }
  const sim = await startSim({
    engine: 'vllm',
    port: 0,
    timeScale: 1,
    seed: 11,
    maxRunning: Math.max(...LOADS),
    kvCapacity: 100_000_000,
    recordLimit: 1_000_000,
  });
  const header =
    `parity: ${TOOLS.join(', ')} against the simulator (vLLM profile, time-scale 1, ${sim.url}); /v1/completions streamed, ISL ` +
    `${ISL}, OSL ${OSL} forced (ignore_eos), closed loop at ${LOADS.join(', ')} concurrent requests, ${DURATION} s each` +
    `${CLIENT_NICE ? `, clients at nice ${CLIENT_NICE}` : ''}; ${cpus().length} CPUs, load average ${loadavg()
      .map((x) => x.toFixed(1))
      .join(' ')} at the start`;
  console.log(header);
  const rows: Row[] = [];
  const lines: string[][] = [];
  try {
    for (const load of LOADS) {
      // inference-perf's concurrent stage sends a count, not a duration: the count the first
      // tool completed at this load in the same time, so its run lasts about as long.
      let requests = load * 4;
      for (const tool of TOOLS) {
        const row = await runOne(tool, load, requests, sim, paths);
        if (tool === TOOLS[0] && row.truth.completed > 0) requests = row.truth.completed;
        rows.push(row);
        // Each tool's errors are against its own run's truth: that truth row above its row.
        lines.push(truthLine(load, row.truth), toolLine(row));
        console.log(
          markdownTable([truthLine(load, row.truth), toolLine(row)])
            .split('\n')
            .slice(2)
            .join('\n'),
        );
        await sleep(2000);
      }
    }
  } finally {
    await sim.stop();
  }
  // What each tool's cells mean where its figure of that name is defined otherwise (docs/parity.md).
  const notes = [...new Set(rows.flatMap((r) => (r.reported?.notes ?? []).map((n) => `- ${r.tool}: ${n}`)))];
  const table = markdownTable(lines) + (notes.length ? `\n\n${notes.join('\n')}` : '');
  console.log(
    `\n${table}\n\nload average at the end: ${loadavg()
      .map((x) => x.toFixed(1))
      .join(' ')}`,
  );
  if (OUT) {
    writeFileSync(OUT, `${header}\n\n${table}\n`);
    writeFileSync(OUT.replace(/\.md$/, '') + '.json', JSON.stringify(rows, null, 1));
  }
  if (rows.some((r) => r.failure !== null)) process.exitCode = 1;
}

async function runOne(tool: string, load: number, requests: number, sim: Awaited<ReturnType<typeof startSim>>, paths: ToolPaths): Promise<Row> {
  const peer = PEERS[tool];
  if (!peer) throw new Error(`unknown tool ${tool}`);
  const dir = mkdtempSync(join(tmpdir(), `parity-${tool}-${load}-`));
  const w: Workload = {
    url: sim.url,
    model: MODEL,
    isl: ISL,
    osl: OSL,
    concurrency: load,
    durationSec: DURATION,
    tokenizer: join(CACHE, 'tokenizer'),
    requests,
  };
  const launch = peer.launch(w, dir, paths);
  sim.groundTruth().reset();
  const from = nowMs();
  // Generous: tool start-up (Python imports, tokenizer, worker processes) and its grace period.
  const argv = CLIENT_NICE ? ['nice', '-n', String(CLIENT_NICE), ...launch.argv] : launch.argv;
  const run = await runTree(argv, { env: { ...process.env, ...launch.env }, cwd: dir, timeoutSec: DURATION * 4 + 180 });
  const to = nowMs();
  await sleep(500);
  const records = (sim.groundTruth().requests as RequestRecord[]).filter((r) => r.stream && r.maxNewTokens === OSL);
  const truth = truthOf(records, from, to);
  const files = filesUnder(dir);
  const read = peer.read((re) => {
    const f = files.find((p) => re.test(p.slice(p.lastIndexOf('/') + 1)));
    return f ? readFileSync(f, 'utf8') : null;
  });
  let failure: string | null = null;
  if (run.timedOut) failure = `killed after ${DURATION * 4 + 180} s`;
  else if (run.exit !== 0) failure = `exit ${run.exit}`;
  if (read instanceof Error) {
    failure = `${failure ? failure + '; ' : ''}${read.message}`;
    console.error(`parity: ${tool} at ${load}: ${failure}; its output ends:\n${run.output.slice(-1500)}`);
  } else if (failure) console.error(`parity: ${tool} at ${load}: ${failure}; its output ends:\n${run.output.slice(-1500)}`);
  return {
    load,
    tool,
    reported: read instanceof Error ? null : read,
    truth,
    cost: Number.isFinite(run.cpuSec) ? { cpuSec: run.cpuSec, peakRssMb: run.peakRssMb } : null,
    failure,
    loadAvg: loadavg()[0] ?? NaN,
  };
}

main().catch((e: unknown) => {
  console.error(`parity: ${e instanceof Error ? e.message : String(e)}`);
  process.exit(1);
});
