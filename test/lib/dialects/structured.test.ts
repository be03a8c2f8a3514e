// Tool calls and structured output, pure: the JSON-schema subset, the request bodies of each shape,
// the refusal of a dialect that cannot carry them, and the chat reader over constructed streams
// (vLLM's tool-call deltas) and whole replies; the validity verdict over what was read.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createDialect, DIALECT_TRAITS, type GenerationResult } from '../../../lib/dialects/index';
import { batched, oneByOne, sseEvents, warm } from './read-paths';
import { jsonViolation, schemaProblem, schemaViolation } from '../../../lib/dialects/json-schema';
import { structuredFields, structuredOfRow, structuredRefusal, structuredValid, type Structured } from '../../../lib/dialects/structured';
import { parseDataset } from '../../../lib/dataset/format';
import { structured as structuredSection } from '../../../lib/report/sections/structured-section';
import { buildStore } from '../../../lib/dataset/store';
import { arrivals } from '../../../lib/reading';
import type { Accumulator } from '../../../lib/reading';
import { BUILT_IN_TOOLS, DEFAULT_RESPONSE_SCHEMA, structuredConfig } from '../../../lib/config/structured-config';
import { recordRequest } from '../../../lib/metrics/samples';
import type { MetricKey } from '../../../lib/metrics/catalog';
import type { RequestRecord } from '../../../sim/ground-truth';
import { startSim, type SimHandle } from '../../../sim/index';
import { request } from '../../sim/helpers';

const WEATHER = {
  type: 'object',
  properties: {
    city: { type: 'string' },
    unit: { type: 'string', enum: ['c', 'f'] },
    days: { type: 'integer' },
    tags: { type: 'array', items: { type: 'string' } },
  },
  required: ['city', 'unit'],
  additionalProperties: false,
};
const TOOLS: Structured = { tools: [{ name: 'get_weather', description: 'Weather by city', parameters: WEATHER }], toolChoice: 'required' };

describe('JSON-schema subset', () => {
  test('type, required, enum, items, additionalProperties, integer', () => {
    assert.equal(schemaViolation({ city: 'Oslo', unit: 'c' }, WEATHER), null);
    assert.equal(schemaViolation({ city: 'Oslo', unit: 'c', days: 3, tags: ['a'] }, WEATHER), null);
    assert.match(schemaViolation({ city: 'Oslo' }, WEATHER) ?? '', /required/);
    assert.match(schemaViolation({ city: 'Oslo', unit: 'k' }, WEATHER) ?? '', /enum/);
    assert.match(schemaViolation({ city: 'Oslo', unit: 'c', days: 1.5 }, WEATHER) ?? '', /integer/);
    assert.match(schemaViolation({ city: 'Oslo', unit: 'c', tags: [1] }, WEATHER) ?? '', /tags\[0\]/);
    assert.match(schemaViolation({ city: 'Oslo', unit: 'c', x: 1 }, WEATHER) ?? '', /additionalProperties/);
    assert.equal(schemaViolation({ a: 1 }, { type: 'object', additionalProperties: { type: 'number' } }), null);
    assert.match(schemaViolation({ a: 'x' }, { type: 'object', additionalProperties: { type: 'number' } }) ?? '', /\$\.a/);
    assert.equal(schemaViolation(null, { type: ['string', 'null'] }), null);
    assert.equal(schemaViolation({ k: [1, 'a'] }, { enum: [{ k: [1, 'a'] }] }), null);
  });
  test('JSON text: unparsable, json_object wants an object', () => {
    assert.equal(jsonViolation('{"city":"a","unit":"f"', WEATHER), 'not JSON');
    assert.equal(jsonViolation('[1]', null), 'not a JSON object');
    assert.equal(jsonViolation('{"x":1}', null), null);
  });
  test('a schema the checker cannot read is named', () => {
    assert.match(schemaProblem({ type: 'str' }) ?? '', /'str'/);
    assert.match(schemaProblem({ properties: { a: 3 } }) ?? '', /properties\.a/);
    assert.equal(schemaProblem(WEATHER), null);
  });
});

