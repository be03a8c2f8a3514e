// The pooling benchmarks (embeddings, rerank): per run, items per second (and its interval from the
// steady slices), input tokens per second by the server's usage, latency percentiles and the
// vectors' dimension; with two or more variants, each against the baseline in every cell, by the
// same statistics as the generation verdicts (compare(), figures/ab-comparison.ts) over items per second.
import { compare, type Comparison } from '../figures/ab-comparison';
import { fmtCi, fmtMs, loadWords, mdTable, NOT_MEASURED, table, ciBounds } from '../render/report-format';
import { htmlSection } from '../render/html-parts';
import type { RunFigures, SummaryMetrics } from '../figures/run-figures';
import { esc } from '../render/svg/common';
import { tMeanInterval } from '../../stats/t-interval';
import type { Interval } from '../../stats/bootstrap';
import { subKey } from '../../plan/summary-keys';
import type { Plan } from '../../plan/matrix';
import type { ReportSection } from './section';

export interface PoolingRow {
  scenario: string;
  variant: string;
  cellId: string;
  isl: number;
  batch: number;
  load: RunFigures['load'];
  ok: number;
  failed: number;
  /** Items and server-counted input tokens of the whole run (every successful request, ramp-up included). */
  items: number;
  inputTokens: number;
  /** Every successful reply carried usage.prompt_tokens. */
  usageComplete: boolean;
  itemsPerSec: number | null;
  itemsCi: Interval | null;
  /** Input tokens per second by the server's usage; null when a successful reply carried none. */
  tokensPerSec: number | null;
  /** Why tokensPerSec is null, when it is. */
  tokensWhy: string | null;
  e2e: RunFigures['e2e'];
  /** The vectors' dimension when every reply had the same; null for rerank or none measured. */
  dimension: number | null;
  /** More than one dimension seen across replies: min and max. */
  dimensions: [number, number] | null;
}

export interface PoolingFigures {
  task: string;
  rows: PoolingRow[];
  verdicts: Comparison[];
}

const value = (m: SummaryMetrics, key: string, stat: string): number | null => m[key]?.values[stat] ?? null;
const sum = (m: SummaryMetrics, key: string): number => value(m, key, 'count') ?? 0;

/** One run's pooling figures over its steady slices (lib/report/figures/run-figures.ts's window); items per slice for the interval. */
function rowOf(m: SummaryMetrics, plan: Plan, r: RunFigures): { row: PoolingRow; slices: Array<[number, number, number]> } {
  const s = r.scenario;
  const first = plan.slices > 1 ? 1 : 0;
  const sliceSec = plan.sliceMs / 1000;
  const kept = r.slices.length;
  const slices: Array<[number, number, number]> = [];
  let items = 0;
  let tokens = 0;
  for (let k = first; k < first + kept; k++) {
    const it = sum(m, subKey('windowItems', s, { slice: String(k) }));
    tokens += sum(m, subKey('windowPoolTokens', s, { slice: String(k) }));
    items += it;
    const [, e2eSum, reqs] = r.slices[k - first];
    slices.push([it / sliceSec, e2eSum, reqs]);
  }
  const seconds = kept * sliceSec;
  const ok = r.requests.ok;
  const usage = sum(m, subKey('poolUsageReplies', s));
  const measured = plan.requests === null && kept > 0 && ok > 0;
  const tokensWhy = !measured ? 'no steady window' : usage < ok ? `${ok - usage} of ${ok} replies carried no usage.prompt_tokens` : null;
  // A trend without samples still says min 0: no dimension was measured then.
  const seen = sum(m, subKey('poolDimension', s)) > 0;
  const lo = seen ? value(m, subKey('poolDimension', s), 'min') : null;
  const hi = seen ? value(m, subKey('poolDimension', s), 'max') : null;
  const row: PoolingRow = {
    scenario: s,
    variant: r.variant,
    cellId: r.cellId,
    isl: r.isl,
    batch: plan.cells.find((c) => c.id === r.cellId)?.batch ?? 0,
    load: r.load,
    ok,
    failed: r.requests.failed + r.requests.unreachable,
    items: sum(m, subKey('poolItems', s)),
    inputTokens: sum(m, subKey('inputTokens', s)),
    usageComplete: usage === ok,
    itemsPerSec: measured ? items / seconds : null,
    itemsCi: measured
      ? tMeanInterval(
          slices.map((x) => x[0]),
          0.95,
        )
      : null,
    tokensPerSec: measured && tokensWhy === null ? tokens / seconds : null,
    tokensWhy,
    e2e: r.e2e,
    dimension: lo !== null && lo === hi ? lo : null,
    dimensions: lo !== null && hi !== null && lo !== hi ? [lo, hi] : null,
  };
  return { row, slices };
}

const where = (row: PoolingRow) => `at ISL ${row.isl}, batch ${row.batch}, ${loadWords(row.load)}`;

