import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigError } from '../../../lib/config/parse';
import { rngFor } from '../../../lib/stats/rng';
import {
  DatasetError,
  detectFormat,
  locateJsonError,
  markTurns,
  parseDataset,
  requestTurns,
  seededOrder,
  selectDomains,
  turnsText,
  userTurns,
  type Dataset,
} from '../../../lib/dataset/format';

const parse = (text: string, file = 'data.jsonl'): Dataset => parseDataset(text, { file });

/** The message of the DatasetError that parsing `text` throws. */
function error(text: string, file = 'data.jsonl'): string {
  try {
    parse(text, file);
  } catch (e) {
    assert.ok(e instanceof DatasetError, `a DatasetError, got ${String(e)}`);
    assert.ok(e instanceof ConfigError, 'a ConfigError, so the config layer reports it as one');
    return e.message;
  }
  assert.fail(`no error thrown for ${JSON.stringify(text)}`);
}

// ---- Formats -------------------------------------------------------------------------------------

test('ShareGPT JSON: conversations of {from, value}; roles mapped; ids kept', () => {
  const text = JSON.stringify(
    [
      {
        id: 'abc',
        conversations: [
          { from: 'system', value: 'Be brief.' },
          { from: 'human', value: 'Hi there' },
          { from: 'gpt', value: 'Hello!' },
          { from: 'human', value: 'How are you?' },
        ],
      },
      { conversations: [{ from: 'human', value: 'Second' }], domain: 'chat', output_tokens: 64 },
    ],
    null,
    2,
  );
  const ds = parse(text, 'sg.json');
  assert.equal(ds.format, 'json');
  assert.equal(ds.source, 'DATASET=sg.json');
  assert.equal(ds.items.length, 2);
  assert.deepEqual(ds.items[0], {
    id: 'abc',
    domain: null,
    outputTokens: null,
    turns: [
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Hi there' },
      { role: 'assistant', content: 'Hello!' },
      { role: 'user', content: 'How are you?' },
    ],
  });
  assert.deepEqual(ds.items[1], { id: 'item-1', domain: 'chat', outputTokens: 64, turns: [{ role: 'user', content: 'Second' }] });
});

test('JSONL of OpenAI messages: string content and text parts; developer counts as system', () => {
  const lines = [
    JSON.stringify({
      messages: [
        { role: 'developer', content: 'Answer in French.' },
        { role: 'user', content: 'Hello' },
      ],
      domain: 'chat',
    }),
    '',
    JSON.stringify({
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Part one. ' },
            { type: 'text', text: 'Part two.' },
          ],
        },
      ],
      id: 7,
      output_tokens: 10,
    }),
  ];
  const ds = parse(lines.join('\r\n') + '\r\n');
  assert.equal(ds.format, 'jsonl');
  assert.deepEqual(
    ds.items.map((i) => i.id),
    ['line-1', '7'],
  );
  assert.deepEqual(ds.items[0].turns, [
    { role: 'system', content: 'Answer in French.' },
    { role: 'user', content: 'Hello' },
  ]);
  assert.equal(ds.items[1].turns[0].content, 'Part one. Part two.');
  assert.equal(ds.items[1].outputTokens, 10);
});

test('JSONL of prompts: prompt, output_tokens, domain; a byte-order mark is ignored', () => {
  const text = '\ufeff{"prompt": "Write a haiku", "output_tokens": 32, "domain": "chat"}\n{"prompt":"Sum 1..10","domain":"math"}\n';
  const ds = parse(text);
  assert.equal(ds.format, 'jsonl');
  assert.deepEqual(ds.items, [
    { id: 'line-1', domain: 'chat', outputTokens: 32, turns: [{ role: 'user', content: 'Write a haiku' }] },
    { id: 'line-2', domain: 'math', outputTokens: null, turns: [{ role: 'user', content: 'Sum 1..10' }] },
  ]);
});

test('JSONL lines may mix object kinds, and ShareGPT objects one per line', () => {
  const text = ['{"prompt":"a"}', '{"messages":[{"role":"user","content":"b"}]}', '{"conversations":[{"from":"human","value":"c"}]}'].join('\n');
  assert.deepEqual(
    parse(text).items.map((i) => i.turns[0].content),
    ['a', 'b', 'c'],
  );
});

test('a JSON array may hold prompt objects too', () => {
  const ds = parse('[{"prompt":"x","domain":"code"},{"prompt":"y"}]', 'p.json');
  assert.equal(ds.format, 'json');
  assert.deepEqual(
    ds.items.map((i) => [i.id, i.domain]),
    [
      ['item-0', 'code'],
      ['item-1', null],
    ],
  );
});

