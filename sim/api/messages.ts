// Anthropic Messages, POST /v1/messages, as vLLM and SGLang serve it beside their OpenAI routes:
// the same engine, prompt (chat template) and ground truth as /v1/chat/completions, answered in the
// Messages shapes: named events (message_start with the prompt's usage, a thinking block then a
// text block of deltas, message_delta with stop_reason and output_tokens, message_stop; no [DONE]),
// errors as {"type": "error", "error": {type, message}}, the key as x-api-key or a bearer token.
import type { SimContext } from '../context';
import type { ChatMessage } from '../tokenizer';
import { HttpError, type Json, type RouteContext, type Router, readJsonObject } from './common';
import { checkModel, chatPrompt, startGeneration } from './openai';
import { missing, optBool, optInt, stopList } from './params';
import type { Finish, Formatter, SessionState } from './session';

export const MESSAGES_ROUTE = '/v1/messages';

function stopReason(f: Finish | null): string | null {
  if (!f) return null;
  if (f.kind === 'length') return 'max_tokens';
  return typeof f.matched === 'string' ? 'stop_sequence' : 'end_turn';
}

/** input_tokens leaves out the prompt tokens read from the cache, as the API counts them. */
function usage(s: SessionState, output: number): Json {
  return { input_tokens: s.req.promptIds.length - s.cachedTokens, cache_read_input_tokens: s.cachedTokens, output_tokens: output };
}

function formatter(ctx: SimContext, id: string): Formatter {
  const model = ctx.o.model;
  // The open content block: its index and kind (reasoning streams first, in a thinking block).
  let index = -1;
  let open: 'thinking' | 'text' | null = null;
  const startBlock = (kind: 'thinking' | 'text', out: string[]): void => {
    if (open === kind) return;
    if (open !== null) out.push(JSON.stringify({ type: 'content_block_stop', index }));
    index++;
    open = kind;
    out.push(
      JSON.stringify({ type: 'content_block_start', index, content_block: kind === 'text' ? { type: 'text', text: '' } : { type: 'thinking', thinking: '' } }),
    );
  };
  // A delta's JSON around its text, built once: `{"type":"content_block_delta","index":N,"delta":{"type":"text_delta","text":"` … `"}}`.
  const delta = (kind: 'thinking' | 'text', text: string): string =>
    `{"type":"content_block_delta","index":${index},"delta":{"type":"${kind}_delta","${kind}":${JSON.stringify(text)}}}`;
  return {
    errorStyle: 'anthropic',
    sse: { named: true, done: false },
    event(s, d, first) {
      const out: string[] = [];
      if (first) {
        const message = { id, type: 'message', role: 'assistant', model, content: [], stop_reason: null, stop_sequence: null, usage: usage(s, 0) };
        out.push(JSON.stringify({ type: 'message_start', message }));
      }
      if (d.reasoning) {
        startBlock('thinking', out);
        out.push(delta('thinking', d.reasoning));
      }
      if (d.content) {
        startBlock('text', out);
        out.push(delta('text', d.content));
      }
      return out;
    },
    tail(s) {
      const out: string[] = [];
      if (open !== null) out.push(JSON.stringify({ type: 'content_block_stop', index }));
      open = null;
      out.push(
        JSON.stringify({ type: 'message_delta', delta: { stop_reason: stopReason(s.finish), stop_sequence: null }, usage: { output_tokens: s.ids.length } }),
      );
      out.push('{"type":"message_stop"}');
      return out;
    },
    body(s) {
      const content: Json[] = [];
      if (s.reasoning) content.push({ type: 'thinking', thinking: s.reasoning, signature: '' });
      if (s.content || !s.reasoning) content.push({ type: 'text', text: s.content });
      const f = s.finish;
      return {
        id,
        type: 'message',
        role: 'assistant',
        model,
        content,
        stop_reason: stopReason(f),
        stop_sequence: f && typeof f.matched === 'string' ? f.matched : null,
        usage: usage(s, s.ids.length),
      };
    },
    streamError: (message, status) => JSON.stringify({ type: 'error', error: { type: status === 503 ? 'overloaded_error' : 'api_error', message } }),
    abortEvent: () => null,
  };
}

/** The top-level system prompt (a string or text blocks) as the chat template's system turn. */
function systemTurn(body: Json): ChatMessage[] {
  const s = body.system;
  if (s === undefined || s === null) return [];
  if (typeof s !== 'string' && !Array.isArray(s)) throw new HttpError(400, 'system: Input should be a valid string or list of text blocks', 'system');
  return [{ role: 'system', content: s }];
}

async function handle(ctx: SimContext, rc: RouteContext): Promise<void> {
  const body = await readJsonObject(rc.req);
  const adapter = checkModel(ctx, body);
  const prompt = chatPrompt(ctx, body, 'messages', systemTurn(body));
  // The API requires max_tokens.
  const maxNew = optInt(body, 'max_tokens');
  if (maxNew === undefined) missing('max_tokens');
  const g = {
    route: MESSAGES_ROUTE,
    idPrefix: 'msg_',
    adapter,
    prompt,
    stream: optBool(body, 'stream') ?? false,
    maxNew,
    ignoreEos: optBool(body, 'ignore_eos') ?? false,
    stop: stopList(body, 'stop_sequences'),
    reasoning: true,
  };
  startGeneration(ctx, rc, g, (id) => formatter(ctx, id));
}

export function addMessagesRoutes(router: Router, ctx: SimContext): void {
  router.add('POST', MESSAGES_ROUTE, (rc) => handle(ctx, rc));
}
