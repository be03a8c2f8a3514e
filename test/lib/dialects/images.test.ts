// The request bodies that carry images: the chat, Responses and Messages shapes, images after the
// text of the last user turn; the dialects without the trait carry none.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createDialect, imageDialects, DIALECT_TRAITS, DIALECT_NAMES } from '../../../lib/dialects/index';
import type { GenerationRequest, ImageInput } from '../../../lib/dialects/types';

const img: ImageInput = { mediaType: 'image/png', data: 'iVBORw0KGgo=', width: 8, height: 8 };
const url = 'data:image/png;base64,iVBORw0KGgo=';
const req = (over: Partial<GenerationRequest> = {}): GenerationRequest => ({
  prompt: { kind: 'text', text: 'describe' },
  maxTokens: 4,
  ignoreEos: true,
  temperature: 0,
  stream: true,
  model: 'm',
  images: [img, img],
  ...over,
});
const body = (name: 'openai-chat' | 'responses' | 'anthropic', r = req()) =>
  JSON.parse(createDialect(name, { dialectVar: 'DIALECT', modelVar: 'MODEL', model: 'm' }).build(r).body) as Record<string, unknown>;

test('openai-chat: text then image_url parts with data URLs', () => {
  assert.deepEqual(body('openai-chat').messages, [
    {
      role: 'user',
      content: [
        { type: 'text', text: 'describe' },
        { type: 'image_url', image_url: { url } },
        { type: 'image_url', image_url: { url } },
      ],
    },
  ]);
  assert.deepEqual(body('openai-chat', req({ images: undefined })).messages, [{ role: 'user', content: 'describe' }], 'no images: the text as before');
});

test('responses: input becomes a message with input_text and input_image parts', () => {
  assert.deepEqual(body('responses').input, [
    {
      role: 'user',
      content: [
        { type: 'input_text', text: 'describe' },
        { type: 'input_image', image_url: url },
        { type: 'input_image', image_url: url },
      ],
    },
  ]);
  assert.equal(body('responses', req({ images: [] })).input, 'describe');
});

test('anthropic: image blocks with a base64 source, in the last user turn of a conversation', () => {
  const conv = req({
    prompt: {
      kind: 'text',
      text: '',
      messages: [
        { role: 'system', content: 'be brief' },
        { role: 'user', content: 'first' },
        { role: 'assistant', content: 'ok' },
        { role: 'user', content: 'second' },
      ],
    },
    images: [img],
  });
  const b = body('anthropic', conv);
  assert.equal(b.system, 'be brief');
  assert.deepEqual(b.messages, [
    { role: 'user', content: 'first' },
    { role: 'assistant', content: 'ok' },
    {
      role: 'user',
      content: [
        { type: 'text', text: 'second' },
        { type: 'image', source: { type: 'base64', media_type: 'image/png', data: img.data } },
      ],
    },
  ]);
});

test('the images trait is data in the table: the chat dialects have it, the prompt and token-id ones not', () => {
  assert.deepEqual(imageDialects(), ['openai-chat', 'anthropic', 'responses']);
  for (const n of DIALECT_NAMES) assert.equal(DIALECT_TRAITS[n].images !== undefined, DIALECT_TRAITS[n].chat, n);
});