describe('request bodies', () => {
  test('chat: tools, tool_choice, response_format', () => {
    const d = createDialect('openai-chat', { dialectVar: 'DIALECT', modelVar: 'MODEL' });
    const fmt: Structured = { responseFormat: { type: 'json_schema', name: 'weather', schema: WEATHER } };
    const b = JSON.parse(
      d.build({
        prompt: { kind: 'text', text: 'hi' },
        maxTokens: 8,
        ignoreEos: true,
        temperature: 0,
        stream: true,
        model: 'm',
        structured: { ...TOOLS, ...fmt },
      }).body,
    );
    assert.deepEqual(b.tools, [{ type: 'function', function: { name: 'get_weather', description: 'Weather by city', parameters: WEATHER } }]);
    assert.equal(b.tool_choice, 'required');
    assert.deepEqual(b.response_format, { type: 'json_schema', json_schema: { name: 'weather', schema: WEATHER, strict: true } });
    const plain = JSON.parse(d.build({ prompt: { kind: 'text', text: 'hi' }, maxTokens: 8, ignoreEos: true, temperature: 0, stream: true }).body);
    assert.equal('tools' in plain || 'response_format' in plain, false);
  });
  test('Responses and Messages shapes', () => {
    const r = structuredFields({ ...TOOLS, toolChoice: { name: 'get_weather' }, responseFormat: { type: 'json_object' } }, 'responses');
    assert.deepEqual(r.tools, [{ type: 'function', name: 'get_weather', description: 'Weather by city', parameters: WEATHER }]);
    assert.deepEqual(r.tool_choice, { type: 'function', name: 'get_weather' });
    assert.deepEqual(r.text, { format: { type: 'json_object' } });
    const m = structuredFields(TOOLS, 'messages');
    assert.deepEqual(m.tools, [{ name: 'get_weather', description: 'Weather by city', input_schema: WEATHER }]);
    assert.deepEqual(m.tool_choice, { type: 'any' });
  });
  test('a dialect without the trait is refused in one sentence', () => {
    assert.equal(structuredRefusal(TOOLS, DIALECT_TRAITS, 'openai-chat', 'DIALECT'), null);
    const why = structuredRefusal(TOOLS, DIALECT_TRAITS, 'sglang', 'DIALECT');
    assert.equal(
      why,
      "DIALECT=sglang cannot carry tools (TOOLS, RESPONSE_FORMAT or the dataset's rows ask for it): use " +
        'openai-chat (tools and response_format), anthropic (tools), responses (tools and response_format).',
      'the dialects that can, from the table',
    );
    assert.match(structuredRefusal({ responseFormat: { type: 'json_object' } }, DIALECT_TRAITS, 'anthropic', 'B_DIALECT') ?? '', /response_format/);
  });
});

/** vLLM's chat stream of one tool call, its arguments in `pieces`, each chunk counting `perChunk` tokens. */
export function vllmToolStream(pieces: string[], perChunk = 1, content: string[] = []): string[] {
  const head = '{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":';
  let n = 0;
  const usage = () => `,"usage":{"prompt_tokens":5,"total_tokens":${5 + n},"completion_tokens":${n}}}`;
  const out = [`${head}{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}]${usage()}`];
  for (const c of content) {
    n += perChunk;
    out.push(`${head}{"content":${JSON.stringify(c)}},"logprobs":null,"finish_reason":null}]${usage()}`);
  }
  n += perChunk;
  out.push(
    `${head}{"tool_calls":[{"id":"chatcmpl-tool-1","type":"function","index":0,"function":{"name":"get_weather","arguments":""}}]},` +
      `"logprobs":null,"finish_reason":null}]${usage()}`,
  );
  for (const p of pieces) {
    n += perChunk;
    out.push(`${head}{"tool_calls":[{"index":0,"function":{"arguments":${JSON.stringify(p)}}}]},"logprobs":null,"finish_reason":null}]${usage()}`);
  }
  out.push(`${head}{"content":""},"logprobs":null,"finish_reason":"tool_calls","stop_reason":null}]${usage()}`);
  out.push(`{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[]${usage()}`);
  out.push('[DONE]');
  return out;
}

const chat = () => createDialect('openai-chat', { dialectVar: 'DIALECT', modelVar: 'MODEL' });

