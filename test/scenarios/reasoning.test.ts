// A reasoning model on real k6: the simulator's reasoning profile streams N reasoning tokens, then
// the answer. The time to the first answer token must match the simulator's record of when that
// token went out (as TTFT matches in sse.test.ts), and the reasoning/answer split must equal the
// truth, on both transports (http cannot time events: it says so, and still counts the split).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { spawnSim } from './sim-process';
import { explain, RUNNERS } from './harness';

const OSL = 48;
const FRACTION = 0.5;

interface ReasoningRecord {
  requests_ok: number;
  output_tokens: number;
  notes: string[];
  reasoning: {
    requests: number;
    ttft_reasoning_ms: { p50: number; count: number } | null;
    ttft_answer_ms: { p50: number; count: number } | null;
    reasoning_tokens: number | null;
    answer_tokens: number | null;
  } | null;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

for (const runner of RUNNERS) {
  for (const transport of ['sse', 'http'] as const) {
    const skip = runner.skip ?? (transport === 'sse' ? runner.sseSkip : null) ?? undefined;
    describe(`reasoning replies over ${transport} on ${runner.name}`, { skip }, () => {
      test('time to first answer token against the truth; the reasoning and answer tokens equal it', async () => {
        const sim = await spawnSim({ engine: 'vllm', timeScale: 1, seed: 21, reasoningFraction: FRACTION, reasoningField: 'reasoning' });
        try {
          const run = await runner.run(
            'context-matrix',
            {
              TARGET_URL: sim.url,
              DIALECT: 'openai-chat',
              TRANSPORT: transport,
              ISL: '128',
              OSL: String(OSL),
              CONCURRENCY: '2',
              DURATION: '5s',
              SLICES: '1',
              REQUEST_TIMEOUT: '10s',
              GRACEFUL_STOP: '5s',
              WARMUP_REQUESTS: '0',
            },
            90_000,
          );
          assert.equal(run.result.exitCode, 0, explain(run));
          const file = run.result.files.find((f) => f.endsWith('.summary.json')) as string;
          const rec = (JSON.parse(readFileSync(file, 'utf8')) as { records: ReasoningRecord[] }).records[0];
          const truth = (await sim.requests()).filter((r) => r.maxNewTokens === OSL && r.completionTokens === OSL);
          assert.ok(truth.length >= 5, `${truth.length} run requests in the truth`);
          const perRequest = FRACTION * OSL;
          assert.ok(
            truth.every((r) => r.reasoningTokens === perRequest && r.firstAnswerMs !== null),
            'the profile: half the budget reasons, then it answers',
          );
          const rs = rec.reasoning;
          assert.ok(rs !== null, 'the run saw its replies reason');
          assert.equal(rs.requests, rec.requests_ok, 'every successful reply reasoned');
          assert.equal(rs.reasoning_tokens, perRequest * rec.requests_ok, 'reasoning tokens equal the truth');
          assert.equal(rs.answer_tokens, rec.output_tokens - perRequest * rec.requests_ok, 'answer tokens are the rest');
          assert.ok(
            rec.notes.some((n) => /replies reasoned before answering/.test(n)),
            rec.notes.join(' | '),
          );
          if (transport === 'http') {
            assert.equal(rs.ttft_answer_ms, null, 'http cannot time the answer');
            assert.ok(rec.notes.some((n) => /first answer token not measured \(needs TRANSPORT=sse\)/.test(n)));
            return;
          }
          const trueAnswer = median(truth.map((r) => (r.firstAnswerMs as number) - r.arrivalMs));
          const trueFirst = median(truth.map((r) => (r.firstTokenMs as number) - r.arrivalMs));
          // The answer starts a whole reasoning span after the first token: reading the first token
          // (or the end) as the answer's would miss by that much; the client's own overhead is far less.
          const span = trueAnswer - trueFirst;
          assert.ok(span > 50, `the reasoning span is long enough to tell apart: ${span} ms`);
          assert.ok(rs.ttft_answer_ms !== null && rs.ttft_answer_ms.count === rec.requests_ok, 'one answer TTFT per reply');
          const gap = rs.ttft_answer_ms.p50 - trueAnswer;
          console.log(
            `# ${runner.name}: time to first answer token p50 client ${rs.ttft_answer_ms.p50.toFixed(1)} ms, truth ` +
              `${trueAnswer.toFixed(1)} ms; first reasoning token client ${rs.ttft_reasoning_ms?.p50.toFixed(1)} ms, ` +
              `truth ${trueFirst.toFixed(1)} ms`,
          );
          assert.ok(gap > -2 && gap < 0.1 * span, `answer TTFT p50 client ${rs.ttft_answer_ms.p50} vs truth ${trueAnswer} (span ${span})`);
          assert.ok(rs.ttft_reasoning_ms !== null && Math.abs(rs.ttft_reasoning_ms.p50 - trueFirst) < 0.1 * span, 'first reasoning token too');
        } finally {
          await sim.stop();
        }
      });
    });
  }
}

// A model served without a reasoning parser (<think>…</think> in the content, no reasoning count):
// THINK_TAGS=true reads the answer's first token from the text, and SLO_TTFT_OF=answer holds
// SLO_TTFT_P99 to it: between the first token (~70 ms) and the answer (~720 ms), every reply
// misses, so the threshold fails the run (exit 99) and goodput is 0.
for (const runner of RUNNERS) {
  const skip = runner.skip ?? runner.sseSkip ?? undefined;
  describe(`think tags and SLO_TTFT_OF=answer on ${runner.name}`, { skip }, () => {
    test('the answer time from <think> spans matches the truth; the TTFT SLO judges it', async () => {
      const sim = await spawnSim({ engine: 'vllm', timeScale: 1, seed: 22, reasoningFraction: FRACTION, reasoningField: 'think' });
      try {
        const run = await runner.run(
          'context-matrix',
          {
            TARGET_URL: sim.url,
            DIALECT: 'openai-chat',
            TRANSPORT: 'sse',
            THINK_TAGS: 'true',
            SLO_TTFT_P99: '400ms',
            SLO_TTFT_OF: 'answer',
            SLO_ERROR_RATE: '1',
            ISL: '128',
            OSL: String(OSL),
            CONCURRENCY: '2',
            DURATION: '5s',
            SLICES: '1',
            REQUEST_TIMEOUT: '10s',
            GRACEFUL_STOP: '5s',
            WARMUP_REQUESTS: '0',
          },
          90_000,
        );
        assert.equal(run.result.exitCode, 99, `the answer SLO is breached\n${explain(run)}`);
        assert.match(run.result.stderr, /thresholds on metrics 'llm_ttft_answer' have been crossed/);
        const file = run.result.files.find((f) => f.endsWith('.summary.json')) as string;
        const rec = (JSON.parse(readFileSync(file, 'utf8')) as { records: Array<ReasoningRecord & { goodput_requests_per_s: number | null }> }).records[0];
        const truth = (await sim.requests()).filter((r) => r.maxNewTokens === OSL && r.completionTokens === OSL);
        const trueAnswer = median(truth.map((r) => (r.firstAnswerMs as number) - r.arrivalMs));
        const trueFirst = median(truth.map((r) => (r.firstTokenMs as number) - r.arrivalMs));
        const rs = rec.reasoning;
        assert.ok(rs !== null && rs.requests === rec.requests_ok && rs.ttft_answer_ms !== null, JSON.stringify(rec));
        console.log(
          `# ${runner.name}: <think> spans: time to first answer token p50 client ${rs.ttft_answer_ms.p50.toFixed(1)} ms, truth ${trueAnswer.toFixed(1)} ms`,
        );
        assert.ok(
          Math.abs(rs.ttft_answer_ms.p50 - trueAnswer) < 0.1 * (trueAnswer - trueFirst),
          `answer TTFT p50 client ${rs.ttft_answer_ms.p50} vs truth ${trueAnswer}`,
        );
        assert.equal(rs.reasoning_tokens, FRACTION * OSL * rec.requests_ok, 'counted from the stream, the server said none');
        assert.equal(rec.goodput_requests_per_s, 0, 'no reply answered within 400 ms');
      } finally {
        await sim.stop();
      }
    });
  });
}

// Tool calls on real k6 (issue 54 item 3): TOOLS=2 with TOOL_CHOICE=required, a simulator that
// spoils a share of its calls (--schema-violation-rate). Every reply is one call, so its tokens
// are tool-call tokens; the run's valid share and tool-call tokens must equal the truth's, on both
// transports (http: the non-streamed message.tool_calls, sse: the streamed deltas, with the time to
// the first tool-call token). 3 s of load at timeScale 5 per transport: ~8 s each with k6's start.
interface StructuredRow {
  judged: number;
  valid: number;
  tool_call_replies: number;
  tool_call_tokens: number | null;
  ttft_tool_ms: { p50: number; count: number } | null;
}
for (const runner of RUNNERS) {
  for (const transport of ['sse', 'http'] as const) {
    const skip = runner.skip ?? (transport === 'sse' ? runner.sseSkip : null) ?? undefined;
    describe(`tool calls over ${transport} on ${runner.name}`, { skip }, () => {
      test('the valid share and the tool-call tokens equal the truth', async () => {
        const sim = await spawnSim({ engine: 'vllm', timeScale: 5, seed: 23, schemaViolationRate: 0.3 });
        try {
          const run = await runner.run(
            'context-matrix',
            {
              TARGET_URL: sim.url,
              DIALECT: 'openai-chat',
              TRANSPORT: transport,
              TOOLS: '2',
              ISL: '64',
              OSL: '24',
              CONCURRENCY: '2',
              DURATION: '3s',
              SLICES: '1',
              REQUEST_TIMEOUT: '10s',
              GRACEFUL_STOP: '5s',
              WARMUP_REQUESTS: '0',
              SLO_ERROR_RATE: '1',
            },
            60_000,
          );
          assert.equal(run.result.exitCode, 0, explain(run));
          const file = run.result.files.find((f) => f.endsWith('.summary.json')) as string;
          const summary = JSON.parse(readFileSync(file, 'utf8')) as {
            structured_output: StructuredRow[] | null;
            records: Array<{ ttft_ms: { p50: number; p99: number } | null }>;
          };
          const row = summary.structured_output?.[0];
          assert.ok(row, JSON.stringify(summary.structured_output));
          const truth = (await sim.requests()).filter((r) => r.structured !== undefined && r.finishReason === 'length');
          const valid = truth.filter((r) => r.structured?.valid).length;
          console.log(
            `# ${runner.name} ${transport}: ${row.valid} / ${row.judged} valid (truth ${valid} / ${truth.length}); tool-call tokens ${row.tool_call_tokens}`,
          );
          assert.ok(truth.length >= 5 && valid > 0 && valid < truth.length, `the truth has valid and spoiled calls: ${valid} / ${truth.length}`);
          assert.equal(row.judged, truth.length, 'every reply judged');
          assert.equal(row.valid, valid, 'the valid replies are the truth’s');
          assert.equal(row.tool_call_replies, truth.length);
          assert.equal(
            row.tool_call_tokens,
            truth.reduce((a, r) => a + (r.structured?.toolCallTokens ?? 0), 0),
            'tool-call tokens equal the truth',
          );
          if (transport === 'http') assert.equal(row.ttft_tool_ms, null, 'http cannot time the first tool-call token');
          else {
            assert.equal(row.ttft_tool_ms?.count, truth.length, 'one time to first tool-call token per reply');
            // Every reply is one call: its first token is its first tool-call token.
            assert.equal(row.ttft_tool_ms?.p50, summary.records[0].ttft_ms?.p50, 'the first tool-call token is the first token');
          }
        } finally {
          await sim.stop();
        }
      });
    });
  }
}
