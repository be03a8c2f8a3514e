// The prefix cache, per run: the share of prompt tokens the server served from its cache, from its
// own counters over the steady window (lib/engines: prefixCache.counters, read by the probe), or,
// where it has none, from the cached-token counts its replies carry (usage.prompt_tokens_details,
// cache_read_input_tokens, meta_info.cached_tokens, timings.cache_n) over the run's requests; and
// what CACHE_RESET did before the run. A variant that ran second on a warm cache is not comparable
// with one that started cold: this section says which did.
import type { CacheResetMode } from '../../config/config-types';
import { engineById } from '../../engines/index';
import { CACHE_RESET_OUTCOMES, resetDue, type CacheResetOutcome } from '../../plan/cache-reset-plan';
import { probeScenario, type Plan, type Run } from '../../plan/matrix';
import { cacheResetKey, subKey } from '../../plan/summary-keys';
import { display } from '../figures/ab-comparison';
import { loadLabel, mdTable, runLabel } from '../render/report-format';
import { htmlSection, clientTable, legendNote } from '../render/html-parts';
import type { SummaryMetrics } from '../figures/run-figures';
import type { SummaryDataLike } from '../report-types';
import type { ReportSection } from './section';

export type CacheSource = 'server-counters' | 'requests';

export interface HitRate {
  rate: number | null;
  source: CacheSource | null;
  hitTokens: number | null;
  queryTokens: number | null;
  /** Why there is no rate; null when there is one. */
  notMeasured: string | null;
}

/**
 * The hit rate from the server's window counts (null: not scraped, or no counters), else from the
 * requests' own counts (`queried`: input tokens of the replies that said how many were cached).
 */
export function hitRateOf(server: { hits: number; queries: number } | null, requests: { cached: number; queried: number }, probed: boolean): HitRate {
  if (server !== null && server.queries > 0)
    return { rate: server.hits / server.queries, source: 'server-counters', hitTokens: server.hits, queryTokens: server.queries, notMeasured: null };
  if (requests.queried > 0)
    return { rate: requests.cached / requests.queried, source: 'requests', hitTokens: requests.cached, queryTokens: requests.queried, notMeasured: null };
  const why =
    server !== null
      ? "the server's counters looked up no prompt tokens in the steady window, and its replies carry no cached-token counts"
      : `${probed ? "the server's /metrics has no prefix-cache counters (or was not scraped)" : 'its /metrics was not scraped'} ` +
        `and its replies carry no cached-token counts`;
  return { rate: null, source: null, hitTokens: null, queryTokens: null, notMeasured: why };
}

export interface ResetState {
  /** A reset was due before this run (CACHE_RESET). */
  due: boolean;
  /** What came of it; null: not due, or nothing recorded. */
  outcome: CacheResetOutcome | null;
  text: string;
}

/** What CACHE_RESET did before a run, from its recorded outcome; `route` is the engine's own word on an absent route and on what a reset leaves. */
export function resetStateOf(
  mode: CacheResetMode,
  due: boolean,
  outcome: CacheResetOutcome | null,
  route: { missing?: string; leaves?: string } | null,
): ResetState {
  if (mode === 'never') return { due, outcome: null, text: 'not reset (CACHE_RESET=never)' };
  if (!due) return { due, outcome: null, text: "not reset (CACHE_RESET=variant: after the variant's first run)" };
  const texts: Record<CacheResetOutcome, string> = {
    reset: route?.leaves ? `reset, but ${route.leaves}` : 'reset',
    refused: 'not reset: refused while requests were still running',
    missing: `not reset: the route is absent (${route?.missing ?? '404 or 501'})`,
    no_route: 'not reset: the server has no reset route',
    failed: 'not reset: the reset route failed (the log says how)',
  };
  return {
    due,
    outcome,
    text: outcome === null ? 'no outcome recorded (another instance of the test made it, or the test stopped before it)' : texts[outcome],
  };
}

export interface CacheRow extends HitRate {
  variant: string;
  /** REPEATS > 1: the run's repeat; absent with one. */
  repeat?: number;
  cellId: string;
  cell: string;
  reset: ResetState;
}

function single(m: SummaryMetrics, key: string): number | null {
  const v = m[key]?.values;
  return v && v.count ? v.avg : null;
}
const count = (m: SummaryMetrics, key: string) => m[key]?.values.count ?? 0;

