// DATASET runs: where the prompts came from and the lengths meant, the lengths the server counted,
// per-domain figures and verdicts, per-turn TTFT and cache (lib/report/figures/domain-figures.ts), in each report
// format; nothing for runs without DATASET.
import { display } from '../figures/ab-comparison';
import { datasetReport, type DatasetReport, type DatasetRun, type DomainComparison } from '../figures/domain-figures';
import { fmt, fmtMs, mdTable, table, ciBounds } from '../render/report-format';
import type { Dist } from '../figures/run-figures';
import { esc } from '../render/svg/common';
import type { ReportSection } from './section';
import { confoundedNote } from '../figures/confounding';
import { servingOf } from './serving-section';

const n0 = (v: number | null | undefined) => fmt(v ?? null, 0);
const pct = (v: number | null) => (v === null ? '–' : `${(v * 100).toFixed(0)}%`);
const lens = (d: Dist | null) => (d === null ? '–' : `${n0(d.p50)} / ${n0(d.p90)} / ${n0(d.max)}`);

/** The dataset in one sentence. */
export function datasetHeadline(d: DatasetReport): string {
  const buckets = d.buckets
    .map((b) => `ISL ${b.isl}: ${b.prompts} prompts of ${b.lo}–${b.hi - 1} tokens${b.meanTokens === null ? '' : ` (mean ${n0(b.meanTokens)})`}`)
    .join(', ');
  const conv = d.multiTurn
    ? `; conversations replayed turn by turn (history from the ${d.multiTurn.history}` +
      `${d.multiTurn.thinkTimeMs ? `, think time ${fmtMs(d.multiTurn.thinkTimeMs)}` : ''})`
    : '';
  return (
    `${d.source} (${d.format}, ${d.total} prompts${d.domains.length ? `, domains ${d.domains.join(', ')}` : ''}): ${buckets}; lengths ${d.lengths}; ` +
    (`${d.examined} examined, ${d.outside} outside the ISL buckets${d.filtered ? `, ${d.filtered} filtered out` : ''}` +
      `${d.withOutputTokens ? `; ${d.withOutputTokens} set their own output_tokens` : ''}${conv}.`)
  );
}

interface Table {
  head: string[];
  rows: string[][];
}

function lengthTable(d: DatasetReport): Table {
  return {
    head: ['cell', 'variant', 'prompt tokens p50 / p90 / max', 'output tokens p50 / p90 / max', 'server ÷ intended (mean)'],
    rows: d.runs.map((r) => [r.cellId, r.variant, lens(r.promptTokens), lens(r.outputTokens), r.lengthRatio === null ? '–' : fmt(r.lengthRatio.avg, 2)]),
  };
}

function domainTable(d: DatasetReport): Table | null {
  const rows = d.runs.flatMap((r: DatasetRun) =>
    r.domains.map((x) => [
      r.cellId,
      r.variant,
      x.domain,
      String(x.ok + x.failed),
      String(x.failed),
      fmtMs(x.e2e?.avg),
      fmtMs(x.e2e?.p50),
      fmtMs(x.ttft?.p50),
      x.acceptance === null ? '–' : x.acceptance.toFixed(2),
      x.acceptedByPosition === null ? '–' : x.acceptedByPosition.map((p) => (p * 100).toFixed(0)).join(' / '),
    ]),
  );
  const head = ['cell', 'variant', 'domain', 'requests', 'failed', 'e2e mean', 'e2e p50', 'TTFT p50', 'accept. length', 'accepted % by position'];
  return rows.length ? { head, rows } : null;
}

function turnTable(d: DatasetReport): Table | null {
  const rows = d.runs.flatMap((r) =>
    r.turns
      .filter((t) => t.requests > 0)
      .map((t) => [
        r.cellId,
        r.variant,
        t.turn,
        String(t.requests),
        fmtMs(t.ttft?.p50),
        fmtMs(t.e2e?.p50),
        n0(t.inputTokens),
        n0(t.cachedTokens),
        pct(t.cachedShare),
      ]),
  );
  return rows.length ? { head: ['cell', 'variant', 'turn', 'requests', 'TTFT p50', 'e2e p50', 'prompt tokens', 'cached tokens', 'cached share'], rows } : null;
}

