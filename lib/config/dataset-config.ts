// The dataset variables (DATASET and the ones that only mean something with it), parsed into one
// DatasetConfig, or null when DATASET is unset: then the benchmarks send seeded random token ids
// exactly as before.
import { ConfigError, bool, duration, invalid, oneOf, positiveInt } from './parse';

export type HistorySource = 'dataset' | 'server';

export interface DatasetConfig {
  /** DATASET as given: builtin, builtin:code,math …, or a file path (k6's open(): absolute or relative to the bundle). */
  spec: string;
  /** DATASET_DOMAINS: only these domains of a file (builtin:… names its own); null: all. */
  domains: string[] | null;
  /** DATASET_MIN_TOKENS / DATASET_MAX_TOKENS: input-length filter on the first request of each item. */
  minTokens: number | null;
  maxTokens: number | null;
  /** DATASET_DOMAIN_MARKER: write `[domain: NAME]` before the first user turn (simulator tests only). */
  domainMarker: boolean;
  /** MULTI_TURN: replay conversations turn by turn. */
  multiTurn: boolean;
  /** MULTI_TURN_HISTORY: earlier replies from the dataset's assistant turns or the server's own replies. */
  history: HistorySource;
  /** THINK_TIME: pause before each later turn of a conversation. */
  thinkTimeMs: number;
}

/** The variables that need DATASET. */
export const DATASET_ONLY = [
  'DATASET_DOMAINS',
  'DATASET_MIN_TOKENS',
  'DATASET_MAX_TOKENS',
  'DATASET_DOMAIN_MARKER',
  'MULTI_TURN',
  'MULTI_TURN_HISTORY',
  'THINK_TIME',
] as const;

/**
 * @param get the variable's value as configured ('' when unset and without a default)
 * @param set whether the user set a variable (environment or CONFIG), defaults aside
 */
export function datasetConfig(get: (name: string) => string, set: (name: string) => boolean): DatasetConfig | null {
  const spec = get('DATASET').trim();
  if (spec === '') {
    const stray = DATASET_ONLY.filter(set);
    if (stray.length > 0) throw new ConfigError(`${stray.join(', ')} ${stray.length > 1 ? 'need' : 'needs'} DATASET: set DATASET to a file or to builtin.`);
    return null;
  }
  const optInt = (name: string) => (get(name).trim() === '' ? null : positiveInt(name, get(name), { min: 1 }));
  const minTokens = optInt('DATASET_MIN_TOKENS');
  const maxTokens = optInt('DATASET_MAX_TOKENS');
  if (minTokens !== null && maxTokens !== null && minTokens > maxTokens) {
    throw new ConfigError(`DATASET_MIN_TOKENS=${minTokens} is more than DATASET_MAX_TOKENS=${maxTokens}: no prompt could pass.`);
  }
  const domainsRaw = get('DATASET_DOMAINS').trim();
  let domains: string[] | null = null;
  if (domainsRaw !== '') {
    domains = domainsRaw
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s !== '');
    if (domains.length === 0) throw invalid('DATASET_DOMAINS', domainsRaw, 'a comma-separated list of domains, e.g. code,math');
    if (/^builtin(:|$)/.test(spec))
      throw new ConfigError(`DATASET_DOMAINS applies to a dataset file; for the built-in set write DATASET=builtin:${domains.join(',')}.`);
  }
  const multiTurn = bool('MULTI_TURN', get('MULTI_TURN'));
  const history = oneOf('MULTI_TURN_HISTORY', get('MULTI_TURN_HISTORY'), ['dataset', 'server'] as const);
  const thinkTimeMs = duration('THINK_TIME', get('THINK_TIME'), { minMs: 0, maxMs: 3_600_000 });
  if (!multiTurn) {
    const stray = (['MULTI_TURN_HISTORY', 'THINK_TIME'] as const).filter(set);
    if (stray.length > 0)
      throw new ConfigError(`${stray.join(' and ')} ${stray.length > 1 ? 'apply' : 'applies'} to conversations: set MULTI_TURN=true as well.`);
  }
  return { spec, domains, minTokens, maxTokens, domainMarker: bool('DATASET_DOMAIN_MARKER', get('DATASET_DOMAIN_MARKER')), multiTurn, history, thinkTimeMs };
}