test('plain text: one prompt per line, blank lines skipped, CRLF handled, ids by line', () => {
  const ds = parse('What is 2+2?\r\n\r\n   \nTell me a joke.\n[INST] not JSON [/INST]\n', 'p.txt');
  assert.equal(ds.format, 'text');
  assert.deepEqual(
    ds.items.map((i) => [i.id, i.turns[0].content]),
    [
      ['line-1', 'What is 2+2?'],
      ['line-4', 'Tell me a joke.'],
      ['line-5', '[INST] not JSON [/INST]'],
    ],
  );
});

test('format detection', () => {
  assert.equal(detectFormat('[{"conversations": []}]'), 'json');
  assert.equal(detectFormat('  \n[\n  {\n'), 'json');
  assert.equal(detectFormat('[]'), 'json');
  assert.equal(detectFormat('{"prompt": "x"}\n'), 'jsonl');
  assert.equal(detectFormat('{ "messages": [] }'), 'jsonl');
  assert.equal(detectFormat('{\n  "prompt": "x"\n}'), 'jsonl');
  assert.equal(detectFormat('[INST] hello'), 'text');
  assert.equal(detectFormat('{curly} braces in a prompt'), 'text');
  assert.equal(detectFormat('Plain prompt'), 'text');
});

test('a forced format overrides detection', () => {
  const ds = parseDataset('[1] first\n{"prompt": "x"}\n', { file: 'p.txt', format: 'text' });
  assert.deepEqual(
    ds.items.map((i) => i.turns[0].content),
    ['[1] first', '{"prompt": "x"}'],
  );
  assert.equal(parseDataset('{"prompt":"x"}', { file: 'f', variable: 'PROMPTS' }).source, 'PROMPTS=f');
});

test('conversations with no user text are skipped and counted, not an error', () => {
  const text = JSON.stringify([
    { conversations: [] },
    { conversations: [{ from: 'human', value: 'ok' }] },
    { conversations: [{ from: 'gpt', value: 'only a reply' }] },
    { conversations: [{ from: 'human', value: '   ' }] },
  ]);
  const ds = parse(text, 'sg.json');
  assert.equal(ds.items.length, 1);
  assert.deepEqual(ds.skipped, { count: 3, first: 'item [0]' });
});

// ---- Bad input: one error naming file, place, field and what was expected -------------------------