/** "DFlash vs MTP by domain", or "each variant vs none by domain" in a comparison of N. */
function abTitle(cs: DomainComparison[]): string {
  const as = new Set(cs.map((c) => c.a));
  return as.size > 1 ? `each variant vs ${display(cs[0].b)} by domain` : `${display(cs[0].a)} vs ${display(cs[0].b)} by domain`;
}

/** "95% bootstrap interval", or "99.2% bootstrap intervals, 95% simultaneous over 6 comparisons". */
function levelNote(cs: DomainComparison[]): string {
  const level = cs[0].level;
  if (level <= 0.95) return '95% bootstrap interval';
  const m = Math.round(0.05 / (1 - level));
  return `${(level * 100).toFixed(1)}% bootstrap intervals, 95% simultaneous over ${m} comparisons`;
}

// ---- terminal -------------------------------------------------------------------------------------

function text(d: DatasetReport): string[] {
  // Three text columns: the domain and turn tables lead with cell, variant and a name.
  const table3 = (head: string[], rows: string[][]) => table(head, rows, 3);
  const out = ['', `Dataset: ${datasetHeadline(d)}`];
  const lt = lengthTable(d);
  out.push("Lengths sent (the server's counts):", table3(lt.head, lt.rows));
  const dt = domainTable(d);
  if (dt) out.push('By domain:', table3(dt.head, dt.rows));
  const tt = turnTable(d);
  if (tt) out.push('By turn:', table3(tt.head, tt.rows));
  if (d.comparisons.length) {
    out.push(`${abTitle(d.comparisons)} (mean e2e latency, ${levelNote(d.comparisons)}):`);
    for (const c of d.comparisons) out.push(`  ${c.verdict}`);
  }
  return out;
}

// ---- report.md ------------------------------------------------------------------------------------

function markdown(d: DatasetReport): string[] {
  const out = ['## Dataset', '', datasetHeadline(d), ''];
  if (d.comparisons.length) {
    out.push(`### ${abTitle(d.comparisons)}`, '', `Mean e2e latency, ${levelNote(d.comparisons)}.`, '', ...d.comparisons.map((c) => `- ${c.verdict}`), '');
  }
  const lt = lengthTable(d);
  out.push("### Lengths sent (the server's counts)", '', mdTable(lt.head, lt.rows), '');
  const dt = domainTable(d);
  if (dt) out.push('### By domain', '', mdTable(dt.head, dt.rows), '');
  const tt = turnTable(d);
  if (tt) out.push('### By turn', '', mdTable(tt.head, tt.rows), '');
  return out;
}

// ---- report.html ----------------------------------------------------------------------------------

function htmlTable(t: Table, textColumns: number): string {
  const cell = (v: string, i: number, tag: 'td' | 'th') => `<${tag}${i >= textColumns ? ' class="n"' : ''}>${esc(v)}</${tag}>`;
  return (
    `<div class="scroll"><table class="runs"><thead><tr>${t.head.map((h, i) => cell(h, i, 'th')).join('')}</tr></thead>` +
    `<tbody>${t.rows.map((r) => `<tr>${r.map((v, i) => cell(v, i, 'td')).join('')}</tr>`).join('')}</tbody></table></div>`
  );
}

function html(d: DatasetReport): string {
  const parts = [`<p class="meta">${esc(datasetHeadline(d))}</p>`];
  if (d.comparisons.length) {
    parts.push(
      `<h3>${esc(abTitle(d.comparisons))}</h3><p class="meta">Mean e2e latency, ${esc(levelNote(d.comparisons))}.</p><ul class="verdicts">` +
        `${d.comparisons.map((c) => `<li>${esc(c.verdict)}</li>`).join('')}</ul>`,
    );
  }
  parts.push(`<h3>Lengths sent (the server's counts)</h3>${htmlTable(lengthTable(d), 2)}`);
  const dt = domainTable(d);
  if (dt) parts.push(`<h3>By domain</h3>${htmlTable(dt, 3)}`);
  const tt = turnTable(d);
  if (tt) parts.push(`<h3>By turn</h3>${htmlTable(tt, 3)}`);
  return `<section><h2>Dataset</h2>${parts.join('')}</section>`;
}

