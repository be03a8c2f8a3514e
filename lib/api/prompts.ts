// Prompts and datasets for a user's script: the benchmarks' built-in prompt set, their dataset
// reader (ShareGPT JSON, JSONL of messages or prompts, plain text: docs/datasets.md), seeded
// prompts of a given length, and the turns of a conversation as chat messages.
import { builtinItems, BUILTIN_DOMAINS, type BuiltinDomain } from '../dataset/builtin';
import { parseDataset, requestTurns, turnsText, userTurns, type DatasetItem } from '../dataset/format';
import { textPromptPool, tokenPromptPool, type PromptSpec } from '../workload/seeded-prompts';
import { TOKEN_ID_FLOOR } from '../config/load';
import { readText, sharedArray } from '../k6/library';
import type { Message } from './client';

export type { DatasetItem, Turn } from '../dataset/format';
export { BUILTIN_DOMAINS, type BuiltinDomain };

/** The built-in prompts (code, math, chat, summarization; some chat items are conversations), the same everywhere. */
export function builtinPrompts(domains: readonly BuiltinDomain[] = BUILTIN_DOMAINS): DatasetItem[] {
  return builtinItems(domains);
}

/** Reads a dataset's text (format detected); throws one line naming the file, the line and the field on a bad one. */
export function parsePrompts(text: string, file = 'dataset'): DatasetItem[] {
  return parseDataset(text, { file, variable: 'file' }).items;
}

/**
 * Reads a dataset file once for the whole test and shares it between VUs (k6's open() and
 * SharedArray). Call it in the init context; the path is relative to the script k6 runs.
 */
export function loadPrompts(path: string): DatasetItem[] {
  return sharedArray(`k6-llm-bench:${path}`, () => parsePrompts(readText(path), path));
}

/** The chat messages of an item's k-th user turn (1-based): the turns before it, the recorded replies included. */
export function messagesOf(item: DatasetItem, turn = 1): Message[] {
  return requestTurns(item, turn).map((t) => ({ role: t.role, content: t.content }));
}

/** How many user turns an item has. */
export function turnsOf(item: DatasetItem): number {
  return userTurns(item);
}

/** Messages as one text (contents joined by blank lines), for completion routes. */
export function textOf(messages: readonly Message[]): string {
  return turnsText(messages as Array<{ role: 'user'; content: string }>);
}

function spec(tokens: number, seed: number, vocabSize: number): PromptSpec {
  if (!Number.isInteger(tokens) || tokens < 1) throw new Error(`k6-llm-bench: a prompt length must be a whole number of tokens, got ${tokens}.`);
  return { isl: tokens, poolSize: 1, seed, vocabSize, idFloor: TOKEN_ID_FLOOR, sharedPrefix: 0, spread: 0 };
}

/** A text of about `tokens` tokens (common one-token English words; the server's prompt_tokens is the true count). */
export function randomText(tokens: number, seed = 1): string {
  return textPromptPool(spec(tokens, seed, 32000))[0];
}

/** Exactly `tokens` token ids, seeded, drawn from [1000, vocabSize): for generate({ tokenIds }). */
export function randomTokenIds(tokens: number, o: { seed?: number; vocabSize?: number } = {}): number[] {
  return JSON.parse(tokenPromptPool(spec(tokens, o.seed ?? 1, o.vocabSize ?? 32000))[0]) as number[];
}