test('bad input messages', () => {
  const cases: Array<[string, string, string]> = [
    [
      '',
      'data.jsonl',
      'DATASET=data.jsonl: the file is empty: expected ShareGPT JSON, JSONL of {"messages": …} or {"prompt": …} objects, or one prompt per line',
    ],
    [' \n\n ', 'data.jsonl', 'DATASET=data.jsonl: the file is empty'],
    [
      '{"prompt":"a"}\n{"prompt":"b", "output_tokens":"abc"}',
      'data.jsonl',
      "DATASET=data.jsonl: line 2: output_tokens must be a positive whole number, got 'abc'",
    ],
    ['{"prompt":"a","output_tokens":0}', 'data.jsonl', 'DATASET=data.jsonl: line 1: output_tokens must be a positive whole number, got 0'],
    ['{"prompt":"a","output_tokens":2.5}', 'data.jsonl', 'line 1: output_tokens must be a positive whole number, got 2.5'],
    ['{"prompt":"a"}\n{"prompt": oops}\n', 'data.jsonl', 'DATASET=data.jsonl: line 2: not valid JSON ('],
    ['{"prompt":"a"}\n{"prompt": "b"', 'data.jsonl', '; JSONL needs one JSON object per line'],
    ['{"prompt":"a"}\n[1,2]', 'data.jsonl', 'line 2: expected a JSON object, got a list of 2'],
    ['{"prompt":"a"}\n"just a string"', 'data.jsonl', "line 2: expected a JSON object, got 'just a string'"],
    ['{"prompt": 42}', 'data.jsonl', 'line 1: prompt must be a non-empty string, got 42'],
    ['{"prompt": ""}', 'data.jsonl', "line 1: prompt must be a non-empty string, got ''"],
    [
      '{"text": "x", "label": 1}',
      'data.jsonl',
      'line 1: expected an object with "conversations" (ShareGPT), "messages" (OpenAI chat) or "prompt", got one with text, label',
    ],
    ['{}', 'data.jsonl', 'got an empty object'],
    [
      '{"prompt":"a","domain":"Code Generation"}',
      'data.jsonl',
      "line 1: domain must be a name of letters, digits, _ or -, starting with a letter (at most 32), got 'Code Generation'",
    ],
    ['{"prompt":"a","domain":5}', 'data.jsonl', 'line 1: domain must be a name'],
    ['{"prompt":"a","id":{"x":1}}', 'data.jsonl', 'line 1: id must be a string or a number, got an object'],
    ['{"messages": "hi"}', 'data.jsonl', 'line 1: messages must be a list of {"role", "content"} messages, got \'hi\''],
    [
      '{"messages": [{"role":"user","content":"a"},{"role":"tool","content":"b"}]}',
      'data.jsonl',
      "line 1: messages[1].role must be one of system, user, assistant, got 'tool'",
    ],
    ['{"messages": [{"role":"user","content":null}]}', 'data.jsonl', 'line 1: messages[0].content must be a string or a list of text parts, got null'],
    [
      '{"messages": [{"role":"user","content":[{"type":"image_url","image_url":{}}]}]}',
      'data.jsonl',
      'line 1: messages[0].content[0] must be a text part {"type": "text", "text": …} (only text is sent), got an object',
    ],
    ['{"messages": [7]}', 'data.jsonl', 'line 1: messages[0] must be an object {"role", "content"}, got 7'],
    [
      '[{"conversations": [{"from": "bot", "value": "x"}]}]',
      'sg.json',
      "DATASET=sg.json: item [0]: conversations[0].from must be one of human, gpt, system (or user, assistant), got 'bot'",
    ],
    [
      '[{"conversations":[{"from":"human","value":"ok"}]}, {"conversations": [{"from": "human", "value": 3}]}]',
      'sg.json',
      'DATASET=sg.json: item [1]: conversations[0].value must be a string, got 3',
    ],
    ['[{"conversations": {"from": "human"}}]', 'sg.json', 'item [0]: conversations must be a list of {"from", "value"} turns, got an object'],
    ['[{"conversations": ["hi"]}]', 'sg.json', 'item [0]: conversations[0] must be an object {"from", "value"}, got \'hi\''],
    ['[{"conversations": []},\n {"conversations": [}]', 'sg.json', 'DATASET=sg.json: line 2: not valid JSON ('],
    ['[]', 'sg.json', 'DATASET=sg.json: no prompts in the file: nothing to send'],
    [
      '[{"conversations": []}, {"conversations": [{"from":"gpt","value":"x"}]}]',
      'sg.json',
      'DATASET=sg.json: all 2 conversations have no user turn with text (first: item [0]): nothing to send',
    ],
    ['{\n  "prompt": "x"\n}', 'one.json', 'DATASET=one.json: line 1: not valid JSON ('],
  ];
  for (const [text, file, expected] of cases) {
    const msg = error(text, file);
    assert.ok(msg.includes(expected), `for ${JSON.stringify(text)}:\n  got      ${msg}\n  expected ${expected}`);
  }
});

test('a JSON array that is not an array of objects, and one with too many domains', () => {
  assert.throws(() => parseDataset('[1]', { file: 'x.json', format: 'json' }), /DATASET=x.json: item \[0\]: expected a JSON object, got 1$/);
  const many = Array.from({ length: 40 }, (_, i) => JSON.stringify({ prompt: 'p', domain: `d${i}` })).join('\n');
  assert.match(error(many), /line 33: more than 32 distinct domains/);
});

test('long values are cut in messages', () => {
  const msg = error(JSON.stringify({ prompt: 'x', output_tokens: 'y'.repeat(500) }));
  assert.ok(msg.length < 200, msg);
  assert.match(msg, /got 'y{40}…'$/);
});

// ---- Selection, order, turns ---------------------------------------------------------------------

test('selectDomains keeps the asked domains and names the available ones when none match', () => {
  const ds = parse('{"prompt":"a","domain":"code"}\n{"prompt":"b","domain":"math"}\n{"prompt":"c"}');
  assert.deepEqual(
    selectDomains(ds, ['math', 'code']).items.map((i) => i.id),
    ['line-1', 'line-2'],
  );
  assert.throws(
    () => selectDomains(ds, ['poetry']),
    (e: Error) => e instanceof DatasetError && e.message === "DATASET=data.jsonl: no prompt of domain poetry: the dataset's domains are (none), code, math",
  );
});

