// DATASET in the bundles on real k6: a bad file stops the run at init with one
// line naming the file, the line and the field (exit 108); the built-in set runs against the
// simulator, the domain marker reaching it only when asked.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSim } from './sim-process';
import { explain, RUNNERS } from './harness';

const dir = mkdtempSync(join(tmpdir(), 'dataset-'));
const file = (name: string, text: string) => {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
};
const BAD: Array<{ what: string; path: string; line: RegExp }> = [
  {
    what: 'a JSONL field of the wrong type',
    path: file('bad.jsonl', '{"prompt": "hello"}\n{"prompt": "x", "output_tokens": "abc"}\n'),
    line: /k6-llm-bench smoke: DATASET=\S*bad\.jsonl: line 2: output_tokens must be a positive whole number, got 'abc'/,
  },
  {
    what: 'a ShareGPT array that is not valid JSON',
    path: file('bad.json', '[\n  {"conversations": [{"from": "human", "value": "a"}]},\n  {"conversations": [{"from": "human" "value": "b"}]}\n]\n'),
    line: /k6-llm-bench smoke: DATASET=\S*bad\.json: line 3: not valid JSON/,
  },
  {
    what: 'a ShareGPT turn with an unknown role',
    path: file('role.json', JSON.stringify([{ conversations: [{ from: 'human', value: 'a' }] }, { conversations: [{ from: 'robot', value: 'b' }] }])),
    line: /DATASET=\S*role\.json: item \[1\]: conversations\[0\]\.from must be one of human, gpt, system/,
  },
  { what: 'a missing file', path: join(dir, 'missing.jsonl'), line: /DATASET='\S*missing\.jsonl': cannot read the file/ },
  { what: 'an unknown built-in domain', path: 'builtin:code,poetry', line: /DATASET='builtin:code,poetry' is not valid: .*'poetry' is not one/ },
];

for (const runner of RUNNERS) {
  describe(`DATASET on ${runner.name}`, { skip: runner.skip ?? undefined }, () => {
    for (const bad of BAD) {
      test(`${bad.what} stops the run before any load with one line, exit 108`, async () => {
        const run = await runner.run('smoke', { TARGET_URL: 'http://127.0.0.1:9', DATASET: bad.path }, 30_000);
        // A configuration error aborts in setup (lib/k6/config-error.ts): one line, no stack.
        assert.equal(run.result.exitCode, 108, explain(run));
        const out = run.result.stderr + run.result.stdout;
        assert.match(out, bad.line, explain(run));
        assert.doesNotMatch(out, /\tat |at file:\/\//, 'no JavaScript stack after the message');
        assert.equal(run.summary, null, 'nothing ran');
      });
    }

    test('prompts that fit no ISL bucket stop the run in setup with one line that gives their range, exit 108', async () => {
      const sim = await spawnSim({ engine: 'sglang', timeScale: 8 });
      try {
        const run = await runner.run('smoke', { TARGET_URL: sim.url, DATASET: 'builtin:chat', ISL: '1024' }, 60_000);
        assert.equal(run.result.exitCode, 108, explain(run));
        assert.match(
          run.result.stderr + run.result.stdout,
          /k6-llm-bench smoke: DATASET=builtin:chat: no prompt for ISL 1024 \(512 to 2047 tokens\): the \d+ prompts examined have \d+ to \d+ tokens, estimated as characters ÷ 4 \(no tokenize route\); set ISL to lengths in that range, e\.g\. ISL=\d+\./,
          explain(run),
        );
        assert.equal((await sim.requests()).filter((r) => r.completionTokens === 16).length, 0, 'no load was sent');
      } finally {
        await sim.stop();
      }
    });

    test('builtin: the domain marker reaches the simulator only when asked', async () => {
      const sim = await spawnSim({ engine: 'sglang', spec: 'dflash', specAcceptByDomain: 'code=7,chat=2', timeScale: 8 });
      try {
        const env = { TARGET_URL: sim.url, DATASET: 'builtin:code,chat', ISL: '24', OSL: '16', REQUESTS: '12', CONCURRENCY: '2' };
        const plain = await runner.run('smoke', env, 60_000);
        assert.equal(plain.result.exitCode, 0, explain(plain));
        const before = await sim.requests();
        const load = before.filter((r) => r.completionTokens === 16);
        assert.equal(load.length, 12);
        assert.deepEqual([...new Set(load.map((r) => r.domain))], [null], 'no marker unless asked');
        const marked = await runner.run('smoke', { ...env, DATASET_DOMAIN_MARKER: 'true' }, 60_000);
        assert.equal(marked.result.exitCode, 0, explain(marked));
        const after = (await sim.requests()).slice(before.length).filter((r) => r.completionTokens === 16);
        assert.deepEqual([...new Set(after.map((r) => r.domain))].sort(), ['chat', 'code']);
      } finally {
        await sim.stop();
      }
    });
  });
}
