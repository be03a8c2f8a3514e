// What a chunk template learned that outlives its stream, kept per dialect object (so per VU and
// variant) for the next stream of the same shape (ChunkTemplate.rebase).
import type { Field } from './chunk-layout';

/**
 * What a template learned that does not depend on its stream — the layout after the text, which
 * field each hole feeds, the prefix with its values blanked — kept by a dialect from one stream to
 * the next (one per dialect object, so per VU and variant).
 */
export interface Skeleton {
  /** Matches a prefix of the same layout: the learned one with any string or number in its values. */
  readonly prefixPattern: RegExp;
  readonly hasText: boolean;
  readonly pieces: readonly string[];
  readonly isIds: readonly boolean[];
  readonly fields: ReadonlyArray<Field | null>;
}

/**
 * Where a dialect keeps the skeletons of its last templates, most recent first (a chat stream
 * has two shapes: reasoning, then content).
 */
export interface TemplateCache {
  skeletons: Skeleton[];
}

const CACHED_SKELETONS = 4;

/** Puts a template's skeleton first in the cache. */
export function remember(cache: TemplateCache, sk: Skeleton): void {
  const list = cache.skeletons;
  const i = list.indexOf(sk);
  if (i === 0) return;
  if (i > 0) list.splice(i, 1);
  list.unshift(sk);
  if (list.length > CACHED_SKELETONS) list.length = CACHED_SKELETONS;
}
