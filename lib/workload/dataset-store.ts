// A dataset as the benchmarks keep it: read once at init (the file through k6's open(), or the
// built-in set), put in the seeded order every target is sent, and stored compactly for k6's
// SharedArray (one copy per test, not per VU), with a small header every VU reads (the domains,
// for the per-domain sub-metrics k6 must declare at init) and each item's estimated length
// (so setup can fill the ISL buckets without parsing every item). Pure: no k6 import.
import type { DatasetConfig } from '../config/dataset';
import { ConfigError, quote } from '../config/parse';
import { builtinDataset, isBuiltinSpec } from './builtin-prompts';
import { markTurns, parseDataset, requestTurns, seededOrder, selectDomains, turnsText, userTurns, type Dataset, type DatasetFormat, type DatasetItem, type Role, type Turn } from './dataset';
import { estimateTokens } from './lengths';

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
  /** Conversations left out for having no user text (see Dataset.skipped). */
  skipped: { count: number; first: string | null };
}

const ROLE_CODE: Record<Role, number> = { system: 0, user: 1, assistant: 2 };
const ROLES: Role[] = ['system', 'user', 'assistant'];

/** One item as the SharedArray keeps it: short keys, roles as 0/1/2 (k6 stores each element as JSON). */
export interface StoredItem {
  /** id */
  i: string;
  /** index into DatasetMeta.domains, −1 without a domain tag */
  d: number;
  /** output_tokens, 0 when the item has none */
  o: number;
  /** turns: [role code, content] */
  t: Array<[number, string]>;
}

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
      `DATASET=${quote(cfg.spec)}: cannot read the file: k6 reads it relative to the bundle (dist/), so give an absolute path or one like ../data.jsonl (${String(e)}).`,
    );
  }
  const ds = parseDataset(text, { file: cfg.spec });
  return cfg.domains === null ? ds : selectDomains(ds, cfg.domains);
}

/** The store for a dataset: items in the seeded order of SEED, with their estimates. */
export function buildStore(ds: Dataset, seed: number, marker: boolean): DatasetStore {
  const named: string[] = [];
  const seen = new Set<string>();
  let unnamed = false;
  let maxTurns = 1;
  let withOutputTokens = 0;
  for (const it of ds.items) {
    if (it.domain === null) unnamed = true;
    else if (!seen.has(it.domain)) {
      seen.add(it.domain);
      named.push(it.domain);
    }
    const u = userTurns(it);
    if (u > maxTurns) maxTurns = u;
    if (it.outputTokens !== null) withOutputTokens++;
  }
  const domains = named.length === 0 ? [] : unnamed && !seen.has(NO_DOMAIN) ? [...named, NO_DOMAIN] : named;
  const index = new Map(domains.map((d, i) => [d, i]));
  const order = seededOrder(ds.items.length, seed);
  const items: StoredItem[] = new Array(order.length);
  const estimates: number[] = new Array(order.length);
  for (let k = 0; k < order.length; k++) {
    const it = ds.items[order[k]];
    items[k] = {
      i: it.id,
      d: domains.length === 0 ? -1 : (index.get(it.domain ?? NO_DOMAIN) as number),
      o: it.outputTokens ?? 0,
      t: it.turns.map((t) => [ROLE_CODE[t.role], t.content]),
    };
    estimates[k] = estimateTokens(turnsText(markTurns(requestTurns(it, 1), marker ? it.domain : null)));
  }
  return {
    meta: { source: ds.source, format: ds.format, count: items.length, domains, maxTurns, withOutputTokens, skipped: ds.skipped },
    items,
    estimates,
  };
}

/** The item back from its stored form. */
export function storedItem(s: StoredItem, meta: Pick<DatasetMeta, 'domains'>): DatasetItem {
  return {
    id: s.i,
    domain: s.d < 0 ? null : meta.domains[s.d],
    outputTokens: s.o > 0 ? s.o : null,
    turns: s.t.map(([r, content]): Turn => ({ role: ROLES[r], content })),
  };
}
