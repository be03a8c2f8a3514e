// The chunk template (lib/reading/chunk-template.ts) reads most events of a stream without JSON.parse.
// Whatever it reads must come out exactly as the full parser reads it: every event's answer and
// the final result, on recorded replies, on the simulator's streams and on altered chunks.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { Accumulator, type ChunkReader } from '../../../lib/reading';
import { arrivals, tokenColumns } from '../../../lib/reading';
import { EVENT_DONE, EVENT_NONE } from '../../../lib/dialects/types';
import { llamacppChunkReader } from '../../../lib/dialects/llamacpp';
import { sglangChunkReader } from '../../../lib/dialects/sglang';
import type { TemplateCache } from '../../../lib/reading';
import { createDialect, type DialectName } from '../../../lib/dialects/index';
import { startSim, type SimHandle } from '../../../sim/index';
import { request } from '../../sim/helpers';
import { FIXTURE_DIALECTS, reply } from '../fixtures';

/** A fresh reader of the dialect, as its streamReader() makes one (templates on). */
function reader(name: DialectName): ChunkReader {
  switch (name) {
    case 'sglang':
      return sglangChunkReader();
    case 'llamacpp':
      return llamacppChunkReader();
    default: {
      // The dialect's own reader, reached through a stream reader (its chunk reader is private).
      const acc = createDialect(name, { dialectVar: 'DIALECT', modelVar: 'MODEL' }).streamReader() as unknown as { reader: ChunkReader };
      return acc.reader;
    }
  }
}

/** The same reader with templates off: every chunk parsed in full (the reference). */
function fullOnly(r: ChunkReader): ChunkReader {
  return { read: r.read.bind(r), fastParse: r.fastParse?.bind(r), fastParseWhole: r.fastParseWhole?.bind(r), text: r.text?.bind(r) };
}

function events(body: string): string[] {
  return body
    .split('\n\n')
    .filter((e) => e.startsWith('data: '))
    .map((e) => e.slice(6));
}

/**
 * Feeds `data` to a templated and a full reader of `name`; asserts equal answers; returns the
 * templated count. With `cache`, the templated reader starts from the skeleton the previous
 * streams left there, as a dialect's next stream does.
 */
function compare(name: DialectName, data: string[], label: string, cache: TemplateCache | null = null): number {
  const fast = new Accumulator(reader(name), 'POST /x', 200, cache);
  // A separate reader instance: SGLang's is stateful.
  const full = new Accumulator(fullOnly(reader(name)), 'POST /x');
  for (let i = 0; i < data.length; i++) {
    const a = fast.onEvent(data[i]);
    const b = full.onEvent(data[i]);
    assert.ok(Object.is(a, b), `${label}: event ${i + 1} read as ${a} by the template path, ${b} in full: ${data[i].slice(0, 200)}`);
  }
  const ra = fast.finish();
  const rb = full.finish();
  assert.deepEqual({ ...ra, text: ra.text }, { ...rb, text: rb.text }, `${label}: results differ`);
  // Kept and read in batches, as the sse transport reads them: a template's run crosses batch
  // ends and stops at any chunk it does not predict.
  const want = columnsOf(new Accumulator(fullOnly(reader(name)), 'POST /x'), data);
  for (const size of [1, 3, 64]) {
    const batched = new Accumulator(reader(name), 'POST /x', 200, cache === null ? null : { skeletons: [...cache.skeletons] });
    const kept = arrivals();
    for (let from = 0; from < data.length; from += size) {
      const count = Math.min(size, data.length - from);
      for (let j = 0; j < count; j++) {
        kept.at[j] = 1000 + from + j;
        kept.data[j] = data[from + j];
      }
      batched.readKept(kept, count);
    }
    const got = tokenColumns(kept);
    assert.deepEqual(
      { t: got.t.slice(0, got.n), tokens: got.tokens.slice(0, got.n), doneMs: kept.doneMs },
      want,
      `${label}: token events read in batches of ${size}`,
    );
    const rc = batched.finish();
    assert.deepEqual({ ...rc, text: rc.text }, { ...rb, text: rb.text }, `${label}: results read in batches of ${size} differ`);
  }
  return fast.templateEvents;
}

/** Token events (arrival = 1000 + index) and the end, each event read on its own up to [DONE]. */
function columnsOf(acc: Accumulator, data: string[]): { t: number[]; tokens: number[]; doneMs: number } {
  const out = { t: [] as number[], tokens: [] as number[], doneMs: 0 };
  for (let i = 0; i < data.length && out.doneMs === 0; i++) {
    const c = acc.onEvent(data[i]);
    if (c === EVENT_DONE) out.doneMs = 1000 + i;
    else if (c !== EVENT_NONE) {
      out.t.push(1000 + i);
      out.tokens.push(c);
    }
  }
  return out;
}

