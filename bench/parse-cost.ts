// CPU cost of the measuring code per request: building the request and parsing the reply, per
// dialect and transport, for 128, 1k and 8k output tokens. Prints figures; asserts nothing.
//   npx tsx bench/parse-cost.ts
import { createDialect, DIALECT_TRAITS, type DialectName } from '../lib/dialects/index';
import { splitSseEvents } from '../lib/reading';
import { tokenPromptPool } from '../lib/workload/seeded-prompts';
import { recordRequest } from '../lib/metrics/samples';

const ctx = { dialectVar: 'DIALECT', modelVar: 'MODEL', model: 'm' };
const WORD = ' tok';

/** Replies shaped like the servers': `spec` tokens per event as under speculative decoding. */
function replies(dialect: DialectName, n: number, perEvent: number): { json: string; stream: string } {
  const events: string[] = [];
  let text = '';
  for (let done = 0; done < n;) {
    const k = Math.min(perEvent, n - done);
    const delta = WORD.repeat(k);
    text += delta;
    done += k;
    const last = done === n;
    if (dialect === 'sglang') {
      events.push(
        JSON.stringify({
          text,
          output_ids: [],
          meta_info: {
            id: 'x',
            finish_reason: last ? { type: 'length', length: n } : null,
            prompt_tokens: 1024,
            completion_tokens: done,
            cached_tokens: 0,
            spec_verify_ct: Math.ceil(done / perEvent),
          },
        }),
      );
    } else if (dialect === 'openai') {
      events.push(
        JSON.stringify({
          id: 'cmpl-x',
          object: 'text_completion',
          created: 1,
          model: 'm',
          choices: [{ index: 0, text: delta, logprobs: null, finish_reason: last ? 'length' : null }],
          usage: { prompt_tokens: 1024, completion_tokens: done, total_tokens: 1024 + done },
        }),
      );
    } else if (dialect === 'anthropic') {
      events.push(JSON.stringify({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: delta } }));
    } else if (dialect === 'responses') {
      events.push(JSON.stringify({ type: 'response.output_text.delta', content_index: 0, delta, item_id: 'msg_x', output_index: 0, sequence_number: done }));
    } else {
      events.push(
        JSON.stringify({
          id: 'chatcmpl-x',
          object: 'chat.completion.chunk',
          created: 1,
          model: 'm',
          choices: [{ index: 0, delta: { content: delta }, logprobs: null, finish_reason: last ? 'length' : null }],
          usage: { prompt_tokens: 1024, completion_tokens: done, total_tokens: 1024 + done },
        }),
      );
    }
  }
  const usage = { input_tokens: 1024, output_tokens: n };
  // Messages and Responses end with a closing event of their own, not [DONE].
  if (dialect === 'anthropic') events.push(JSON.stringify({ type: 'message_delta', delta: { stop_reason: 'max_tokens' }, usage }), '{"type":"message_stop"}');
  if (dialect === 'responses')
    events.push(
      JSON.stringify({ type: 'response.incomplete', response: { status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' }, usage } }),
    );
  const end = DIALECT_TRAITS[dialect].namedEvents ? '' : 'data: [DONE]\n\n';
  const stream = events.map((e) => `data: ${e}\n\n`).join('') + end;
  const json =
    dialect === 'sglang'
      ? JSON.stringify({
          text,
          output_ids: Array.from({ length: n }, (_, i) => 1000 + i),
          meta_info: { id: 'x', finish_reason: { type: 'length', length: n }, prompt_tokens: 1024, completion_tokens: n, cached_tokens: 0 },
        })
      : dialect === 'anthropic'
        ? JSON.stringify({ type: 'message', content: [{ type: 'text', text }], stop_reason: 'max_tokens', usage })
        : dialect === 'responses'
          ? JSON.stringify({
              object: 'response',
              status: 'incomplete',
              incomplete_details: { reason: 'max_output_tokens' },
              output: [{ type: 'message', content: [{ type: 'output_text', text }] }],
              usage,
            })
          : dialect === 'openai'
            ? JSON.stringify({
                id: 'cmpl-x',
                object: 'text_completion',
                choices: [{ index: 0, text, finish_reason: 'length' }],
                usage: { prompt_tokens: 1024, completion_tokens: n, total_tokens: 1024 + n },
              })
            : JSON.stringify({
                id: 'chatcmpl-x',
                object: 'chat.completion',
                choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'length' }],
                usage: { prompt_tokens: 1024, completion_tokens: n, total_tokens: 1024 + n },
              });
  return { json, stream };
}

