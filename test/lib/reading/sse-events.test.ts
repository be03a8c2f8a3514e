import { test } from 'node:test';
import assert from 'node:assert/strict';
import { splitSseEvents } from '../../../lib/reading';

test('splits events on blank lines and joins multi-line data', () => {
  const r = splitSseEvents('data: a\n\n: comment\n\nevent: x\ndata: b1\ndata: b2\n\ndata:c\n\n');
  assert.deepEqual(r.data, ['a', 'b1\nb2', 'c']);
  assert.equal(r.partial, '');
});
test('handles CRLF line endings', () => {
  assert.deepEqual(splitSseEvents('data: a\r\n\r\ndata: [DONE]\r\n\r\n').data, ['a', '[DONE]']);
});
test('reports bytes after the last complete event as partial', () => {
  const r = splitSseEvents('data: a\n\ndata: {"x":');
  assert.deepEqual(r.data, ['a']);
  assert.equal(r.partial, 'data: {"x":');
});
test('trailing newlines alone are not partial', () => {
  assert.equal(splitSseEvents('data: a\n\n\n').partial, '');
});
