// Events kept on arrival and read a batch at a time (lib/reading/stream-arrivals.ts) must come out as
// reading each event as it arrives does: the same token events with their arrival times, the
// end of the stream at its [DONE], and the same final result, however the batches fall.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ARRIVAL_BATCH, arrivals, restart, tokenColumns, type Arrivals } from '../../../lib/reading';
import { createDialect, type DialectName } from '../../../lib/dialects/index';
import { EVENT_DONE, EVENT_NONE } from '../../../lib/dialects/types';

const ctx = { dialectVar: 'DIALECT', modelVar: 'MODEL', model: 'm' };

function stream(dialect: DialectName, tokens: number): string[] {
  const out: string[] = [];
  for (let i = 1; i <= tokens; i++) {
    const last = i === tokens;
    if (dialect === 'sglang') {
      out.push(
        JSON.stringify({
          text: 'w'.repeat(i),
          meta_info: { id: 'x', finish_reason: last ? { type: 'length' } : null, prompt_tokens: 7, completion_tokens: i },
        }),
      );
    } else {
      out.push(
        JSON.stringify({
          id: 'c',
          object: 'text_completion',
          choices: [{ index: 0, text: 'w', finish_reason: last ? 'length' : null }],
          usage: { prompt_tokens: 7, completion_tokens: i, total_tokens: 7 + i },
        }),
      );
    }
  }
  if (dialect !== 'sglang')
    out.push(
      JSON.stringify({ id: 'c', object: 'text_completion', choices: [], usage: { prompt_tokens: 7, completion_tokens: tokens, total_tokens: 7 + tokens } }),
    );
  out.push('[DONE]');
  return out;
}

/** Reads `events` as the sse transport does: kept on arrival, read every `batch` events and at the end. */
function batched(a: Arrivals, dialect: DialectName, events: string[], times: number[], batch: number) {
  const reader = createDialect(dialect, ctx).streamReader();
  restart(a);
  let m = 0;
  for (let i = 0; i < events.length; i++) {
    a.at[m] = times[i];
    a.data[m++] = events[i];
    if (m === batch) {
      reader.readKept(a, m);
      m = 0;
    }
  }
  reader.readKept(a, m);
  return { columns: firstN(a), doneMs: a.doneMs, result: reader.finish() };
}

/** The token events read: the first n of the reused columns. */
function firstN(a: Arrivals): { t: number[]; tokens: number[] } {
  const c = tokenColumns(a);
  assert.equal(c.t, a.times, 'the columns are the buffers, not copies');
  return { t: c.t.slice(0, c.n), tokens: c.tokens.slice(0, c.n) };
}

/** The reference: each event read as it arrives. */
function oneByOne(dialect: DialectName, events: string[], times: number[]) {
  const reader = createDialect(dialect, ctx).streamReader();
  const t: number[] = [];
  const tokens: number[] = [];
  let doneMs = 0;
  for (let i = 0; i < events.length && doneMs === 0; i++) {
    const c = reader.onEvent(events[i]);
    if (c === EVENT_DONE) doneMs = times[i];
    else if (c !== EVENT_NONE) {
      t.push(times[i]);
      tokens.push(c);
    }
  }
  return { columns: { t, tokens }, doneMs, result: reader.finish() };
}

describe('arrivals read in batches', () => {
  for (const dialect of ['openai', 'sglang'] as DialectName[]) {
    test(`${dialect}: any batch size gives the events, times, end and result of reading one by one`, () => {
      const events = stream(dialect, 150);
      const times = events.map((_, i) => 1000 + i * 3 + (i % 7));
      const want = oneByOne(dialect, events, times);
      assert.equal(want.columns.t.length, 150);
      assert.equal(want.doneMs, times[times.length - 1]);
      const a = arrivals();
      for (const batch of [1, 2, 7, ARRIVAL_BATCH, 149, 150, 1000]) {
        const got = batched(a, dialect, events, times, batch);
        assert.deepEqual(got.columns, want.columns, `batch ${batch}`);
        assert.equal(got.doneMs, want.doneMs, `batch ${batch}`);
        assert.equal(got.result.ok, true);
        assert.equal(got.result.completionTokens, 150);
        assert.equal(got.result.text, want.result.text);
      }
    });
  }

  test('a reused buffer carries nothing over from a longer stream before it', () => {
    const a = arrivals();
    const long = stream('openai', 100);
    batched(
      a,
      'openai',
      long,
      long.map((_, i) => i),
      ARRIVAL_BATCH,
    );
    const short = stream('openai', 5);
    const got = batched(
      a,
      'openai',
      short,
      short.map((_, i) => 500 + i),
      ARRIVAL_BATCH,
    );
    assert.deepEqual(got.columns, { t: [500, 501, 502, 503, 504], tokens: [1, 1, 1, 1, 1] });
    assert.equal(got.doneMs, 506);
  });

  test('events after [DONE] are not read, and a stream cut before it is truncated', () => {
    const a = arrivals();
    const events = [...stream('sglang', 3), JSON.stringify({ text: 'www!', meta_info: { completion_tokens: 4 } })];
    const got = batched(a, 'sglang', events, [10, 20, 30, 40, 50], ARRIVAL_BATCH);
    assert.deepEqual(got.columns, { t: [10, 20, 30], tokens: [1, 1, 1] });
    assert.equal(got.doneMs, 40);
    assert.equal(got.result.completionTokens, 3);

    const cut = stream('openai', 10).slice(0, 4);
    const partial = batched(a, 'openai', cut, [1, 2, 3, 4], 3);
    assert.equal(partial.doneMs, 0);
    assert.deepEqual(partial.columns.t, [1, 2, 3, 4]);
    assert.equal(partial.result.ok, false);
    assert.equal(partial.result.error?.class, 'truncated');
  });
});