/** CPU microseconds per call, median of several batches. */
function cpuMicros(fn: () => void, minMs = 200): number {
  for (let i = 0; i < 5; i++) fn();
  const runs: number[] = [];
  for (let b = 0; b < 5; b++) {
    let n = 0;
    const t0 = process.cpuUsage();
    const w0 = Date.now();
    while (Date.now() - w0 < minMs / 5) {
      fn();
      n++;
    }
    const d = process.cpuUsage(t0);
    runs.push((d.user + d.system) / n);
  }
  return runs.sort((a, b) => a - b)[2];
}

const prompt = {
  kind: 'tokens' as const,
  json: tokenPromptPool({ isl: 1024, poolSize: 1, seed: 1, vocabSize: 32000, idFloor: 1000, sharedPrefix: 0, spread: 0 })[0],
  length: 1024,
};
const window = { cellStartMs: 0, sliceMs: 1000, slices: 10, trackLastEnd: false, latencyFromMs: -Infinity };
const slo = { ttftP99Ms: null, ttftOf: 'first' as const, itlP99Ms: null, e2eP99Ms: null };

console.log('CPU per request (µs), median of 5 batches; speculative replies with 4 tokens per event.');
console.log('dialect      tokens   build  http(json)  http(stream)  sse(events)  samples   µs/1k tok (sse)');
for (const dialect of ['sglang', 'openai', 'openai-chat', 'anthropic', 'responses'] as DialectName[]) {
  const d = createDialect(dialect, ctx);
  for (const n of [128, 1024, 8192]) {
    const { json, stream } = replies(dialect, n, 4);
    const events = splitSseEvents(stream).data;
    const p = !d.acceptsTokenIds ? { kind: 'text' as const, text: 'word '.repeat(1024) } : prompt;
    const build = cpuMicros(() => d.build({ prompt: p, maxTokens: n, ignoreEos: true, temperature: 0, stream: false, model: 'm' }));
    const httpJson = cpuMicros(() => d.parseBody(200, json, 'application/json'));
    const httpStream = cpuMicros(() => d.parseBody(200, stream, 'text/event-stream'));
    let result = d.parseBody(200, json, 'application/json');
    const sse = cpuMicros(() => {
      const r = d.streamReader();
      for (const e of events) r.onData(e);
      result = r.finish();
    });
    const evs = events.slice(0, -1).map((_, i) => ({ t: 100 + i * 20, tokens: 4 }));
    let count = 0;
    const samples = cpuMicros(() => recordRequest({ result, startMs: 0, endMs: 100 + evs.length * 20, events: evs }, window, slo, () => count++));
    void count;
    console.log(
      `${dialect.padEnd(12)} ${String(n).padStart(6)} ${build.toFixed(1).padStart(7)} ${httpJson.toFixed(1).padStart(11)} ` +
        `${httpStream.toFixed(1).padStart(13)} ${sse.toFixed(1).padStart(12)} ${samples.toFixed(1).padStart(8)} ` +
        `${((sse / n) * 1000).toFixed(1).padStart(17)}`,
    );
  }
}
console.log(
  'SGLang streams repeat the whole text in every event (cumulative): their http(stream) and sse cost ' +
    'grows with the square of the output; --incremental-streaming-output avoids it.',
);
