// MULTI_TURN against the simulator: conversations replayed turn by turn by one VU, each request
// carrying the conversation so far; the report's cached prompt tokens (and prompt tokens, and
// requests) per turn must be the ones the simulator recorded, turn by turn; the server's own
// replies make the history with MULTI_TURN_HISTORY=server; THINK_TIME spaces the turns.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RequestRecord } from '../../sim/index';
import { spawnSim } from './sim-process';
import { explain, RUNNERS } from './harness';

const OSL = 24;
const CONVERSATIONS = 5;
const TURNS = 3;
const sentence = (i: number, k: number, words: number) => Array.from({ length: words }, (_, w) => `word${(i * 7 + k * 3 + w) % 50}`).join(' ');
const dir = mkdtempSync(join(tmpdir(), 'multiturn-'));
const FILE = join(dir, 'conversations.jsonl');
writeFileSync(
  FILE,
  Array.from({ length: CONVERSATIONS }, (_, i) =>
    JSON.stringify({
      id: `conv-${i}`,
      domain: 'chat',
      conversations: Array.from({ length: TURNS * 2 - 1 }, (_, k) =>
        k % 2 === 0 ? { from: 'human', value: `Question ${i}.${k}: ${sentence(i, k, 30)}` } : { from: 'gpt', value: 'Fine.' },
      ),
    }),
  ).join('\n') + '\n',
);

interface TurnJson {
  turn: string;
  requests: number;
  ttft_ms: { count: number } | null;
  input_tokens: number;
  cached_tokens: number;
}
type DatasetJson = { records: Array<{ turns: TurnJson[] }> };

/** The simulator's records of the run (one VU, so in the order sent), each with its turn. */
async function recorded(records: RequestRecord[]): Promise<Array<RequestRecord & { turn: number }>> {
  const run = records.filter((r) => r.completionTokens === OSL).sort((a, b) => a.arrivalMs - b.arrivalMs);
  return run.map((r, i) => ({ ...r, turn: (i % TURNS) + 1 }));
}

for (const runner of RUNNERS) {
  describe(`MULTI_TURN on ${runner.name}`, { skip: runner.skip ?? runner.sseSkip ?? undefined }, () => {
    test("cached prompt tokens, prompt tokens and TTFT by turn are the simulator's; server history and think time", async () => {
      const sim = await spawnSim({ engine: 'sglang', spec: 'none', timeScale: 8, blockSize: 4 });
      try {
        const env = {
          TARGET_URL: sim.url,
          DATASET: FILE,
          MULTI_TURN: 'true',
          ISL: '64',
          OSL: String(OSL),
          CONCURRENCY: '1',
          REQUESTS: String(CONVERSATIONS * TURNS),
          TRANSPORT: 'sse',
          PROMPT_POOL: String(CONVERSATIONS),
        };
        const run = await runner.run('smoke', { ...env, DURATION: '60s' }, 90_000);
        assert.equal(run.result.exitCode, 0, explain(run));
        const turns = (run.summary as unknown as { dataset: DatasetJson }).dataset.records[0].turns;
        const recs = await recorded(await sim.requests());
        assert.equal(recs.length, CONVERSATIONS * TURNS);
        assert.deepEqual(
          turns.map((t) => t.turn),
          ['1', '2', '3'],
        );
        for (const t of turns) {
          const mine = recs.filter((r) => String(r.turn) === t.turn);
          assert.equal(t.requests, mine.length, `turn ${t.turn} requests`);
          assert.equal(t.ttft_ms?.count, mine.length, `turn ${t.turn}: TTFT of every request`);
          assert.equal(
            t.input_tokens,
            mine.reduce((s, r) => s + r.promptTokens, 0),
            `turn ${t.turn} prompt tokens`,
          );
          assert.equal(
            t.cached_tokens,
            mine.reduce((s, r) => s + r.cachedTokens, 0),
            `turn ${t.turn} cached tokens`,
          );
        }
        assert.equal(turns[0].cached_tokens, 0, 'a first turn shares nothing with earlier prompts');
        assert.ok(turns[1].cached_tokens > 0.5 * turns[0].input_tokens, "the second turn reuses the first turn's prompt from the cache");
        assert.match(run.result.stdout, /By turn:/);

        // The server's replies as history, and a think time between turns.
        const before = (await sim.requests()).length;
        const srv = await runner.run('smoke', { ...env, MULTI_TURN_HISTORY: 'server', THINK_TIME: '300ms', DURATION: '60s' }, 90_000);
        assert.equal(srv.result.exitCode, 0, explain(srv));
        const again = await recorded((await sim.requests()).slice(before));
        for (let i = 0; i < again.length; i++) {
          const r = again[i];
          if (r.turn === 1) continue;
          const prev = again[i - 1];
          // The dataset's recorded reply is "Fine." (2 tokens); the server's is OSL tokens of its own text, which its
          // tokenizer reads back as fewer tokens (pieces join into longer words), but well over half of them.
          const dsTurn = recs[i];
          assert.ok(
            r.promptTokens >= dsTurn.promptTokens + (OSL / 2 - 2) * (r.turn - 1),
            `turn ${r.turn}: ${r.promptTokens} prompt tokens with the server's replies vs ${dsTurn.promptTokens} with the dataset's`,
          );
          assert.ok(
            r.arrivalMs - (prev.finishMs as number) >= 290,
            `think time before turn ${r.turn}: ${(r.arrivalMs - (prev.finishMs as number)).toFixed(0)} ms`,
          );
        }
      } finally {
        await sim.stop();
      }
    });
  });
}