describe('chat replies with tool calls', () => {
  test('streamed deltas: each piece a token event, the first call event apart from content', () => {
    const pieces = ['{"city', '": "Oslo', '", "unit": "c"}'];
    const acc = chat().streamReader() as Accumulator;
    const counts = vllmToolStream(pieces).map((e) => acc.onEvent(e));
    const r = acc.finish();
    assert.equal(r.ok, true, r.error?.message);
    assert.equal(r.finishReason, 'tool_calls');
    assert.equal(r.completionTokens, 4);
    assert.equal(r.tokenEvents, 4);
    assert.deepEqual(
      counts.filter((c) => Number.isFinite(c)),
      [1, 1, 1, 1],
    );
    assert.deepEqual(r.toolCalls, {
      calls: [{ name: 'get_weather', arguments: '{"city": "Oslo", "unit": "c"}' }],
      tokens: 4,
      firstToolEvent: 0,
      firstOtherEvent: null,
    });
    assert.equal(r.text, '');
    assert.equal(structuredValid(TOOLS, r), true);
  });
  test('content before the call: both first events said, tokens of the calls only', () => {
    const acc = chat().streamReader() as Accumulator;
    const kept = arrivals();
    const data = vllmToolStream(['{"city":"a","unit":"x"}'], 2, ['Let', ' me', ' look']);
    for (let i = 0; i < data.length; i++) {
      kept.data[i] = data[i];
      kept.at[i] = 1000 + i;
    }
    acc.readKept(kept, data.length);
    const r = acc.finish();
    assert.equal(r.text, 'Let me look');
    assert.equal(r.toolCalls?.tokens, 4);
    assert.equal(r.toolCalls?.firstToolEvent, 3);
    assert.equal(r.toolCalls?.firstOtherEvent, 0);
    assert.equal(structuredValid(TOOLS, r), false, 'unit x is not in the enum');
  });
  test('a reply without tools is read by the template as before', () => {
    const acc = chat().streamReader() as Accumulator;
    const head = '{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"';
    for (let i = 1; i <= 20; i++)
      acc.onEvent(`${head}w${i}"},"logprobs":null,"finish_reason":null}],"usage":{"prompt_tokens":5,"total_tokens":${5 + i},"completion_tokens":${i}}}`);
    assert.ok(acc.templateEvents >= 17, `template read ${acc.templateEvents}`);
    assert.equal(acc.finish().toolCalls, undefined);
  });
  test('a whole reply: message.tool_calls, tokens the server counted', () => {
    const body = JSON.stringify({
      choices: [
        {
          index: 0,
          finish_reason: 'tool_calls',
          message: {
            role: 'assistant',
            content: null,
            tool_calls: [{ id: 't', type: 'function', function: { name: 'get_weather', arguments: '{"city":"a","unit":"f"}' } }],
          },
        },
      ],
      usage: { prompt_tokens: 9, completion_tokens: 17, total_tokens: 26 },
    });
    const r = chat().parseBody(200, body, 'application/json');
    assert.equal(r.ok, true);
    assert.deepEqual(r.toolCalls, {
      calls: [{ name: 'get_weather', arguments: '{"city":"a","unit":"f"}' }],
      tokens: 17,
      firstToolEvent: null,
      firstOtherEvent: null,
    });
    assert.equal(structuredValid(TOOLS, r), true);
  });
  test('validity: no call under required, none needed under auto, response_format over the text', () => {
    assert.equal(structuredValid(TOOLS, { text: 'hello' }), false);
    assert.equal(structuredValid({ ...TOOLS, toolChoice: 'auto' }, { text: 'hello' }), null);
    const fmt: Structured = { responseFormat: { type: 'json_schema', name: 'w', schema: WEATHER } };
    assert.equal(structuredValid(fmt, { text: '{"city":"a","unit":"c"}' }), true);
    assert.equal(structuredValid(fmt, { text: '{"city":"a"}' }), false);
    assert.equal(structuredValid({ responseFormat: { type: 'json_object' } }, { text: '{}' }), true);
    assert.equal(structuredValid(undefined, { text: '' }), null);
    assert.equal(
      structuredValid(TOOLS, { text: '', toolCalls: { calls: [{ name: 'other', arguments: '{}' }], tokens: 1, firstToolEvent: 0, firstOtherEvent: null } }),
      false,
    );
  });
});

