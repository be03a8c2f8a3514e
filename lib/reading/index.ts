// The reading room: how a reply's bytes become a GenerationResult, for every dialect alike.
//
//   sse-events.ts          an event stream cut into its events (and whether a body is one)
//   stream-arrivals.ts     events stamped as they arrive and kept, read a batch at a time
//   stream-accumulator.ts  the one reader: chunks in, a GenerationResult out (Accumulator)
//   chunk-reader.ts        what a dialect gives it: what a chunk of its shape contains (ChunkReader)
//   chunk-update.ts        what one chunk said (ChunkUpdate), the reader's and the template's shared word
//   chunk-template.ts      the per-event speed-up: chunks of a learned shape read without JSON.parse
//   chunk-layout.ts        a chunk cut into constant pieces and variable holes, which a template learns
//   template-skeletons.ts  what a template learned kept for the next stream of the same shape
//   tool-call-tally.ts     a reply's tool calls gathered from its chunks
//   whole-reply.ts         a complete HTTP reply (status, event stream or plain JSON) read at once
//
// It stands on the dialects' words (lib/dialects/types.ts, errors.ts, structured.ts) and under the
// dialects themselves, which read their replies with it (scripts/lint/layers.cjs ranks it so).
// The dialect table (lib/dialects/index.ts) is what a reader reads by: each dialect's ChunkReader
// and its template keys. This JavaScript reader is the first reader of that table; a second one, a
// Go k6 extension that reads the stream natively (issue 52, not landed), would sit beside it here,
// reading the same table, and hand back the same GenerationResult.
export { Accumulator } from './stream-accumulator';
export { num, obj, type ChunkReader } from './chunk-reader';
export type { ChunkUpdate, Phase, ToolDelta } from './chunk-update';
export { ChunkTemplate, remember, type FastRead, type Skeleton, type TemplateCache, type TemplateSuffix } from './chunk-template';
export { ARRIVAL_BATCH, arrivals, restart, tokenColumns, type Arrivals } from './stream-arrivals';
export * from './sse-events';
export { failed, parseReply } from './whole-reply';
