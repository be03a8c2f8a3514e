import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DomainAcceptance, domainOf, parseAcceptByDomain } from '../../sim/scheduler/speculative';
import { parseArgs, resolveOptions } from '../../sim/index';
import type { RequestRecord } from '../../sim/index';
import { Rng } from '../../sim/rng';
import { domainMarker, markTurns } from '../../lib/dataset/format';
import { builtinItems } from '../../lib/dataset/builtin';
import { request, sim } from './helpers';

test('domainOf reads the first [domain: NAME] marker anywhere in the text', () => {
  assert.equal(domainOf('[domain: code]\nWrite a function'), 'code');
  assert.equal(domainOf('<|im_start|>user\n[domain: math]\nProve it<|im_end|>'), 'math');
  assert.equal(domainOf('text [domain:chat] more [domain: code]'), 'chat', 'the first one, with or without the space');
  assert.equal(domainOf('no marker here'), null);
  assert.equal(domainOf('[domain: ]'), null);
  assert.equal(domainOf('[domain: 9lives]'), null, 'a name starts with a letter');
  assert.equal(domainOf('[Domain: code]'), null, 'exact spelling');
});

test("the benchmark's marker is the one the simulator reads", () => {
  for (const item of builtinItems()) {
    const marked = markTurns(item.turns, item.domain);
    assert.equal(domainOf(marked.map((t) => t.content).join('\n')), item.domain, item.id);
  }
  assert.equal(domainOf(domainMarker('summarization')), 'summarization');
});

test('parseAcceptByDomain and DomainAcceptance: one model per domain, the default for the rest', () => {
  assert.deepEqual(
    [...parseAcceptByDomain(' code=6, math = 5.5 ,chat=2,')],
    [
      ['code', 6],
      ['math', 5.5],
      ['chat', 2],
    ],
  );
  assert.throws(() => parseAcceptByDomain('code:6'), /'code:6' is not DOMAIN=LENGTH/);
  assert.throws(() => parseAcceptByDomain('code=6,code=7'), /domain code is given twice/);
  const acc = new DomainAcceptance(3, 15, parseAcceptByDomain('code=8'));
  assert.equal(acc.forDomain('code').meanAl, 8);
  assert.equal(acc.forDomain('chat').meanAl, 3);
  assert.equal(acc.forDomain(null).meanAl, 3);
  const rng = new Rng(5);
  let sum = 0;
  for (let i = 0; i < 50_000; i++) sum += 1 + acc.forDomain('code').drawAccepted(rng);
  assert.ok(Math.abs(sum / 50_000 - 8) < 0.15, `mean ${sum / 50_000}`);
});

test('--spec-accept-by-domain: parsed, checked against K, refused without speculation', () => {
  const o = parseArgs(['--spec', 'dflash', '--spec-accept-by-domain', 'code=8,chat=2']);
  assert.notEqual(o, 'help');
  assert.equal((o as Exclude<typeof o, 'help'>).specAcceptByDomain, 'code=8,chat=2');
  assert.equal(resolveOptions({}).specAcceptByDomain, '');
  const cases: [string[], RegExp][] = [
    [['--spec-accept-by-domain', 'code=6'], /--spec-accept-by-domain: needs speculative decoding \(--spec mtp, dflash or ddtree\)/],
    [
      ['--spec', 'mtp', '--spec-accept-by-domain', 'code=6'],
      /--spec-accept-by-domain: code=6 is out of range for --spec mtp with 3 draft tokens; allowed: 1 to 4/,
    ],
    [['--spec', 'dflash', '--spec-accept-by-domain', 'chat=0.5'], /chat=0.5 is out of range/],
    [['--spec', 'dflash', '--spec-accept-by-domain', 'code'], /--spec-accept-by-domain: invalid value 'code': 'code' is not DOMAIN=LENGTH/],
    [['--spec', 'dflash', '--spec-accept-by-domain', 'Code Gen=4'], /is not DOMAIN=LENGTH/],
  ];
  for (const [argv, re] of cases) assert.throws(() => parseArgs(argv), re, argv.join(' '));
  assert.throws(() => resolveOptions({ spec: 'ddtree', specAcceptByDomain: 'x=17' }), /x=17 is out of range for --spec ddtree with 15 draft tokens/);
});

