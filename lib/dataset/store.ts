// A dataset as the benchmarks keep it: read once at init (the file through k6's open(), or the
// built-in set), put in the seeded order every variant is sent, and stored compactly for k6's
// SharedArray (one copy per test, not per VU), with a small header every VU reads (the domains,
// for the per-domain sub-metrics k6 must declare at init) and each item's estimated length
// (so setup can fill the ISL buckets without parsing every item). Pure: no k6 import.
import type { DatasetConfig } from '../config/dataset-config';
import { ConfigError, quote } from '../config/parse';
import { builtinDataset, isBuiltinSpec } from './builtin';
import { domainMarker, parseDataset, seededOrder, selectDomains, userTurns, type Dataset, type DatasetFormat, type DatasetItem } from './format';
import { ESTIMATE_CHARS_PER_TOKEN } from './lengths';

/** The domain tag of an item without one, in a dataset where others have one. */
export const NO_DOMAIN = 'none';

/** What every VU learns about the dataset at init. */
export interface DatasetMeta {
  /** `DATASET=…`, the prefix of every message about it. */
  source: string;
  format: DatasetFormat;
  /** Items kept (after DATASET_DOMAINS). */
  count: number;
  /** The domain tag values, in order of first appearance; [] when no item has a domain (then no tag). */
  domains: string[];
  /** The most user turns of one item (the requests a conversation replay sends). */
  maxTurns: number;
  /** Items that set their own output_tokens. */
  withOutputTokens: number;
  /** Items that bring their own tools, and their own response_format (absent in a store built before they could). */
  withTools?: number;
  withFormat?: number;
  /** Rows that bring images of their own (sent with their first request). */
  withImages?: number;
  /** Conversations left out for having no user text (see Dataset.skipped). */
  skipped: { count: number; first: string | null };
}

/**
 * One item as the SharedArray keeps it: the parser's own object (k6 stores each element as JSON;
 * converting 100k items to a shorter form costs more at init than the longer keys do).
 */
export type StoredItem = DatasetItem;

export interface DatasetStore {
  meta: DatasetMeta;
  /** In seeded order: index i is the i-th item sent. */
  items: StoredItem[];
  /** Estimated tokens (characters ÷ 4) of each item's first request, as sent (marker included). */
  estimates: number[];
}

/** Reads DATASET: the built-in set, or the file through `read` (k6's open()). Throws ConfigError (DatasetError). */
export function readDataset(cfg: DatasetConfig, read: (path: string) => string): Dataset {
  if (isBuiltinSpec(cfg.spec)) return builtinDataset(cfg.spec);
  let text: string;
  try {
    text = read(cfg.spec);
  } catch (e) {
    throw new ConfigError(
      `DATASET=${quote(cfg.spec)}: cannot read the file: k6 reads it relative to the bundle (dist/), so give ` +
        `an absolute path or one like ../data.jsonl (${String(e)}).`,
    );
  }
  const ds = parseDataset(text, { file: cfg.spec });
  return cfg.domains === null ? ds : selectDomains(ds, cfg.domains);
}

/**
 * Characters of an item's first request as sent, without building it (k6's engine copies every
 * string it joins, and this runs for every item at init): what
 * turnsText(markTurns(requestTurns(item, 1), marker ? domain : null)).length would be.
 */
export function firstRequestChars(it: DatasetItem, marker: boolean): number {
  let chars = 0;
  let n = 0;
  for (const t of it.turns) {
    chars += t.content.length;
    n++;
    if (t.role === 'user') break;
  }
  chars += 2 * (n - 1);
  if (marker && it.domain !== null) chars += domainMarker(it.domain).length + 1;
  return chars;
}

/** The store for a dataset: items in the seeded order of SEED, with their estimates. */
export function buildStore(ds: Dataset, seed: number, marker: boolean): DatasetStore {
  const named: string[] = [];
  const seen = new Set<string>();
  let unnamed = false;
  let maxTurns = 1;
  let withOutputTokens = 0;
  let withTools = 0;
  let withFormat = 0;
  let withImages = 0;
  const n = ds.items.length;
  const estimate = new Array<number>(n);
  for (let k = 0; k < n; k++) {
    const it = ds.items[k];
    if (it.domain === null) unnamed = true;
    else if (!seen.has(it.domain)) {
      seen.add(it.domain);
      named.push(it.domain);
    }
    if (it.turns.length > 1) {
      const u = userTurns(it);
      if (u > maxTurns) maxTurns = u;
    }
    if (it.outputTokens !== null) withOutputTokens++;
    if (it.structured?.tools) withTools++;
    if (it.structured?.responseFormat) withFormat++;
    if (it.images !== undefined) withImages++;
    estimate[k] = Math.max(1, Math.round(firstRequestChars(it, marker) / ESTIMATE_CHARS_PER_TOKEN));
  }
  const domains = named.length === 0 ? [] : unnamed && !seen.has(NO_DOMAIN) ? [...named, NO_DOMAIN] : named;
  const order = seededOrder(n, seed);
  const items = new Array<StoredItem>(n);
  const estimates = new Array<number>(n);
  for (let k = 0; k < n; k++) {
    items[k] = ds.items[order[k]];
    estimates[k] = estimate[order[k]];
  }
  return {
    meta: { source: ds.source, format: ds.format, count: n, domains, maxTurns, withOutputTokens, withTools, withFormat, withImages, skipped: ds.skipped },
    items,
    estimates,
  };
}

/** The item back from the SharedArray: an item without a domain is tagged `none` when others have one. */
export function storedItem(s: StoredItem, meta: Pick<DatasetMeta, 'domains'>): DatasetItem {
  return s.domain === null && meta.domains.length > 0 ? { ...s, domain: NO_DOMAIN } : s;
}