export const pooling: ReportSection<PoolingFigures> = {
  key: 'pooling',
  jsonKey: 'pooling',
  slot: 'conclusions',
  build({ kind, cfg, plan, data, complete }) {
    if (kind !== 'pooling' || !cfg.pooling) return null;
    const built = complete.runs.map((r) => ({ r, ...rowOf(data.metrics, plan, r) }));
    // Items per second in the place of output throughput: compare() then draws the verdict as it does for tokens.
    const asItems = (x: (typeof built)[number]): RunFigures => ({ ...x.r, throughput: x.row.itemsPerSec, throughputCi: x.row.itemsCi, slices: x.slices });
    const verdicts: Comparison[] = [];
    for (const cell of complete.cells) {
      const base = built.find((x) => x.r.cellId === cell.id && x.r.variant === cfg.baseline);
      if (!base) continue;
      for (const other of built.filter((x) => x.r.cellId === cell.id && x.r.variant !== cfg.baseline))
        verdicts.push(compare(asItems(other), asItems(base), where(other.row), plan.sliceMs));
    }
    return { task: cfg.pooling.task, rows: built.map((x) => x.row), verdicts };
  },
  warnings(v) {
    return v.rows
      .filter((r) => r.dimensions !== null)
      .map(
        (r) =>
          `${r.scenario}: embeddings of ${r.dimensions?.[0]} and of ${r.dimensions?.[1]} dimensions in one run: ` +
          `the server answered with more than one model or pooling.`,
      );
  },
  text(v) {
    const head = ['variant', 'cell', 'items/s', 'tokens/s', 'e2e p50', 'p90', 'p99', 'dim', 'ok', 'failed'];
    return [
      '',
      `${v.task}: items per second (95% interval over the steady slices), input tokens per second by the server's usage:`,
      table(head, v.rows.map(cells)),
      ...verdictLines(v),
    ];
  },
  markdown(v) {
    const head = ['variant', 'cell', 'items/s [95% CI]', 'input tokens/s', 'e2e p50', 'e2e p90', 'e2e p99', 'dimension', 'ok', 'failed'];
    const out = [`## ${v.task}: items per second`, '', mdTable(head, v.rows.map(cells)), ''];
    if (v.verdicts.length > 0) out.push('Items per second against the baseline:', '', ...v.verdicts.map((c) => `- ${c.verdict}`), '');
    return out;
  },
  html(v) {
    const head = ['variant', 'cell', 'items/s [95% CI]', 'input tokens/s', 'e2e p50', 'e2e p90', 'e2e p99', 'dimension', 'ok', 'failed'];
    const tr = (c: string[], tag: string) => `<tr>${c.map((x) => `<${tag}>${esc(x)}</${tag}>`).join('')}</tr>`;
    const verdicts = v.verdicts.length > 0 ? `<ul class="verdicts">${v.verdicts.map((c) => `<li>${esc(c.verdict)}</li>`).join('')}</ul>` : '';
    return htmlSection(`${v.task}: items per second`, `<table>${tr(head, 'th')}${v.rows.map((r) => tr(cells(r), 'td')).join('')}</table>${verdicts}`);
  },
  json(v) {
    return {
      task: v.task,
      runs: v.rows.map((r) => ({
        scenario: r.scenario,
        variant: r.variant,
        cell: r.cellId,
        isl: r.isl,
        batch: r.batch,
        ok: r.ok,
        failed: r.failed,
        items: r.items,
        input_tokens: r.usageComplete ? r.inputTokens : null,
        items_per_second: r.itemsPerSec,
        items_per_second_ci: r.itemsCi ? [r.itemsCi.lo, r.itemsCi.hi] : null,
        input_tokens_per_second: r.tokensPerSec,
        input_tokens_not_measured: r.tokensWhy,
        e2e_ms: r.e2e ? { p50: r.e2e.p50, p90: r.e2e.p90, p99: r.e2e.p99, avg: r.e2e.avg } : null,
        dimension: r.dimension,
        dimensions_seen: r.dimensions,
      })),
      verdicts: v.verdicts.map((c) => ({
        cell: c.cellId,
        a: c.a,
        b: c.b,
        items_ratio_a_over_b: c.throughput?.value ?? null,
        items_ratio_ci: ciBounds(c.throughput?.ci),
        verdict: c.verdict,
      })),
    };
  },
};

function cells(r: PoolingRow): string[] {
  const items = r.itemsPerSec === null ? NOT_MEASURED : `${r.itemsPerSec.toFixed(1)}${fmtCi(r.itemsCi)}`;
  const tokens = r.tokensPerSec === null ? `${NOT_MEASURED}${r.tokensWhy ? ` (${r.tokensWhy})` : ''}` : r.tokensPerSec.toFixed(0);
  const ms = (x: number | undefined) => (x === undefined ? NOT_MEASURED : fmtMs(x));
  const dim = r.dimension !== null ? String(r.dimension) : r.dimensions ? `${r.dimensions[0]}–${r.dimensions[1]} (differ)` : '–';
  return [r.variant, r.cellId, items, tokens, ms(r.e2e?.p50), ms(r.e2e?.p90), ms(r.e2e?.p99), dim, String(r.ok), String(r.failed)];
}

function verdictLines(v: PoolingFigures): string[] {
  return v.verdicts.length === 0
    ? []
    : ['', 'Items per second against the baseline (95% interval from the steady slices):', ...v.verdicts.map((c) => `  ${c.verdict}`)];
}
