import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { OPTION_SPECS, OptionError, parseArgs, resolveOptions } from '../../sim/index';

const parse = (...argv: string[]) => {
  const o = parseArgs(argv);
  assert.notEqual(o, 'help');
  return o as Exclude<typeof o, 'help'>;
};

test('CLI defaults: port follows the engine, spec defaults fill in', () => {
  assert.equal(parse().port, 30000);
  assert.equal(parse().engine, 'sglang');
  assert.equal(parse('--engine', 'vllm').port, 8000);
  assert.equal(parse('--engine=vllm', '--port', '0').port, 0);
  const d = parse('--spec', 'dflash');
  assert.equal(d.specAcceptLength, 6);
  assert.equal(d.specDraftTokens, 15);
  assert.equal(parse('--spec', 'mtp').specAcceptLength, 2.5);
  assert.equal(parse('--spec', 'ddtree').specAcceptLength, 8);
  assert.equal(parse('--stall').faults.stall, true);
  assert.equal(parse('--no-prefix-caching').prefixCaching, false);
  assert.equal(parse('--error-rate-429', '0.25').faults.errorRate429, 0.25);
});

test('bad options name the option, the value and what is allowed', () => {
  const cases: [string[], RegExp][] = [
    [['--bogus', '1'], /--bogus: unknown option/],
    [['--port', 'abc'], /--port: invalid value 'abc'; allowed: an integer from 0 to 65535/],
    [['--port', '70000'], /--port: invalid value 70000; allowed: an integer from 0 to 65535/],
    [['--time-scale', '0'], /--time-scale: invalid value 0; allowed: a number from 0.01 to 1000/],
    [['--engine', 'tgi'], /--engine: invalid value 'tgi'; allowed: one of sglang, vllm/],
    [['--dialect', 'tgi'], /--dialect: invalid value 'tgi'; allowed: one of sglang, vllm/],
    [['--spec', 'eagle'], /--spec: invalid value 'eagle'; allowed: one of none, mtp, dflash, ddtree/],
    [['--max-running', '1.5'], /--max-running: invalid value 1.5; allowed: an integer/],
    [['--seed'], /--seed: missing value/],
    [['--spec', 'mtp', '--spec-accept-length', '5'], /--spec-accept-length: value 5 is out of range.*allowed: 1 to 4/],
    [['--error-rate-500', '2'], /--error-rate-500: invalid value 2; allowed: a number from 0 to 1/],
    [['--stall=maybe'], /--stall: invalid value 'maybe'; allowed: true or false/],
  ];
  for (const [argv, re] of cases)
    assert.throws(
      () => parseArgs(argv),
      (e: unknown) => e instanceof OptionError && re.test(e.message),
      argv.join(' '),
    );
});

test('startSim options go through the same validation', () => {
  assert.throws(() => resolveOptions({ timeScale: -1 }), /option timeScale: invalid value -1/);
  assert.throws(() => resolveOptions({ nope: 1 } as never), /option nope: unknown option/);
  assert.throws(() => resolveOptions({ faults: { slowFactor: 'x' } } as never), /fault slowFactor: invalid value 'x'/);
  assert.equal(resolveOptions({}).port, 0);
  assert.equal(resolveOptions({ engine: 'vllm' }).engine, 'vllm');
  assert.throws(() => resolveOptions({ dialect: 'vllm' } as never), /option dialect: renamed to engine/);
});

test('--dialect still works as a deprecated name of --engine, with one notice', () => {
  const notices: string[] = [];
  const o = parseArgs(['--dialect', 'vllm', '--port=0'], (m) => notices.push(m));
  assert.notEqual(o, 'help');
  assert.equal((o as Exclude<typeof o, 'help'>).engine, 'vllm');
  assert.deepEqual(notices, ['--dialect is deprecated; use --engine (same values)']);
  assert.equal(parse('--dialect=vllm').port, 8000);
  const bad = spawnSync(process.execPath, ['--import', 'tsx', 'sim/cli.ts', '--dialect', 'tgi'], { encoding: 'utf8' });
  assert.equal(bad.status, 2);
  assert.equal(bad.stderr, "sim: --dialect is deprecated; use --engine (same values)\nsim: --dialect: invalid value 'tgi'; allowed: one of sglang, vllm\n");
});

test('the CLI exits 2 with one clear line on a bad option, and --help lists every option', () => {
  const bad = spawnSync(process.execPath, ['--import', 'tsx', 'sim/cli.ts', '--max-queue', '-3'], { encoding: 'utf8' });
  assert.equal(bad.status, 2);
  assert.match(bad.stderr, /^sim: --max-queue: invalid value -3; allowed: an integer from 0 to 10000000\n$/);
  const help = spawnSync(process.execPath, ['--import', 'tsx', 'sim/cli.ts', '--help'], { encoding: 'utf8' });
  assert.equal(help.status, 0);
  for (const s of OPTION_SPECS) assert.ok(help.stdout.includes(`--${s.flag} `), `--help lists --${s.flag}`);
  assert.match(help.stdout, /default 30000 \(sglang\) \/ 8000 \(vllm\)/);
});

test('the CLI prints its URL when listening and stops on SIGTERM', async () => {
  const { spawn } = await import('node:child_process');
  const child = spawn(process.execPath, ['--import', 'tsx', 'sim/cli.ts', '--engine', 'vllm', '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
  const line = await new Promise<string>((resolve) => child.stdout.once('data', (d: Buffer) => resolve(d.toString())));
  assert.match(line, /listening on http:\/\/127\.0\.0\.1:\d+\n$/);
  const url = /http:\/\/\S+/.exec(line)?.[0] as string;
  const r = await fetch(`${url}/health`);
  assert.equal(r.status, 200);
  child.kill('SIGTERM');
  const code = await new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)));
  assert.equal(code, 0);
});
