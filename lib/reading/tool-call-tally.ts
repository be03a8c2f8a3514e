// A reply's tool calls gathered from its chunks: the names and arguments by call, and the tokens
// the call events carried (the stream accumulator's part for tools).
import type { ToolDelta } from './chunk-update';
import type { ToolCall, ToolCalls } from '../dialects/structured';

/** A reply's calls as its events are read: see Accumulator.toolEvent. */
export interface ToolTally {
  calls: ToolCall[];
  /** Summed per-event counts of the call events; NaN once one was not said. */
  tokens: number;
  firstTool: number;
  firstOther: number;
}

/** Adds a chunk's pieces of tool calls to their calls; whether any carried a name or arguments. */
export function mergeToolDeltas(t: ToolTally, ds: ToolDelta[]): boolean {
  let generated = false;
  // Indexed: a for-of costs k6's engine an object per step.
  for (let i = 0; i < ds.length; i++) {
    const d = ds[i];
    const call = (t.calls[d.index] ??= { name: '', arguments: '' });
    if (d.name) call.name += d.name;
    call.arguments += d.args;
    generated ||= !!d.name || d.args !== '';
  }
  return generated;
}

/**
 * The reply's calls (gaps in the indexes dropped). Their tokens: the stream's per-event counts
 * when every call event said its count; else the server's whole count (`completion`) when nothing
 * but calls was generated (`onlyCalls`: no reasoning and no text); else not known.
 */
export function toolCallsOf(t: ToolTally, r: { streamed: boolean; onlyCalls: boolean; completion: number | null }): ToolCalls {
  const streamed = r.streamed && t.firstTool >= 0;
  const onlyCalls = t.firstOther < 0 && r.onlyCalls;
  const counted = streamed && Number.isFinite(t.tokens) ? t.tokens : null;
  return {
    calls: t.calls.filter((c) => c !== undefined),
    tokens: counted ?? (onlyCalls ? r.completion : null),
    firstToolEvent: streamed ? t.firstTool : null,
    firstOtherEvent: r.streamed && t.firstOther >= 0 ? t.firstOther : null,
  };
}