describe('Responses and Messages replies with tool calls', () => {
  const read = (name: 'responses' | 'anthropic', events: unknown[]) => {
    const acc = createDialect(name, { dialectVar: 'DIALECT', modelVar: 'MODEL' }).streamReader();
    for (const e of events) acc.onEvent(JSON.stringify(e));
    return acc.finish();
  };
  test('Responses: output_item.added names the call, function_call_arguments deltas carry it', () => {
    const r = read('responses', [
      { type: 'response.created', response: { status: 'in_progress' } },
      { type: 'response.output_item.added', output_index: 0, item: { type: 'function_call', name: 'get_weather', arguments: '' } },
      { type: 'response.function_call_arguments.delta', output_index: 0, delta: '{"city":"a",' },
      { type: 'response.function_call_arguments.delta', output_index: 0, delta: '"unit":"c"}' },
      { type: 'response.completed', response: { status: 'completed', usage: { input_tokens: 3, output_tokens: 9 } } },
    ]);
    assert.equal(r.ok, true, r.error?.message);
    assert.deepEqual(r.toolCalls?.calls, [{ name: 'get_weather', arguments: '{"city":"a","unit":"c"}' }]);
    assert.equal(r.toolCalls?.tokens, 9, "a reply of calls only: the server's count");
    assert.equal(r.toolCalls?.firstToolEvent, 0);
    assert.equal(r.text, '');
    assert.equal(structuredValid(TOOLS, r), true);
  });
  test('Messages: tool_use block start and input_json_delta pieces; a whole reply’s tool_use input', () => {
    const r = read('anthropic', [
      { type: 'message_start', message: { usage: { input_tokens: 3, output_tokens: 0 } } },
      { type: 'content_block_start', index: 0, content_block: { type: 'tool_use', id: 't', name: 'get_weather', input: {} } },
      { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: '{"city":"a",' } },
      { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: '"unit":"f"}' } },
      { type: 'content_block_stop', index: 0 },
      { type: 'message_delta', delta: { stop_reason: 'tool_use' }, usage: { output_tokens: 7 } },
      { type: 'message_stop' },
    ]);
    assert.equal(r.ok, true, r.error?.message);
    assert.deepEqual(r.toolCalls?.calls, [{ name: 'get_weather', arguments: '{"city":"a","unit":"f"}' }]);
    assert.equal(r.toolCalls?.tokens, 7);
    const whole = createDialect('anthropic', { dialectVar: 'DIALECT', modelVar: 'MODEL' }).parseBody(
      200,
      JSON.stringify({
        type: 'message',
        content: [{ type: 'tool_use', id: 't', name: 'get_weather', input: { city: 'a', unit: 'c' } }],
        stop_reason: 'tool_use',
        usage: { input_tokens: 3, output_tokens: 6 },
      }),
      'application/json',
    );
    assert.deepEqual(whole.toolCalls?.calls, [{ name: 'get_weather', arguments: '{"city":"a","unit":"c"}' }]);
    assert.equal(whole.toolCalls?.tokens, 6);
  });
});