function rowOf(run: Run, data: SummaryDataLike, mode: CacheResetMode, due: Set<string>, probed: boolean): CacheRow {
  const m = data.metrics;
  const p = probeScenario(run);
  const hits = single(m, subKey('serverCacheHits', p));
  const queries = single(m, subKey('serverCacheQueries', p));
  const rate = hitRateOf(
    hits !== null && queries !== null ? { hits, queries } : null,
    {
      cached: count(m, subKey('cachedTokens', run.scenario)),
      queried: count(m, subKey('cacheQueriedTokens', run.scenario)),
    },
    probed,
  );
  const outcome = CACHE_RESET_OUTCOMES.find((o) => count(m, cacheResetKey(run.scenario, o)) > 0) ?? null;
  const engine = engineById(data.setup_data?.variants?.find((v) => v.variant === run.variant)?.engine);
  return {
    variant: run.variant,
    ...(run.repeat === undefined ? {} : { repeat: run.repeat }),
    cellId: run.cell.id,
    cell: `${run.cell.isl}/${run.cell.osl} ${loadLabel(run.cell.load)}`,
    ...rate,
    reset: resetStateOf(mode, due.has(run.scenario), outcome, engine?.prefixCache?.reset ?? null),
  };
}

const pct = (v: number) => `${(v * 100).toFixed(1)}%`;
const rateText = (r: CacheRow) => (r.rate === null ? `not measured (${r.notMeasured})` : pct(r.rate));
const SOURCE: Record<CacheSource, string> = { 'server-counters': "server's counters, steady window", requests: "replies' cached-token counts, whole run" };
const HEAD = ['cell', 'variant', 'hit rate', 'from', 'cached / looked up (tokens)', 'before the run'];
const cells = (r: CacheRow) => [
  r.cell,
  runLabel(r),
  rateText(r),
  r.source === null ? '–' : SOURCE[r.source],
  r.hitTokens === null ? '–' : `${r.hitTokens} / ${r.queryTokens}`,
  r.reset.text,
];
const legend = (mode: CacheResetMode) =>
  `Prompt tokens served from the prefix cache over those looked up. CACHE_RESET=${mode}: ${
    mode === 'cell'
      ? 'the cache was emptied before every run'
      : mode === 'variant'
        ? "the cache was emptied before each variant's first run"
        : 'the cache was never emptied'
  }; a run that found another's prompts cached is not comparable with one that started cold.`;

export interface PrefixCacheView {
  mode: CacheResetMode;
  rows: CacheRow[];
}

/** The rows of the runs named in `ran` (those that ran), in plan order. */
export function buildPrefixCache(plan: Plan, ran: ReadonlySet<string>, data: SummaryDataLike, mode: CacheResetMode, probed: boolean): PrefixCacheView {
  const due = new Set(resetDue(plan, mode).map((r) => r.scenario));
  return { mode, rows: plan.runs.filter((r) => ran.has(r.scenario)).map((run) => rowOf(run, data, mode, due, probed)) };
}

export const prefixCache: ReportSection<PrefixCacheView> = {
  key: 'prefixCache',
  jsonKey: 'prefix_cache',
  slot: 'details',
  build({ plan, data, cfg, runs }) {
    if (runs.length === 0) return null;
    // An older record's settings have no CACHE_RESET: it never reset.
    return buildPrefixCache(plan, new Set(runs.map((r) => r.scenario)), data, cfg.cacheReset ?? 'never', cfg.serverMetrics !== 'off');
  },
  // A reset that went wrong is warned of; an absent route is the server's setting, said in the table.
  warnings: (v) =>
    v.rows.filter((r) => r.reset.outcome === 'refused' || r.reset.outcome === 'failed').map((r) => `${runLabel(r)} ${r.cellId}: prefix cache ${r.reset.text}.`),
  text(v) {
    return [
      '',
      `Prefix cache (CACHE_RESET=${v.mode}):`,
      ...v.rows.map(
        (r) =>
          `  ${runLabel(r)} ${r.cellId}: ${rateText(r)}${r.source === null ? '' : ` (${SOURCE[r.source]}: ${r.hitTokens} of ${r.queryTokens} tokens)`}` +
          `; ${r.reset.text}`,
      ),
    ];
  },
  markdown(v) {
    return ['## Prefix cache', '', legend(v.mode), '', mdTable(HEAD, v.rows.map(cells)), ''];
  },
  html(v) {
    const table = clientTable({
      head: HEAD,
      rows: v.rows.map(cells),
      numeric: (j) => j === 2 || j === 4,
      show: (c, j) => (j === 1 ? display(c) : c),
      rowClass: (i) => (v.rows[i].reset.due && v.rows[i].reset.outcome !== 'reset' ? 'limited' : ''),
    });
    return htmlSection('Prefix cache', legendNote(legend(v.mode)) + table);
  },
  json: (v) => ({
    cache_reset: v.mode,
    runs: v.rows.map((r) => ({
      variant: r.variant,
      cell: r.cellId,
      ...(r.repeat === undefined ? {} : { repeat: r.repeat }),
      hit_rate: r.rate,
      source: r.source,
      hit_tokens: r.hitTokens,
      query_tokens: r.queryTokens,
      ...(r.rate === null ? { not_measured: r.notMeasured } : {}),
      reset: { due: r.reset.due, outcome: r.reset.outcome, text: r.reset.text },
    })),
  }),
};
