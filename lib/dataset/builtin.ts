// The built-in prompt set (DATASET=builtin, or builtin:code, builtin:math,chat …): a few hundred
// requests written for this project, in four domains whose speculative-decoding acceptance differs
// (code and math accept long drafts, open chat short ones). No text is copied from a public
// dataset. Single-turn prompts are one user turn; some chat items are conversations of 2–4 user
// turns with recorded assistant replies, for multi-turn replay.
import { ConfigError, quote } from '../config/parse';
import type { Dataset, DatasetItem, Turn } from './format';
import { chatPrompts } from './builtin/chat';
import { codePrompts } from './builtin/code';
import { mathPrompts } from './builtin/math';
import { summarizationPrompts } from './builtin/summarization';

export const BUILTIN_DOMAINS = ['code', 'math', 'chat', 'summarization'] as const;
export type BuiltinDomain = (typeof BUILTIN_DOMAINS)[number];

const SOURCES: Record<BuiltinDomain, () => Array<string | Turn[]>> = {
  code: codePrompts,
  math: mathPrompts,
  chat: chatPrompts,
  summarization: summarizationPrompts,
};

/** Every built-in item, domain by domain, ids `code-001` …; the same on every call and machine. */
export function builtinItems(domains: readonly BuiltinDomain[] = BUILTIN_DOMAINS): DatasetItem[] {
  const out: DatasetItem[] = [];
  for (const domain of domains) {
    SOURCES[domain]().forEach((p, i) => {
      const turns: Turn[] = typeof p === 'string' ? [{ role: 'user', content: p }] : p.map((t) => ({ role: t.role, content: t.content }));
      out.push({ id: `${domain}-${String(i + 1).padStart(3, '0')}`, domain, turns, outputTokens: null });
    });
  }
  return out;
}

/** Whether a DATASET value names the built-in set (`builtin` or `builtin:…`) rather than a file. */
export function isBuiltinSpec(raw: string): boolean {
  return /^builtin(:|$)/.test(raw.trim());
}

/**
 * The built-in set for `builtin` (every domain) or `builtin:code,math` (those domains, in that
 * order). An unknown domain stops the run with the list of known ones.
 */
export function builtinDataset(raw: string, variable = 'DATASET'): Dataset {
  const s = raw.trim();
  const rest = s === 'builtin' ? '' : s.startsWith('builtin:') ? s.slice('builtin:'.length) : null;
  const expected = `builtin, or builtin:DOMAINS with DOMAINS a comma-separated list of ${BUILTIN_DOMAINS.join(', ')}`;
  if (rest === null) throw new ConfigError(`${variable}=${quote(raw)} is not valid: expected ${expected}.`);
  let domains: BuiltinDomain[] = [...BUILTIN_DOMAINS];
  if (s !== 'builtin') {
    const parts = rest
      .split(',')
      .map((p) => p.trim())
      .filter((p) => p !== '');
    const bad = parts.filter((p) => !(BUILTIN_DOMAINS as readonly string[]).includes(p));
    if (parts.length === 0 || bad.length > 0) {
      throw new ConfigError(`${variable}=${quote(raw)} is not valid: expected ${expected}${bad.length ? `; ${bad.map(quote).join(', ')} is not one` : ''}.`);
    }
    domains = [...new Set(parts)] as BuiltinDomain[];
  }
  return { source: `${variable}=${s}`, format: 'json', items: builtinItems(domains), skipped: { count: 0, first: null } };
}