describe('the simulator answers tools and response_format; the reader agrees with its truth', () => {
  const sims: Record<string, SimHandle> = {};
  before(async () => {
    sims.vllm = await startSim({ engine: 'vllm', timeScale: 50, seed: 21 });
    sims.sglang = await startSim({ engine: 'sglang', timeScale: 50, seed: 22 });
    sims.bad = await startSim({ engine: 'vllm', timeScale: 50, seed: 23, faults: { schemaViolationRate: 0.5 } });
  });
  after(async () => {
    for (const s of Object.values(sims)) await s.stop();
  });
  const tools: Structured = { tools: BUILT_IN_TOOLS.slice(0, 2), toolChoice: { name: 'search_web' } };
  const fmt: Structured = { responseFormat: { type: 'json_schema', name: 'reply', schema: DEFAULT_RESPONSE_SCHEMA } };
  const send = async (s: SimHandle, st: Structured, stream: boolean, maxTokens = 24) => {
    const d = chat();
    const wire = d.build({ prompt: { kind: 'text', text: 'hello there' }, maxTokens, ignoreEos: true, temperature: 0, stream, structured: st });
    const r = await request(s.url, wire.path, { body: JSON.parse(wire.body) });
    const recs = JSON.parse((await request(s.url, '/sim/requests')).body) as RequestRecord[];
    const truth = recs[recs.length - 1] as RequestRecord;
    const result = stream
      ? (() => {
          const acc = d.streamReader();
          for (const e of r.events) acc.onEvent(e.data);
          return acc.finish();
        })()
      : d.parseBody(r.status, r.body, 'application/json');
    assert.equal(r.status, 200, r.body);
    return { r, truth, result };
  };
  for (const engine of ['vllm', 'sglang']) {
    test(`${engine}: a streamed tool call of the forced length; tool-call tokens and validity equal the truth`, async () => {
      const { truth, result } = await send(sims[engine], tools, true);
      assert.equal(result.ok, true, result.error?.message);
      assert.equal(result.completionTokens, 24);
      assert.deepEqual(truth.structured, { kind: 'tool', valid: true, toolCallTokens: 24 });
      assert.equal(result.toolCalls?.tokens, truth.structured?.toolCallTokens);
      assert.equal(result.toolCalls?.calls[0]?.name, 'search_web');
      assert.equal(result.toolCalls?.firstToolEvent, 0);
      assert.equal(structuredValid(tools, result), truth.structured?.valid);
      const got: Partial<Record<MetricKey, number>> = {};
      recordRequest(
        { result, startMs: 900, endMs: 2000, events: null },
        { cellStartMs: 0, sliceMs: 1e9, slices: 1, trackLastEnd: false, latencyFromMs: 0 },
        { ttftP99Ms: null, ttftOf: 'first', itlP99Ms: null, e2eP99Ms: null },
        (m, v) => void (got[m] = (got[m] ?? 0) + v),
        { maxTokens: 24, structured: tools },
      );
      assert.equal(got.toolCallTokens, 24);
      assert.equal(got.toolCallRequests, 1);
      assert.equal(got.structuredValid, 1);
    });
  }
  test('non-streamed tool call and JSON content; a spoiled reply is invalid exactly where the truth says', async () => {
    const whole = await send(sims.vllm, tools, false, 16);
    assert.equal(whole.result.toolCalls?.tokens, 16);
    assert.equal(structuredValid(tools, whole.result), true);
    const json = await send(sims.sglang, fmt, true, 40);
    assert.deepEqual(json.truth.structured, { kind: 'json', valid: true, toolCallTokens: 0 });
    assert.equal(json.result.completionTokens, 40);
    assert.equal(structuredValid(fmt, json.result), true, json.result.text);
    let invalid = 0;
    for (let i = 0; i < 12; i++) {
      const x = await send(sims.bad, i % 2 === 0 ? tools : fmt, i % 3 !== 0, 20);
      assert.equal(structuredValid(i % 2 === 0 ? tools : fmt, x.result), x.truth.structured?.valid, `request ${i}`);
      if (x.truth.structured?.valid === false) invalid++;
    }
    assert.ok(invalid > 0 && invalid < 12, `the fault spoils some replies, not all (${invalid} of 12)`);
  });
});

describe('dataset rows that bring their own tools or response_format', () => {
  const row = (extra: Record<string, unknown>) => JSON.stringify({ messages: [{ role: 'user', content: 'hi' }], ...extra });
  test('read from JSONL rows in the chat shape; a malformed one named with its line', () => {
    const tools = [{ type: 'function', function: { name: 'get_weather', description: 'd', parameters: WEATHER } }];
    const ds = parseDataset(
      [row({ tools, tool_choice: 'required' }), row({ response_format: { type: 'json_schema', json_schema: { name: 'w', schema: WEATHER } } }), row({})].join(
        '\n',
      ),
      { file: 'd.jsonl' },
    );
    assert.deepEqual(ds.items[0].structured, { tools: [{ name: 'get_weather', description: 'd', parameters: WEATHER }], toolChoice: 'required' });
    assert.deepEqual(ds.items[1].structured, { responseFormat: { type: 'json_schema', name: 'w', schema: WEATHER } });
    assert.equal(ds.items[2].structured, undefined);
    const store = buildStore(ds, 1, false);
    assert.equal(store.meta.withTools, 1);
    assert.equal(store.meta.withFormat, 1);
    assert.throws(() => parseDataset([row({}), row({ tools: [{ type: 'function' }] })].join('\n'), { file: 'd.jsonl' }), /d\.jsonl: line 2: each tool must be/);
    assert.throws(() => parseDataset(row({ response_format: { type: 'xml' } }), { file: 'd.jsonl' }), /line 1: response_format must be/);
  });
  test('a row with tools and no tool_choice is auto: a reply without a call is not judged', () => {
    const s = structuredOfRow({ tools: [{ type: 'function', function: { name: 'f', parameters: {} } }] });
    assert.ok(typeof s === 'object');
    assert.equal(structuredValid(s, { text: 'plain' }), null);
  });
});