describe('chunk template on the recorded replies', () => {
  const dir = join(__dirname, '..', '..', 'fixtures', 'replies');
  const files = readdirSync(dir).filter((f) => f.endsWith('.txt') && events(reply(f)).length > 0);
  for (const file of files) {
    const dialect = FIXTURE_DIALECTS.find(([re]) => re.test(file))?.[1];
    if (!dialect) continue;
    test(`${file} (${dialect}): every event and the result as the full parser reads them`, () => {
      const data = events(reply(file));
      const templated = compare(dialect, data, file);
      // The longer recordings (llama.cpp's) are read by a template after their first two chunks;
      // the short ones have too few chunks of one shape to learn from.
      if (data.length >= 10) assert.ok(templated >= data.length / 2, `${file}: ${templated} of ${data.length} events read by a template`);
    });
  }
});

describe("chunk template on the simulator's streams", () => {
  const sims: Record<string, SimHandle> = {};
  before(async () => {
    sims.vllm = await startSim({ engine: 'vllm', timeScale: 50, seed: 3 });
    sims.vllmSpec = await startSim({ engine: 'vllm', spec: 'mtp', timeScale: 50, seed: 4 });
    sims.vllmReasoning = await startSim({ engine: 'vllm', timeScale: 50, seed: 5, reasoningFraction: 0.5 });
    sims.sglang = await startSim({ engine: 'sglang', spec: 'dflash', timeScale: 50, seed: 6 });
    sims.sglangPlain = await startSim({ engine: 'sglang', timeScale: 50, seed: 7 });
    sims.sglangIncremental = await startSim({ engine: 'sglang', spec: 'dflash', timeScale: 50, seed: 8, incrementalStreamingOutput: true });
  });
  after(async () => {
    for (const s of Object.values(sims)) await s.stop();
  });
  const prompt = Array.from({ length: 32 }, (_, i) => 1000 + i);
  const cases: Array<{ sim: string; dialect: DialectName; path: string; body: Record<string, unknown>; minTemplated: number }> = [
    {
      sim: 'vllm',
      dialect: 'openai',
      path: '/v1/completions',
      body: { prompt, max_tokens: 48, ignore_eos: true, stream: true, stream_options: { include_usage: true, continuous_usage_stats: true } },
      minTemplated: 40,
    },
    { sim: 'vllm', dialect: 'openai', path: '/v1/completions', body: { prompt, max_tokens: 48, ignore_eos: true, stream: true }, minTemplated: 40 },
    {
      sim: 'vllmSpec',
      dialect: 'openai',
      path: '/v1/completions',
      body: { prompt, max_tokens: 64, ignore_eos: true, stream: true, stream_options: { include_usage: true, continuous_usage_stats: true } },
      minTemplated: 5,
    },
    {
      sim: 'vllm',
      dialect: 'openai-chat',
      path: '/v1/chat/completions',
      body: {
        messages: [{ role: 'user', content: 'hi' }],
        max_tokens: 48,
        ignore_eos: true,
        stream: true,
        stream_options: { include_usage: true, continuous_usage_stats: true },
      },
      minTemplated: 40,
    },
    {
      sim: 'vllmReasoning',
      dialect: 'openai-chat',
      path: '/v1/chat/completions',
      body: {
        messages: [{ role: 'user', content: 'hi' }],
        max_tokens: 48,
        ignore_eos: true,
        stream: true,
        stream_options: { include_usage: true, continuous_usage_stats: true },
      },
      minTemplated: 35,
    },
    {
      sim: 'sglang',
      dialect: 'sglang',
      path: '/generate',
      body: { input_ids: prompt, sampling_params: { max_new_tokens: 96, ignore_eos: true }, stream: true },
      minTemplated: 5,
    },
    {
      sim: 'sglangPlain',
      dialect: 'sglang',
      path: '/generate',
      body: { input_ids: prompt, sampling_params: { max_new_tokens: 48, ignore_eos: true }, stream: true },
      minTemplated: 40,
    },
    {
      sim: 'sglangIncremental',
      dialect: 'sglang',
      path: '/generate',
      body: { input_ids: prompt, sampling_params: { max_new_tokens: 64, ignore_eos: true }, stream: true },
      minTemplated: 0,
    },
    {
      sim: 'sglangPlain',
      dialect: 'openai',
      path: '/v1/completions',
      body: { prompt, max_tokens: 48, ignore_eos: true, stream: true, stream_options: { include_usage: true, continuous_usage_stats: true } },
      minTemplated: 40,
    },
    {
      sim: 'sglangPlain',
      dialect: 'openai-chat',
      path: '/v1/chat/completions',
      body: { messages: [{ role: 'user', content: 'hi' }], max_tokens: 48, ignore_eos: true, stream: true },
      minTemplated: 40,
    },
  ];
  for (const c of cases) {
    test(
      `${c.sim} ${c.path} as ${c.dialect}${c.body.stream_options ? ' with usage per chunk' : ''}: three streams, ` +
        `the later ones from the first one's skeleton`,
      async () => {
        const cache: TemplateCache = { skeletons: [] };
        for (let k = 0; k < 3; k++) {
          // Other prompt lengths, so that the constants of the layout (prompt_tokens) differ.
          const body = structuredClone(c.body);
          if (Array.isArray(body.prompt)) body.prompt = prompt.slice(0, 32 - 3 * k);
          if (Array.isArray(body.input_ids)) body.input_ids = prompt.slice(0, 32 - 3 * k);
          const r = await request(sims[c.sim].url, c.path, { body });
          assert.equal(r.status, 200);
          const data = r.events.map((e) => e.data);
          const templated = compare(c.dialect, data, `${c.sim} ${c.path} stream ${k + 1}`, cache);
          assert.ok(
            templated >= c.minTemplated + (k > 0 && c.minTemplated > 20 ? 1 : 0),
            `stream ${k + 1}: ${templated} of ${data.length} events read by a template`,
          );
        }
      },
    );
  }
});

