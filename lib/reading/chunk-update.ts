// What one chunk of a reply says, in the dialects' common terms: a leaf module, so that the chunk
// template (chunk-template.ts) and the accumulator that drives it do not import each other.
import type { FinishReason, SpecStepCounts } from '../dialects/types';

/**
 * What a chunk's text is, for a reply that separates reasoning from its answer (chat
 * `reasoning_content` / `reasoning` deltas, or `<think>` spans): reasoning only, answer only, or
 * both (the chunk where the answer starts). Absent: the reader cannot tell (no reasoning field).
 */
export type Phase = 'reasoning' | 'answer' | 'both';

export interface ToolDelta {
  index: number;
  name?: string;
  args: string;
}

/** What one chunk (or one non-streamed reply) says. Absent fields say nothing. */
export interface ChunkUpdate {
  /** Text this chunk adds. */
  textDelta?: string;
  /** Whole text so far (SGLang's cumulative stream); replaces what was read before. */
  textSoFar?: string;
  /** The chunk carries generated content (text or tokens). */
  carriesToken: boolean;
  /** The chunk cannot hold generated content (an OpenAI usage-only chunk with no choices). */
  noContent?: boolean;
  /** Cumulative completion tokens as reported by the server at this chunk. */
  completionTokens?: number;
  promptTokens?: number;
  cachedTokens?: number;
  finishReason?: FinishReason;
  /** Server message when the request was aborted (SGLang finish_reason type abort). */
  abortMessage?: string;
  specVerifySteps?: number;
  acceptanceLength?: number;
  /** Draft tokens proposed and accepted for the request so far (llama.cpp timings). */
  draftTokens?: number;
  draftAccepted?: number;
  /** The request's verify steps (vLLM's metrics.speculative_decoding, in its last chunk or whole reply). */
  specSteps?: SpecStepCounts;
  /** See Phase; set only on chunks that carry text. */
  phase?: Phase;
  /** The server's own count of reasoning tokens (usage.completion_tokens_details.reasoning_tokens). */
  reasoningTokens?: number;
  /** An error object inside the stream. */
  error?: string;
  /**
   * Pieces of tool calls: each call's index in the reply, its function's name when this chunk
   * names it, and the arguments' text it adds (chat `delta.tool_calls`, a whole reply's
   * `message.tool_calls`, Responses' function_call_arguments deltas, Messages' input_json_delta).
   * Never read by a template.
   */
  tools?: ToolDelta[];
  /** The stream's own last event (message_stop, response.completed): the stream is over, as at [DONE]. */
  done?: boolean;
}