describe('TOOLS, TOOL_CHOICE, RESPONSE_FORMAT, RESPONSE_SCHEMA', () => {
  const variant = (dialect: string) => ({ variant: 'target', dialect, vars: { dialect: 'DIALECT' } }) as never;
  const cfgOf = (env: Record<string, string>, dialect = 'openai-chat') => structuredConfig((n) => env[n] ?? '', { variants: [variant(dialect)] });
  test('generated requests: the built-in tools, required by default; a schema from JSON text', () => {
    assert.equal(cfgOf({}), null);
    const s = cfgOf({ TOOLS: '2' });
    assert.deepEqual(
      s?.tools?.map((t) => t.name),
      ['get_weather', 'search_web'],
    );
    assert.equal(s?.toolChoice, 'required');
    assert.deepEqual(cfgOf({ TOOLS: '2', TOOL_CHOICE: 'search_web' })?.toolChoice, { name: 'search_web' });
    assert.deepEqual(cfgOf({ RESPONSE_FORMAT: 'json_schema', RESPONSE_SCHEMA: '{"type":"object"}' })?.responseFormat, {
      type: 'json_schema',
      name: 'reply',
      schema: { type: 'object' },
    });
    assert.equal((cfgOf({ RESPONSE_FORMAT: 'json_schema' })?.responseFormat as { schema: unknown }).schema, DEFAULT_RESPONSE_SCHEMA);
  });
  test('bad values end in one clear message', () => {
    assert.throws(() => cfgOf({ TOOLS: '9' }), /TOOLS='?9'? is not valid: expected the number of built-in tools/);
    assert.throws(() => cfgOf({ TOOLS: '1', TOOL_CHOICE: 'search_web' }), /TOOL_CHOICE=.* or the name of a tool sent \(TOOLS=1 sends get_weather\)/);
    assert.throws(() => cfgOf({ TOOL_CHOICE: 'auto' }), /set TOOLS to 1–4 too/);
    assert.throws(() => cfgOf({ RESPONSE_FORMAT: 'xml' }), /RESPONSE_FORMAT=.* json_object .* or json_schema/);
    assert.throws(() => cfgOf({ RESPONSE_SCHEMA: '{}' }), /set RESPONSE_FORMAT=json_schema too/);
    assert.throws(() => cfgOf({ RESPONSE_FORMAT: 'json_schema', RESPONSE_SCHEMA: '{"type":' }), /RESPONSE_SCHEMA is not JSON/);
    assert.throws(() => cfgOf({ RESPONSE_FORMAT: 'json_schema', RESPONSE_SCHEMA: '{"type":"str"}' }), /RESPONSE_SCHEMA cannot be checked: \$\.type 'str'/);
    assert.throws(() => cfgOf({ TOOLS: '1' }, 'sglang'), /^ConfigError: DIALECT=sglang cannot carry tools|DIALECT=sglang cannot carry tools/);
    assert.throws(() => cfgOf({ RESPONSE_FORMAT: 'json_object' }, 'anthropic'), /DIALECT=anthropic cannot carry response_format/);
    assert.equal(cfgOf({ TOOLS: '1' }, 'auto')?.tools?.length, 1, 'auto: checked in preflight, once the dialect is known');
  });
});

