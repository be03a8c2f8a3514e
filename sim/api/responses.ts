// OpenAI Responses, POST /v1/responses, as vLLM and SGLang serve it beside their OpenAI routes: the
// same engine, prompt (chat template) and ground truth as /v1/chat/completions, answered in the
// Responses shapes: named events (response.created, in_progress, an output item per reasoning and
// message with its deltas, the done events, then response.completed, or response.incomplete at the
// token limit; no [DONE]), errors in the OpenAI shape, in a stream as response.failed.
import type { SimContext } from '../context';
import type { ChatMessage } from '../tokenizer';
import { HttpError, type Json, type RouteContext, type Router, readJsonObject } from './common';
import { checkModel, chatPrompt, startGeneration } from './openai';
import { optBool, optInt, optString } from './params';
import type { Formatter, SessionState } from './session';

export const RESPONSES_ROUTE = '/v1/responses';

function usage(s: SessionState): Json {
  const p = s.req.promptIds.length;
  const n = s.ids.length;
  return {
    input_tokens: p,
    input_tokens_details: { cached_tokens: s.cachedTokens },
    output_tokens: n,
    output_tokens_details: { reasoning_tokens: Math.min(n, s.req.reasoningTokens) },
    total_tokens: p + n,
  };
}

/** A response's output items: the reasoning (when there was any), then the message. */
function outputItems(s: SessionState, status: string, ids: { reasoning: string; message: string }): Json[] {
  const out: Json[] = [];
  if (s.reasoning) out.push({ id: ids.reasoning, type: 'reasoning', summary: [], content: [{ type: 'reasoning_text', text: s.reasoning }], status });
  out.push({ id: ids.message, type: 'message', role: 'assistant', status, content: [{ type: 'output_text', text: s.content, annotations: [] }] });
  return out;
}

function formatter(ctx: SimContext, hex: string): Formatter {
  const model = ctx.o.model;
  const created = Math.floor(Date.now() / 1000);
  const rid = `resp_${hex}`;
  const ids = { reasoning: `rs_${hex}`, message: `msg_${hex}` };
  let seq = 0;
  let outputIndex = -1;
  let open: 'reasoning' | 'message' | null = null;
  const ev = (type: string, fields: Json): string => JSON.stringify({ type, ...fields, sequence_number: seq++ });
  const response = (s: SessionState | null, status: string, extra: Json = {}): Json => ({
    id: rid,
    object: 'response',
    created_at: created,
    model,
    status,
    ...extra,
    ...(s ? { usage: usage(s) } : {}),
  });
  const items = (s: SessionState, status: string): Json[] => outputItems(s, status, ids);
  const close = (s: SessionState, out: string[]): void => {
    if (open === 'message') {
      out.push(ev('response.output_text.done', { content_index: 0, item_id: ids.message, output_index: outputIndex, text: s.content }));
      out.push(
        ev('response.content_part.done', {
          content_index: 0,
          item_id: ids.message,
          output_index: outputIndex,
          part: { type: 'output_text', text: s.content, annotations: [] },
        }),
      );
    }
    if (open !== null) {
      const list = items(s, 'completed');
      out.push(ev('response.output_item.done', { output_index: outputIndex, item: open === 'reasoning' ? list[0] : list[list.length - 1] }));
    }
    open = null;
  };
  const openItem = (s: SessionState, kind: 'reasoning' | 'message', out: string[]): void => {
    if (open === kind) return;
    close(s, out);
    outputIndex++;
    open = kind;
    const item =
      kind === 'reasoning'
        ? { id: ids.reasoning, type: 'reasoning', summary: [], content: [], status: 'in_progress' }
        : { id: ids.message, type: 'message', role: 'assistant', status: 'in_progress', content: [] };
    out.push(ev('response.output_item.added', { output_index: outputIndex, item }));
    if (kind === 'message')
      out.push(
        ev('response.content_part.added', {
          content_index: 0,
          item_id: ids.message,
          output_index: outputIndex,
          part: { type: 'output_text', text: '', annotations: [] },
        }),
      );
  };
  // The text comes early in a delta and the running sequence_number last, so that a client's chunk template reads it.
  const delta = (kind: 'reasoning' | 'message', text: string): string =>
    `{"type":"response.${kind === 'message' ? 'output' : 'reasoning'}_text.delta","content_index":0,"delta":${JSON.stringify(text)},` +
    `"item_id":"${ids[kind]}","output_index":${outputIndex},"sequence_number":${seq++}}`;
  const final = (s: SessionState): Json =>
    s.finish?.kind === 'length'
      ? response(s, 'incomplete', { incomplete_details: { reason: 'max_output_tokens' }, output: items(s, 'incomplete') })
      : response(s, 'completed', { output: items(s, 'completed') });
  return {
    errorStyle: ctx.imitation.errors.openai,
    sse: { named: true, done: false },
    event(s, d, first) {
      const out: string[] = [];
      if (first) {
        out.push(ev('response.created', { response: response(null, 'in_progress', { output: [] }) }));
        out.push(ev('response.in_progress', { response: response(null, 'in_progress', { output: [] }) }));
      }
      if (d.reasoning) {
        openItem(s, 'reasoning', out);
        out.push(delta('reasoning', d.reasoning));
      }
      if (d.content) {
        openItem(s, 'message', out);
        out.push(delta('message', d.content));
      }
      return out;
    },
    tail(s) {
      const out: string[] = [];
      close(s, out);
      const r = final(s);
      out.push(ev(r.status === 'incomplete' ? 'response.incomplete' : 'response.completed', { response: r }));
      return out;
    },
    body: final,
    streamError: (message, status) =>
      ev('response.failed', {
        response: response(null, 'failed', { error: { code: status === 503 ? 'server_is_overloaded' : 'server_error', message }, output: [] }),
      }),
    abortEvent: () => null,
  };
}

/** input: a string (one user turn) or a list of messages; instructions: a system turn before them. */
function inputTurns(body: Json): { field: string; turns: Json; system: ChatMessage[] } {
  const instructions = optString(body, 'instructions');
  const system = instructions ? [{ role: 'system', content: instructions }] : [];
  const input = body.input;
  if (typeof input === 'string') return { field: 'input', turns: { input: [{ role: 'user', content: input }] }, system };
  if (input !== undefined && input !== null && !Array.isArray(input))
    throw new HttpError(400, 'input: Input should be a valid string or list of messages', 'input');
  return { field: 'input', turns: body, system };
}

async function handle(ctx: SimContext, rc: RouteContext): Promise<void> {
  const body = await readJsonObject(rc.req);
  const adapter = checkModel(ctx, body);
  const { field, turns, system } = inputTurns(body);
  const g = {
    route: RESPONSES_ROUTE,
    idPrefix: 'resp_',
    adapter,
    prompt: chatPrompt(ctx, turns, field, system),
    stream: optBool(body, 'stream') ?? false,
    maxNew: optInt(body, 'max_output_tokens'),
    ignoreEos: optBool(body, 'ignore_eos') ?? false,
    stop: [],
    reasoning: true,
  };
  startGeneration(ctx, rc, g, (_id, hex) => formatter(ctx, hex));
}

export function addResponsesRoutes(router: Router, ctx: SimContext): void {
  router.add('POST', RESPONSES_ROUTE, (rc) => handle(ctx, rc));
}
