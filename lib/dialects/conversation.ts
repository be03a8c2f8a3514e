// The turns a chat-style route sends for a text prompt: a dataset conversation's own messages, else
// the text as one user turn. Shared by the chat, Messages and Responses dialects.
import type { GenerationRequest } from './types';

export interface Turn {
  role: string;
  content: string;
}

/** The prompt's turns; `dialect` names the caller in the error a token-id prompt gets. */
export function promptTurns(req: GenerationRequest, dialect: string): ReadonlyArray<Turn> {
  if (req.prompt.kind !== 'text') throw new Error(`${dialect} takes text prompts only`);
  return req.prompt.messages ?? [{ role: 'user', content: req.prompt.text }];
}