// llama-server b11669 with --jinja (test/fixtures/corpus/capture-llamacpp-tools.sh, Hermes-style
// template): its grammar under tool_choice required lets content come before the first <tool_call>,
// which the generated model never writes, so the replies are plain content; response_format is
// grammar-constrained JSON, cut at max_tokens 24. What the suite makes
// of each: no tool calls read, the judgement the brief asks (invalid under required and for JSON cut
// short, not judged under auto), and one token event per chunk summing to the server's usage.
describe('real llama.cpp replies to tools and response_format (corpus)', () => {
  const dir = join(__dirname, '..', '..', 'fixtures', 'corpus', 'llamacpp');
  const weather: Structured = { tools: [{ name: 'get_weather', description: '', parameters: WEATHER }] };
  const cases: Array<[string, Structured, boolean | null]> = [
    ['b11669-tools-required.json', { ...weather, toolChoice: 'required' }, false],
    ['b11669-tools-required-stream.sse', { ...weather, toolChoice: 'required' }, false],
    ['b11669-tools-named-stream.sse', { ...weather, toolChoice: { name: 'get_weather' } }, false],
    ['b11669-tools-auto-stream.sse', { ...weather, toolChoice: 'auto' }, null],
    ['b11669-tools-json-schema.json', { responseFormat: { type: 'json_schema', name: 'review', schema: { type: 'object' } } }, false],
    ['b11669-tools-json-schema-stream.sse', { responseFormat: { type: 'json_schema', name: 'review', schema: { type: 'object' } } }, false],
    ['b11669-tools-json-object-stream.sse', { responseFormat: { type: 'json_object' } }, false],
  ];
  for (const [file, st, valid] of cases) {
    test(`${file}: judged ${valid}`, () => {
      const body = readFileSync(join(dir, file), 'utf8');
      const stream = file.endsWith('.sse');
      const r = chat().parseBody(200, body, stream ? 'text/event-stream' : 'application/json');
      assert.equal(r.ok, true, r.error?.message);
      assert.equal(r.toolCalls, undefined, 'b11669 sent no tool_calls');
      assert.equal(structuredValid(st, r), valid);
      if (stream) assert.equal(r.tokenEvents, r.completionTokens, "one token per chunk: the stream's events are the server's usage");
      if (st.responseFormat) assert.match(r.text, /^\{/, 'the grammar opened a JSON object');
    });
  }
});

// Real tool calls streamed by llama-server b11669 (capture-llamacpp-tools.sh, second server): the
// Kimi-K2-style template opens a call in its generation prompt, so b11669's grammar holds the random
// model inside it. llama.cpp counts no tokens per chunk (usage comes once, in the last chunk), so the
// calls' tokens are the server's completion_tokens, read from the file here, on every path the sse
// transport takes (one event at a time, in batches, from a warm template) and from the whole body.
describe('real llama.cpp tool calls (corpus)', () => {
  const dir = join(__dirname, '..', '..', 'fixtures', 'corpus', 'llamacpp');
  const city = { type: 'string', enum: ['Oslo', 'Bergen'] };
  const weather = { ...WEATHER, properties: { city, unit: { type: 'string', enum: ['celsius', 'fahrenheit'] } } };
  const time = { type: 'object', properties: { zone: { type: 'string', enum: ['UTC', 'CET'] } }, required: ['zone'], additionalProperties: false };
  const required = (...names: string[]): Structured => ({
    tools: names.map((n) => ({ name: n, description: '', parameters: n === 'get_time' ? time : weather })),
    toolChoice: 'required',
  });
  /** What the server said in the file: its last usage's completion_tokens and finish_reason. */
  const serverSaid = (body: string) => {
    type Chunk = { usage?: { completion_tokens: number }; choices?: Array<{ finish_reason: string | null }> };
    const texts = body.startsWith('data:') ? sseEvents(body).filter((d) => d.startsWith('{')) : [body];
    const chunks = texts.map((t) => JSON.parse(t) as Chunk);
    const finish = chunks.flatMap((c) => (c.choices ?? []).map((x) => x.finish_reason)).filter((f) => f !== null);
    return { tokens: chunks.filter((c) => c.usage).pop()?.usage?.completion_tokens ?? null, finish: finish.pop() ?? null };
  };
  const cases: Array<[string, Structured, { valid: boolean; calls: string[] }]> = [
    ['b11669-tools-call-required.json', required('get_weather'), { valid: true, calls: ['get_weather'] }],
    ['b11669-tools-call-required-stream.sse', required('get_weather'), { valid: true, calls: ['get_weather'] }],
    ['b11669-tools-call-two-tools-stream.sse', required('get_weather', 'get_time'), { valid: true, calls: ['get_weather'] }],
    ['b11669-tools-call-cut-stream.sse', required('get_weather'), { valid: false, calls: ['get_weather'] }],
  ];
  for (const [file, st, want] of cases) {
    test(`${file}: the calls read, their tokens the server's count, judged ${want.valid}`, () => {
      const body = readFileSync(join(dir, file), 'utf8');
      const said = serverSaid(body);
      assert.ok(said.tokens !== null && said.tokens > 0, 'the server counted the tokens');
      const stream = file.endsWith('.sse');
      const whole = chat().parseBody(200, body, stream ? 'text/event-stream' : 'application/json');
      const reads: Array<[string, GenerationResult]> = [['http body', whole]];
      if (stream) {
        const events = sseEvents(body);
        reads.push(['sse, one by one', oneByOne('openai-chat', events).result]);
        reads.push(['sse, in batches', batched('openai-chat', events).result]);
        reads.push(['sse, in batches of 2', batched('openai-chat', events, [2]).result]);
        reads.push(['sse, warm template', warm('openai-chat', events)]);
      }
      for (const [path, r] of reads) {
        assert.equal(r.ok, true, `${path}: ${r.error?.message}`);
        assert.equal(r.finishReason, said.finish === 'tool_calls' ? 'tool_calls' : 'length', path);
        assert.deepEqual(
          r.toolCalls?.calls.map((c) => c.name),
          want.calls,
          path,
        );
        assert.equal(r.toolCalls?.tokens, said.tokens, `${path}: the calls' tokens are the server's count`);
        assert.equal(r.completionTokens, said.tokens, path);
        assert.equal(r.text, '', `${path}: nothing but calls`);
        assert.equal(structuredValid(st, r), want.valid, `${path}: ${r.toolCalls?.calls.map((c) => c.arguments).join(' | ')}`);
        if (path !== 'http body') {
          assert.equal(r.toolCalls?.firstToolEvent, 0, `${path}: the first token event is a call's`);
          assert.equal(r.toolCalls?.firstOtherEvent, null, path);
        }
      }
    });
  }
  test('the stream and the whole reply of one seed carry the same call', () => {
    const read = (f: string) => chat().parseBody(200, readFileSync(join(dir, f), 'utf8'), f.endsWith('.sse') ? 'text/event-stream' : 'application/json');
    assert.deepEqual(read('b11669-tools-call-required-stream.sse').toolCalls?.calls, read('b11669-tools-call-required.json').toolCalls?.calls);
  });
  test('replies without a call under required: cut before the first delta, an id that runs on, auto and a named tool', () => {
    const read = (f: string) => {
      const body = readFileSync(join(dir, f), 'utf8');
      return chat().parseBody(200, body, f.endsWith('.sse') ? 'text/event-stream' : 'application/json');
    };
    const early = read('b11669-tools-call-cut-early-stream.sse');
    assert.equal(early.ok, true);
    assert.equal(early.toolCalls, undefined, 'cut inside the call id: no delta sent');
    assert.equal(early.completionTokens, 16);
    assert.equal(structuredValid(required('get_weather'), early), false);
    const runaway = read('b11669-tools-call-runaway-id.json');
    assert.equal(runaway.toolCalls, undefined, 'the id never ended: the server gave the text as content');
    assert.match(runaway.text, /^functions\.get_weather:\d+$/);
    assert.equal(structuredValid(required('get_weather'), runaway), false);
    for (const f of ['b11669-tools-call-auto-stream.sse', 'b11669-tools-call-named-stream.sse']) {
      const r = read(f);
      assert.equal(r.ok, false, f);
      assert.equal(r.error?.class, 'stream_error', `${f}: ${r.error?.message}`);
      assert.match(r.error?.message ?? '', /does not match the expected peg-native format/);
    }
  });
});

describe("the report's tool-call and structured-output section", () => {
  const row = { variant: 'target', cellId: 'i64_o24_c2', cell: '64/24 c=2', judged: 10, valid: 7, toolReplies: 10, toolTokens: 240, ttftTool: null };
  test('a share over the judged replies, tokens, "not measured" where it was not; a warning for the invalid', () => {
    const none = { ...row, judged: 0, valid: 0, toolReplies: 0, toolTokens: null };
    const text = structuredSection.text([row, none], {} as never).join('\n');
    assert.match(text, /target i64_o24_c2: 70\.0% valid \(7 \/ 10\); 10 with calls, 240 tool-call tokens; not measured \(TRANSPORT=sse times events\)/);
    assert.match(text, /not measured \(no reply judged\)/);
    assert.match(structuredSection.markdown([row], {} as never).join('\n'), /\| 64\/24 c=2 \| target \| 7 \/ 10 \| 70\.0% \|/);
    assert.match(structuredSection.html([row], {} as never), /Tool calls and structured output/);
    assert.deepEqual(structuredSection.warnings?.([row, none]), [
      'target i64_o24_c2: 3 of 10 replies did not keep to the tools or schema asked (70.0% valid).',
    ]);
    assert.deepEqual((structuredSection.json([none], {} as never) as Array<{ valid_share: unknown }>)[0].valid_share, null);
  });
});
