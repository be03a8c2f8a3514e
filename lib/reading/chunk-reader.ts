// What a dialect gives the stream accumulator (stream-accumulator.ts): a ChunkReader says what a
// chunk of its shape contains; num and obj read a chunk's fields as its readers do.
import type { ChunkUpdate } from './chunk-update';
import type { TemplateSuffix } from './chunk-template';

export interface ChunkReader {
  read(chunk: Record<string, unknown>): ChunkUpdate;
  /** A cheaper parse of a raw event, or undefined to parse it whole. */
  fastParse?(data: string): Record<string, unknown> | undefined;
  /** The same for a whole non-streamed reply. */
  fastParseWhole?(body: string): Record<string, unknown> | undefined;
  /** The whole text, when the reader kept it aside instead of passing it on chunk by chunk. */
  text?(): string | undefined;
  /**
   * Chunks read by a learned template (chunk-template.ts) instead of being parsed: the keys whose string
   * value is a chunk's generated text (empty: the template input carries no text). Needs
   * `readInput`; absent: every chunk is parsed.
   */
  templateText?: readonly string[];
  /** The part of a raw event a template reads; undefined: none. Absent: the event itself. */
  templateInput?(data: string): string | undefined;
  /** Reads a template input in full, as the events it comes from are read; undefined when not valid. */
  readInput?(input: string): ChunkUpdate | undefined;
  /**
   * Told of the last of the events a template read in a row, as fastParse would have seen it
   * (told once, when the run of matches ends or the stream is finished, not per event).
   */
  templateMatched?(data: string): void;
  /**
   * The template input is the end of each event (see TemplateSuffix): the per-event path then
   * reads whole events. Only for a template input that carries no text (`templateText` empty).
   */
  templateSuffix?: TemplateSuffix;
  /**
   * The stream ends with an event of its own (ChunkUpdate.done: Messages' message_stop, Responses'
   * response.completed): without it the stream was cut, even after a finish reason.
   */
  endEvent?: boolean;
}

/**
 * Reads a count or measure (every field read with it is one), or undefined when absent, not a
 * number or below zero: a negative count is no count, and would turn throughput and ITL negative.
 */
export function num(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : undefined;
}

export function obj(v: unknown): Record<string, unknown> | undefined {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
}