describe('altered chunks fall back to the full parser and read the same', () => {
  // A plain vLLM stream with usage per chunk; event 6 (index 5) is altered in each case.
  const head = (n: number, text = ` w${n}`) =>
    `{"id":"cmpl-1","object":"text_completion","created":5,"model":"m","choices":[{"index":0,"text":"${text}","logprobs":null,` +
    `"finish_reason":null,"stop_reason":null}],"usage":{"prompt_tokens":8,"total_tokens":${8 + n},"completion_tokens":${n}}}`;
  const stream = (alter: (s: string) => string) => {
    const out: string[] = [];
    for (let n = 1; n <= 10; n++) out.push(n === 6 ? alter(head(n)) : head(n));
    out.push('[DONE]');
    return out;
  };
  const alterations: Record<string, (s: string) => string> = {
    unchanged: (s) => s,
    'escaped quote in the text': (s) => s.replace('" w6"', '" \\"w6\\""'),
    'escaped newline': (s) => s.replace('" w6"', '"w\\n6"'),
    'unicode escape': (s) => s.replace('" w6"', '"\\u00e9"'),
    'raw non-ASCII text': (s) => s.replace('" w6"', '"é6 ☃"'),
    'raw control character': (s) => s.replace('" w6"', '"w\t6"'),
    'empty text': (s) => s.replace('" w6"', '""'),
    'number as 6.0': (s) => s.replace('"completion_tokens":6', '"completion_tokens":6.0'),
    'number as 6e0': (s) => s.replace('"completion_tokens":6', '"completion_tokens":6e0'),
    'number with a leading zero': (s) => s.replace('"completion_tokens":6', '"completion_tokens":06'),
    'negative number': (s) => s.replace('"completion_tokens":6', '"completion_tokens":-6'),
    'space before the number': (s) => s.replace('"completion_tokens":6', '"completion_tokens": 6'),
    'number as a string': (s) => s.replace('"completion_tokens":6', '"completion_tokens":"6"'),
    'two tokens at once': (s) => s.replace('"completion_tokens":6', '"completion_tokens":7').replace('"total_tokens":14', '"total_tokens":15'),
    'finish reason mid-stream': (s) => s.replace('"finish_reason":null', '"finish_reason":"length"'),
    'another prompt count': (s) => s.replace('"prompt_tokens":8', '"prompt_tokens":9'),
    'keys reordered': (s) =>
      s.replace('"usage":{"prompt_tokens":8,"total_tokens":14,"completion_tokens":6}', '"usage":{"completion_tokens":6,"prompt_tokens":8,"total_tokens":14}'),
    'an error field': (s) => s.replace('{"id"', '{"error":{"message":"boom"},"id"'),
    'trailing garbage': (s) => `${s}x`,
    'trailing brace': (s) => `${s}}`,
    truncated: (s) => s.slice(0, -3),
    'NaN count': (s) => s.replace('"completion_tokens":6', '"completion_tokens":NaN'),
    'Infinity count': (s) => s.replace('"completion_tokens":6', '"completion_tokens":Infinity'),
    'text ending in a backslash': (s) => s.replace('" w6"', '"w6\\\\"'),
    'second choice': (s) => s.replace('"stop_reason":null}]', '"stop_reason":null},{"index":1,"text":"zz"}]'),
  };
  for (const [name, alter] of Object.entries(alterations)) {
    test(name, () => {
      const templated = compare('openai', stream(alter), name);
      assert.ok(templated >= 6, `${templated} events read by a template`);
    });
  }

  test('llama.cpp native: token ids in an array, and altered ones', () => {
    const ev = (n: number, ids: string) =>
      `{"index":0,"content":"t${n}","tokens":${ids},"stop":false,"id_slot":-1,"tokens_predicted":${n},"tokens_evaluated":16}`;
    for (const odd of ['[1,2]', '[]', '[ 7]', '[07]', '[1,]', '[-3]', '[1.5]', '["a"]', '[[1]]']) {
      const data = Array.from({ length: 9 }, (_, i) => ev(i + 1, i === 5 ? odd : `[${1000 + i}]`));
      compare('llamacpp', data, `ids ${odd}`);
    }
  });

  test('SGLang, count only: whole events read at their end, as the full parser reads them', () => {
    // Without speculative counts the running count is the only hole, so the per-event closure
    // reads whole events (templateSuffix); templateInput is then called only on parsed events.
    const ev = (n: number, text: string) =>
      `{"text":"${text}","output_ids":[${n}],"meta_info":{"id":"abc","finish_reason":null,"prompt_tokens":8,"completion_tokens":${n},"cached_tokens":0}}`;
    const stream = (alter: (s: string) => string = (s) => s, cut = 0) => {
      const out: string[] = [];
      let text = '';
      for (let n = 1; n <= 12; n++) {
        text += ` w${n}`;
        out.push(n === 7 ? alter(ev(n, text)) : ev(n, text));
      }
      out.push('[DONE]');
      return cut > 0 ? out.slice(0, cut) : out;
    };
    const alterations: Record<string, (s: string) => string> = {
      unchanged: (s) => s,
      'a key after meta_info': (s) => s.replace(/}}$/, '},"x":1}'),
      'trailing garbage': (s) => `${s}x`,
      'meta_info named inside the text': (s) => s.replace('"text":" w1', '"text":" \\"meta_info\\": w1'),
      'two tokens at once': (s) => s.replace('"completion_tokens":7', '"completion_tokens":8'),
      'meta_info cut short': (s) => s.slice(0, -2) + '}',
    };
    const calls = (data: string[]) => {
      const r = sglangChunkReader();
      let n = 0;
      const input = r.templateInput;
      assert.ok(input, 'the SGLang reader has a template input');
      r.templateInput = (d: string) => {
        n++;
        return input.call(r, d);
      };
      const acc = new Accumulator(r, 'POST /x');
      for (const d of data) acc.onEvent(d);
      acc.finish();
      return n;
    };
    for (const [name, alter] of Object.entries(alterations)) compare('sglang', stream(alter), `sglang count only, ${name}`);
    // A stream that stops on a chunk the closure read: the text is the last chunk's, as in full.
    compare('sglang', stream(undefined, 10), 'sglang count only, cut after event 10');
    const data = stream();
    assert.ok(calls(data) <= 6, `templateInput called ${calls(data)} times for ${data.length} events`);
  });

  test('SGLang cumulative meta_info with speculative counts, and altered ones', () => {
    let text = '';
    const ev = (n: number, meta: (m: string) => string = (m) => m) => {
      text += ` w${n}`;
      return (
        `{"text":"${text}","output_ids":[${n}],"meta_info":` +
        meta(
          `{"id":"abc","finish_reason":null,"prompt_tokens":8,"completion_tokens":${3 * n},"cached_tokens":0,` +
            `"spec_verify_ct":${n},"spec_accept_length":3.0,"spec_accept_rate":${(n / 7).toString()}}`,
        ) +
        '}'
      );
    };
    for (const alter of [
      (m: string) => m,
      (m: string) => m.replace('"spec_verify_ct":6', '"spec_verify_ct":6.5'),
      (m: string) => m.replace('"cached_tokens":0', '"cached_tokens":16'),
      (m: string) => m.replace('}', ',"weight_version":"x"}'),
    ]) {
      text = '';
      const data = Array.from({ length: 10 }, (_, i) => ev(i + 1, i === 5 ? alter : undefined));
      data.push('[DONE]');
      compare('sglang', data, 'sglang meta');
    }
  });
});