test('seededOrder: a permutation, the same for the same seed, another for another seed', () => {
  const a = seededOrder(500, 42);
  assert.deepEqual(
    [...a].sort((x, y) => x - y),
    Array.from({ length: 500 }, (_, i) => i),
  );
  assert.deepEqual(seededOrder(500, 42), a);
  assert.notDeepEqual(seededOrder(500, 43), a);
  assert.notDeepEqual(
    a,
    Array.from({ length: 500 }, (_, i) => i),
    'shuffled',
  );
  assert.deepEqual(seededOrder(0, 1), []);
  assert.deepEqual(seededOrder(1, 1), [0]);
});

test('requestTurns: the history up to the k-th user turn; userTurns counts them', () => {
  const ds = parse(
    JSON.stringify([
      {
        conversations: [
          { from: 'system', value: 'S' },
          { from: 'human', value: 'U1' },
          { from: 'gpt', value: 'A1' },
          { from: 'human', value: 'U2' },
          { from: 'gpt', value: 'A2' },
        ],
      },
    ]),
    'c.json',
  );
  const item = ds.items[0];
  assert.equal(userTurns(item), 2);
  assert.deepEqual(
    requestTurns(item).map((t) => t.content),
    ['S', 'U1'],
  );
  assert.deepEqual(
    requestTurns(item, 2).map((t) => t.content),
    ['S', 'U1', 'A1', 'U2'],
  );
  assert.throws(() => requestTurns(item, 3), RangeError);
  assert.equal(turnsText(requestTurns(item, 2)), 'S\n\nU1\n\nA1\n\nU2');
});

test('markTurns puts the domain marker before the first user turn only', () => {
  const turns = [
    { role: 'system' as const, content: 'S' },
    { role: 'user' as const, content: 'U1' },
    { role: 'user' as const, content: 'U2' },
  ];
  assert.deepEqual(markTurns(turns, 'code'), [
    { role: 'system', content: 'S' },
    { role: 'user', content: '[domain: code]\nU1' },
    { role: 'user', content: 'U2' },
  ]);
  assert.deepEqual(markTurns(turns, null), turns);
  assert.equal(turns[1].content, 'U1', 'input untouched');
});

// ---- Locating a JSON syntax error (k6's JSON.parse says what, not where) -----------------------

test('locateJsonError: −1 for valid JSON, else the offset of the first bad token', () => {
  for (const ok of ['[]', '{}', '[1, -2.5e3, "a\\"b", true, false, null, {"k": [{}]}]', ' \n {"a": {"b": []}} \n', '"x"', '0'])
    assert.equal(locateJsonError(ok), -1, ok);
  const at = (s: string) => locateJsonError(s);
  assert.equal(at('[1, 2,]'), 6);
  assert.equal(at('[1 2]'), 3);
  assert.equal(at('{"a" 1}'), 5);
  assert.equal(at('{"a": 1,}'), 8);
  assert.equal(at('{a: 1}'), 1);
  assert.equal(at('[1, 2'), 5, 'cut short: the end');
  assert.equal(at('[1] 2'), 4, 'trailing data');
  assert.equal(at('["a\nb"]'), 1, 'a raw newline inside a string');
  assert.equal(at("['a']"), 1);
  assert.equal(at('[01]'), 2);
});

test('locateJsonError agrees with JSON.parse on many corrupted documents', () => {
  const rng = rngFor(3, 'json-fuzz');
  const doc = JSON.stringify(
    [
      {
        conversations: [
          { from: 'human', value: 'Hi "there"\\ [x] {y}' },
          { from: 'gpt', value: 'ok' },
        ],
        id: 1.5e2,
        n: null,
        t: true,
      },
      [],
      {},
    ],
    null,
    1,
  );
  const alphabet = '[]{},:"\\ 0-1eatrn\n';
  for (let k = 0; k < 3000; k++) {
    const chars = doc.split('');
    const edits = 1 + Math.floor(rng() * 2);
    for (let e = 0; e < edits; e++) {
      const i = Math.floor(rng() * chars.length);
      const r = rng();
      if (r < 0.4) chars.splice(i, 1);
      else if (r < 0.7) chars.splice(i, 0, alphabet[Math.floor(rng() * alphabet.length)]);
      else chars[i] = alphabet[Math.floor(rng() * alphabet.length)];
    }
    const s = chars.join('');
    let valid = true;
    try {
      JSON.parse(s);
    } catch {
      valid = false;
    }
    assert.equal(locateJsonError(s) === -1, valid, `disagreement on ${JSON.stringify(s)}`);
  }
});
