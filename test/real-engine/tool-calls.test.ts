// TOOLS on a real llama-server (b11669, --jinja): real tool-call deltas, read by the suite on real k6,
// over both transports. The server runs test/fixtures/corpus/tool-call-kimi-template.jinja (copied
// beside the models, which the chroot sees): its generation prompt opens a call, so b11669's grammar
// keeps the random model inside it (test/fixtures/corpus/README.md says why the Hermes-style
// template cannot). TOOLS=1 sends get_weather, whose free-string city runs to max_tokens: each reply
// is one call cut at OSL, every one of its tokens a tool-call token. The check: the suite's
// llm_tool_call_tokens equal the tokens the replies' usage counted (the server's count; llama.cpp
// sends no per-chunk counts), and /metrics' tokens_predicted_total grew by them plus the preflight's
// one-token probes. --seed 1 makes the server's sampling the same every run (an unlucky seed writes
// the call id's digits to max_tokens, no call). TEST_LONG=1 only: a server start and two requests
// of 64 grammar-constrained tokens (~0.1-0.3 s each on this model's 32,000-token vocabulary): 42-53 s measured.
// test-runner: alone (llama.cpp uses both cores)
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { explain, RUNNERS } from '../scenarios/harness';
import { llamaUnavailableReason, prepareLlama, startLlamaServer, type LlamaServer } from './servers';

const TEMPLATE = 'tool-call-kimi-template.jinja';
const OSL = 64;
const long = process.env.TEST_LONG === '1' ? null : 'TEST_LONG=1 runs it (a real llama-server with tools, ~50 s)';

async function predicted(url: string): Promise<number> {
  const page = await (await fetch(`${url}/metrics`, { signal: AbortSignal.timeout(5_000) })).text();
  const m = /^llamacpp:tokens_predicted_total (\S+)$/m.exec(page);
  assert.ok(m, 'tokens_predicted_total on /metrics');
  return Number(m[1]);
}

interface StructuredRow {
  judged: number;
  valid: number;
  tool_call_replies: number;
  tool_call_tokens: number | null;
  ttft_tool_ms: { count: number } | null;
}

for (const runner of RUNNERS) {
  describe(`TOOLS on llama-server, ${runner.name}`, { skip: runner.skip ?? long ?? undefined }, async () => {
    const unavailable = await llamaUnavailableReason();
    let server: LlamaServer | null = null;
    before(async () => {
      if (unavailable) return;
      const prep = await prepareLlama();
      assert.ok(prep.ok);
      copyFileSync(join(__dirname, '..', 'fixtures', 'corpus', TEMPLATE), join(prep.setup.hostModels, TEMPLATE));
      const tpl = `${prep.setup.models}/${TEMPLATE}`;
      server = await startLlamaServer({ parallel: 1, ctx: 2048, extraArgs: ['--jinja', '--chat-template-file', tpl, '--seed', '1'] });
    });
    after(async () => {
      await server?.stop();
    });
    for (const transport of ['sse', 'http'] as const) {
      const skip = unavailable ?? (transport === 'sse' ? runner.sseSkip : null) ?? false;
      test(`${transport}: llm_tool_call_tokens are the server's counts`, { skip }, async () => {
        const url = (server as LlamaServer).url;
        const before = await predicted(url);
        const run = await runner.run(
          'context-matrix',
          {
            TARGET_URL: url,
            DIALECT: 'openai-chat',
            TRANSPORT: transport,
            TOOLS: '1',
            TOOL_CHOICE: 'required',
            ISL: '16',
            OSL: String(OSL),
            CONCURRENCY: '1',
            REQUESTS: '1',
            WARMUP_REQUESTS: '0',
            CACHE_RESET: 'never',
            REQUEST_TIMEOUT: '60s',
            SLO_ERROR_RATE: '1',
          },
          180_000,
        );
        assert.equal(run.result.exitCode, 0, explain(run));
        const grew = (await predicted(url)) - before;
        const file = run.result.files.find((f) => f.endsWith('.summary.json')) as string;
        const summary = JSON.parse(readFileSync(file, 'utf8')) as {
          structured_output: StructuredRow[] | null;
          records: Array<{ requests_ok: number; output_tokens: number | null }>;
        };
        const row = summary.structured_output?.[0];
        assert.ok(row, `${JSON.stringify(summary.structured_output)}\n${explain(run)}`);
        console.log(`# ${runner.name} ${transport}: ${row.tool_call_replies} replies with calls, ${row.tool_call_tokens} tool-call tokens; /metrics +${grew}`);
        assert.equal(row.tool_call_replies, 1, 'the reply carried a call');
        const rec = summary.records[0];
        assert.equal(rec.requests_ok, 1, 'one reply measured');
        assert.equal(row.tool_call_tokens, rec.output_tokens, "the call's tokens are all the tokens the reply's usage counted");
        const probes = grew - (row.tool_call_tokens ?? NaN);
        assert.ok(probes >= 0 && probes <= 4, `/metrics grew by the call's tokens and the preflight's one-token probes: +${grew}`);
        assert.equal(row.judged, 1);
        assert.equal(row.valid, 0, 'JSON cut at max_tokens');
        if (transport === 'sse') assert.equal(row.ttft_tool_ms?.count, 1, 'the first tool-call token timed');
        else assert.equal(row.ttft_tool_ms, null, 'http cannot time it');
      });
    }
  });
}