// ---- summary.json ---------------------------------------------------------------------------------

const dj = (x: Dist | null) => (x === null ? null : { avg: x.avg, p50: x.p50, p90: x.p90, p99: x.p99, max: x.max, count: x.count });

function json(d: DatasetReport): unknown {
  return {
    source: d.source,
    format: d.format,
    lengths: d.lengths,
    prompts: d.total,
    examined: d.examined,
    filtered: d.filtered,
    outside_buckets: d.outside,
    with_output_tokens: d.withOutputTokens,
    buckets: d.buckets.map((b) => ({ isl: b.isl, tokens_from: b.lo, tokens_below: b.hi, prompts: b.prompts, mean_tokens: b.meanTokens })),
    domains: d.domains,
    multi_turn: d.multiTurn === null ? null : { history: d.multiTurn.history, think_time_ms: d.multiTurn.thinkTimeMs },
    records: d.runs.map((x) => ({
      cell: x.cellId,
      variant: x.variant,
      prompt_tokens: dj(x.promptTokens),
      output_tokens: dj(x.outputTokens),
      prompt_length_ratio: dj(x.lengthRatio),
      domains: x.domains.map((y) => ({
        domain: y.domain,
        requests_ok: y.ok,
        requests_failed: y.failed,
        e2e_ms: dj(y.e2e),
        ttft_ms: dj(y.ttft),
        output_tokens: y.outputTokens,
        acceptance_length_tokens_per_step: y.acceptance,
        accepted_share_by_position: y.acceptedByPosition,
      })),
      turns: x.turns.map((t) => ({
        turn: t.turn,
        requests: t.requests,
        ttft_ms: dj(t.ttft),
        e2e_ms: dj(t.e2e),
        input_tokens: t.inputTokens,
        cached_tokens: t.cachedTokens,
        cached_share: t.cachedShare,
      })),
    })),
    comparisons: d.comparisons.map((c) => ({
      cell: c.cellId,
      a: c.a,
      b: c.b,
      verdict: c.verdict,
      domains: c.domains.map((x) => ({
        domain: x.domain,
        e2e_speedup_b_over_a: x.speedup?.value ?? null,
        e2e_speedup_ci: ciBounds(x.speedup?.ci),
        e2e_speedup_ci95: ciBounds(x.speedup?.ci),
        ci_level: c.level,
        verdict: x.text,
        acceptance_length_a: x.acceptance.a,
        acceptance_length_b: x.acceptance.b,
      })),
    })),
    warnings: d.warnings,
  };
}

export const dataset: ReportSection<DatasetReport> = {
  key: 'dataset',
  jsonKey: 'dataset',
  slot: 'details',
  build: ({ cfg, plan, data, kind, where }) => {
    const ds = data.setup_data && typeof data.setup_data === 'object' ? data.setup_data.dataset : undefined;
    const d = datasetReport(cfg, plan, data.metrics, ds, { kind, where });
    // A by-domain verdict between variants whose serving configurations differ says so too.
    const serving = servingOf({ cfg, data });
    return d && { ...d, comparisons: d.comparisons.map((c) => ({ ...c, verdict: c.verdict + confoundedNote(serving, c.b, c.a, display) })) };
  },
  warnings: (d) => d.warnings,
  // Its level is ci_level, 95 % only with one comparison.
  renamed: { 'dataset.comparisons[].domains[].e2e_speedup_ci95': 'dataset.comparisons[].domains[].e2e_speedup_ci' },
  text,
  markdown,
  html,
  json,
};
