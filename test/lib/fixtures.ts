import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DialectName } from '../../lib/dialects/index';

const dir = join(__dirname, '..', 'fixtures', 'replies');

/** A recorded server reply, byte for byte. */
export function reply(name: string): string {
  return readFileSync(join(dir, name), 'utf8');
}

/** The dialect that reads each recorded generation reply, by its file name. */
export const FIXTURE_DIALECTS: Array<[RegExp, DialectName]> = [
  [/^sglang-/, 'sglang'],
  [/^vllm-chat-/, 'openai-chat'],
  [/^vllm-/, 'openai'],
  [/^llamacpp-native-/, 'llamacpp'],
  [/^llamacpp-completions-/, 'openai'],
  [/^llamacpp-chat-/, 'openai-chat'],
];