const PER_DOMAIN: Record<string, number> = { code: 8, math: 5, chat: 2, summarization: 3 };
const DEFAULT_AL = 4;

test('per-domain acceptance: each domain converges to its own mean; no marker and token ids get the default', async () => {
  const s = await sim({
    engine: 'sglang',
    spec: 'dflash',
    specAcceptLength: DEFAULT_AL,
    specAcceptByDomain: 'code=8,math=5,chat=2,summarization=3',
    timeScale: 100,
  });
  const items = builtinItems();
  const pick = (d: string) => items.filter((i) => i.domain === d).slice(0, 10);
  const body = (text: string) => ({ text, sampling_params: { max_new_tokens: 3000, ignore_eos: true } });
  const sends: Promise<unknown>[] = [];
  for (const d of Object.keys(PER_DOMAIN)) {
    pick(d).forEach((it, i) => {
      const turns = markTurns(it.turns, it.domain);
      // Half through SGLang's native route (text), half through the chat route (the marker inside a message).
      sends.push(
        i % 2 === 0
          ? request(s.url, '/generate', { body: body(turns.map((t) => t.content).join('\n\n')) })
          : request(s.url, '/v1/chat/completions', { body: { model: s.options.model, messages: turns, max_tokens: 3000, ignore_eos: true } }),
      );
    });
  }
  for (let i = 0; i < 6; i++) {
    sends.push(request(s.url, '/generate', { body: body(`An unmarked prompt number ${i}`) }));
    sends.push(request(s.url, '/generate', { body: { input_ids: [1000 + i, 2000, 3000], sampling_params: { max_new_tokens: 3000, ignore_eos: true } } }));
  }
  await Promise.all(sends);
  const recs = s.groundTruth().requests as RequestRecord[];
  assert.equal(recs.length, 52);
  assert.ok(
    recs.every((r) => r.errorClass === null && r.completionTokens === 3000),
    'all complete',
  );
  const count = (d: string | null) => recs.filter((r) => r.domain === d).length;
  for (const d of Object.keys(PER_DOMAIN)) assert.equal(count(d), 10, d);
  assert.equal(count(null), 12, 'unmarked text and token ids have no domain');

  const sum = s.groundTruth().summary();
  assert.deepEqual(Object.keys(sum.acceptLengthByDomain).sort(), Object.keys(PER_DOMAIN).sort());
  for (const [d, al] of Object.entries(PER_DOMAIN)) {
    const measured = sum.acceptLengthByDomain[d] as number;
    assert.ok(Math.abs(measured - al) / al < 0.05, `${d}: measured ${measured.toFixed(3)} vs ${al}`);
  }
  const none = recs.filter((r) => r.domain === null);
  const steps = none.reduce((a, r) => a + r.verifySteps, 0);
  const tokens = none.reduce((a, r) => a + r.verifyTokens, 0);
  assert.ok(Math.abs(tokens / steps - DEFAULT_AL) / DEFAULT_AL < 0.05, `default: ${(tokens / steps).toFixed(3)} vs ${DEFAULT_AL}`);
});

test('vLLM completions carry the marker too; /sim/requests records the domain', async () => {
  const s = await sim({ engine: 'vllm', spec: 'mtp', specAcceptByDomain: 'code=3.5', timeScale: 100 });
  await request(s.url, '/v1/completions', {
    body: { prompt: `${domainMarker('code')}\nWrite a Go function that reverses a slice.`, max_tokens: 20, ignore_eos: true },
  });
  await request(s.url, '/v1/completions', { body: { prompt: [1001, 1002, 1003], max_tokens: 20, ignore_eos: true } });
  const recs = JSON.parse((await request(s.url, '/sim/requests')).body) as RequestRecord[];
  assert.deepEqual(
    recs.map((r) => r.domain),
    ['code', null],
  );
});
