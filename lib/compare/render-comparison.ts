// A comparison as terminal text, as compare.md (a table for a GitHub job summary) and as
// compare.html (self-contained, in report.html's style). Runs inside k6 too (BASELINE): no DOM,
// Node or Intl here; report text goes through esc().
import { fmt, table } from '../report/render/report-format';
import { REPORT_CSS } from '../report/render/html-report';
import { esc } from '../report/render/svg/common';
import type { Ratio } from '../report/figures/ab-comparison';
import { MIN_SLICES, VERDICT_TEXT, regressedAny, type CellComparison, type Comparison, type RunId } from './compare-summaries';
import { describeDifferences } from './workload-check';

export function pct(tolerance: number): string {
  return `${Math.round(tolerance * 10000) / 100}%`;
}

/** "0.909× [0.901, 0.917]", or "0.909× (no interval)", or "–". */
export function fmtRatio(r: Ratio | null): string {
  if (r === null) return '–';
  const x = (v: number) => v.toFixed(3);
  return `${x(r.value)}×${r.ci ? ` [${x(r.ci.lo)}, ${x(r.ci.hi)}]` : ''}`;
}

const tok = (v: number | null) => (v === null ? '–' : fmt(v, 1));
function ms(v: number | null): string {
  if (v === null) return '–';
  return v >= 1000 ? `${(v / 1000).toFixed(v >= 10_000 ? 1 : 2)} s` : `${v.toFixed(v < 10 ? 2 : 0)} ms`;
}

/** "slower", "costlier per token" or both: what regressed. */
function regressed(c: CellComparison): string {
  return [c.regression ? 'slower' : '', c.cost.regression ? 'costlier per token' : '', c.energy.regression ? 'more energy per token' : '']
    .filter(Boolean)
    .join(' and ');
}

/** The verdict as a reader needs it: a regression says so with the tolerance. */
export function verdictLabel(c: CellComparison, tolerance: number): string {
  if (regressedAny(c)) return `REGRESSION: ${regressed(c)} beyond ${pct(tolerance)}`;
  if (c.verdict === 'slower') return `slower, not wholly beyond ${pct(tolerance)}`;
  return VERDICT_TEXT[c.verdict];
}

const usd = (v: number | null | undefined) => (v === null || v === undefined ? '–' : `$${v < 0.01 ? v.toPrecision(2) : v.toFixed(2)}`);
const anyCost = (c: Comparison) => c.cells.some((x) => x.cost.baseline !== null || x.cost.next !== null);
const COST_HEAD = ['$/Mtok out base → new', 'cost ratio [95% CI]', '$/Mtok in base → new'];
/** The cost columns of a cell: each side's price, and the ratio or why there is none. */
function costCells(x: CellComparison): string[] {
  const k = x.cost;
  const input = k.baseline?.input != null || k.next?.input != null ? `${usd(k.baseline?.input)} → ${usd(k.next?.input)}` : '–';
  return [`${usd(k.baseline?.output)} → ${usd(k.next?.output)}`, k.ratio ? fmtRatio(k.ratio) : `not compared (${k.notCompared})`, input];
}
const jt = (v: number | null | undefined) => (v === null || v === undefined ? '–' : `${v < 0.1 ? v.toPrecision(2) : v.toFixed(v < 10 ? 3 : 1)} J`);
const anyEnergy = (c: Comparison) => c.cells.some((x) => x.energy.baseline !== null || x.energy.next !== null);
const ENERGY_HEAD = ['J/token base → new', 'energy ratio [95% CI]'];
function energyCells(x: CellComparison): string[] {
  const e = x.energy;
  return [`${jt(e.baseline?.jPerToken)} → ${jt(e.next?.jPerToken)}`, e.ratio ? fmtRatio(e.ratio) : `not compared (${e.notCompared})`];
}
/** The per-token columns present: cost's and energy's, each only when some cell has it. */
const extraHead = (c: Comparison) => [...(anyCost(c) ? COST_HEAD : []), ...(anyEnergy(c) ? ENERGY_HEAD : [])];
const extraCells = (c: Comparison, x: CellComparison) => [...(anyCost(c) ? costCells(x) : []), ...(anyEnergy(c) ? energyCells(x) : [])];
/** One line per figure no cell has on either side: why (each reason once). */
function perTokenAbsent(c: Comparison): string | null {
  const line = (what: string, notCompared: Array<string | null>) => `${what}: not compared (${[...new Set(notCompared)].filter(Boolean).join('; ')})`;
  const lines = [
    anyCost(c)
      ? null
      : line(
          'cost per token',
          c.cells.map((x) => x.cost.notCompared),
        ),
    anyEnergy(c)
      ? null
      : line(
          'energy per token',
          c.cells.map((x) => x.energy.notCompared),
        ),
  ].filter((x): x is string => x !== null);
  return lines.length ? lines.join('; ') : null;
}

const run = (r: RunId) => `${r.runId}${r.generatedAt ? ` (${r.generatedAt})` : ''}`;

/** "3 cells compared: 3 slower, 3 regressions beyond 5%; no interval for 1". */
export function tally(c: Comparison): string {
  const n = (v: CellComparison['verdict']) => c.cells.filter((x) => x.verdict === v).length;
  const parts = [
    ['slower', n('slower')],
    ['faster', n('faster')],
    ['mixed', n('mixed')],
    ['no significant difference', n('same')],
    ['too few samples', n('too-few-samples')],
    ['not enough data for an interval', n('no-interval')],
    ['not measured', n('not-measured')],
  ].filter(([, k]) => (k as number) > 0);
  const reg = c.regressions > 0 ? `${c.regressions} regression(s) beyond ${pct(c.tolerance)}` : `no regression beyond ${pct(c.tolerance)}`;
  return `${c.cells.length} cell(s) compared: ${parts.map(([t, k]) => `${k} ${t}`).join(', ')}; ${reg} → exit ${c.exitCode}`;
}

function headerLines(c: Comparison): string[] {
  const out: string[] = [];
  if (c.forced.length > 0)
    out.push(`FORCED: the workloads differ in ${describeDifferences(c.forced)} (baseline vs new); the ratios compare different workloads.`);
  out.push(...c.notes);
  if (c.onlyBaseline.length) out.push(`only in the baseline, not compared: ${c.onlyBaseline.join(', ')}`);
  if (c.onlyNext.length) out.push(`only in the new run, not compared: ${c.onlyNext.join(', ')}`);
  return out;
}

const lim = (t: number) => String(Math.round((1 + t) * 10000) / 10000);

const METHOD = (c: Comparison) => (c.rule === 'across-run' ? ACROSS(c) : WITHIN(c));

const ACROSS = (c: Comparison) =>
  `ratios new ÷ baseline with 95% intervals across runs (each run's figure the mean of its repeats' means; ` +
  `Welch's t on the log ratio over the two runs' repeat means, throughput and e2e alike; cost per output ` +
  `token: GPU_HOUR_COST × GPUS ratio ÷ the throughput ratio, its interval the throughput's); a regression ` +
  `is slower or costlier per token beyond ${pct(c.tolerance)} with the whole interval (throughput ratio ` +
  `below 1/${lim(c.tolerance)}, e2e or cost ratio above ${lim(c.tolerance)})`;

const WITHIN = (c: Comparison) =>
  `ratios new ÷ baseline with 95% intervals over the steady time slices (throughput: Welch's t on the log ` +
  `ratio; e2e: percentile bootstrap; cost per output token: GPU_HOUR_COST × GPUS ratio ÷ the throughput ` +
  `ratio, its interval the throughput's; J per output token: Welch's t on the log ratio of the per-slice ` +
  `J/token); a regression is slower, costlier or more energy per token beyond ${pct(c.tolerance)} with the ` +
  `whole interval (throughput ratio below 1/${lim(c.tolerance)}, e2e, cost or energy ratio above ${lim(c.tolerance)}); ` +
  `at least ${MIN_SLICES} slices per side, each longer than the requests, for a verdict`;

export function renderCompareText(c: Comparison, files: string[] = []): string {
  const out: string[] = [];
  out.push(`k6-llm-bench compare · ${c.next.benchmark}`, `  baseline: ${run(c.baseline)}`, `  new:      ${run(c.next)}`, `  ${METHOD(c)}`);
  for (const l of headerLines(c)) out.push(`  ${l}`);
  out.push('');
  const rows = c.cells.map((x) => [
    x.cell,
    x.variant,
    verdictLabel(x, c.tolerance),
    `${tok(x.baseline.throughput)} → ${tok(x.next.throughput)}`,
    fmtRatio(x.throughput),
    `${ms(x.baseline.e2eMs)} → ${ms(x.next.e2eMs)}`,
    fmtRatio(x.latency),
    ...extraCells(c, x),
  ]);
  const head = ['cell', 'variant', 'verdict', 'out tok/s base → new', 'ratio [95% CI]', 'mean e2e base → new', 'ratio [95% CI]'];
  out.push(table([...head, ...extraHead(c)], rows, 3));
  const absent = perTokenAbsent(c);
  if (absent) out.push(`  ${absent}`);
  const notes = c.cells.filter((x) => x.notes.length > 0);
  if (notes.length) {
    out.push('');
    for (const x of notes) for (const n of x.notes) out.push(`  ${x.cell} ${x.variant}: ${n}`);
  }
  out.push('', tally(c));
  if (files.length) out.push(`Comparison: ${files.join(', ')}`);
  return out.join('\n') + '\n';
}

function mdTable(head: string[], rows: string[][]): string {
  const e = (s: string) => s.replace(/\|/g, '\\|');
  return [
    `| ${head.map(e).join(' | ')} |`,
    `|${head.map((_, i) => (i < 2 || i === head.length - 1 ? '---' : '--:')).join('|')}|`,
    ...rows.map((r) => `| ${r.map(e).join(' | ')} |`),
  ].join('\n');
}

const MD_MARK: Record<CellComparison['verdict'], string> = {
  faster: '🟢 faster',
  slower: '🟠 slower',
  same: '⚪ no significant difference',
  mixed: '🟣 mixed',
  'too-few-samples': '◌ too few samples',
  'no-interval': '◌ not enough data for an interval',
  'not-measured': '◌ not measured',
};

/** compare.md: pasted as is into a GitHub job summary ($GITHUB_STEP_SUMMARY). */
export function renderCompareMarkdown(c: Comparison): string {
  const out: string[] = [];
  out.push(`### ${c.next.benchmark}: run \`${c.next.runId}\` against baseline \`${c.baseline.runId}\``, '');
  out.push(
    c.regressions > 0
      ? `**❌ ${c.regressions} regression(s): slower, costlier or more energy per token beyond ${pct(c.tolerance)}** (exit ${c.exitCode})`
      : `**✅ No regression beyond ${pct(c.tolerance)}** (exit ${c.exitCode})`,
    '',
  );
  if (c.forced.length)
    out.push(`> **Forced:** the workloads differ in ${describeDifferences(c.forced)} (baseline vs new); the ratios compare different workloads.`, '');
  out.push(
    mdTable(
      columns(c),
      c.cells.map((x) => [
        x.cell,
        x.variant,
        tok(x.baseline.throughput),
        tok(x.next.throughput),
        fmtRatio(x.throughput),
        ms(x.baseline.e2eMs),
        ms(x.next.e2eMs),
        fmtRatio(x.latency),
        ...extraCells(c, x),
        regressedAny(x) ? `❌ **regression**: ${regressed(x)} (beyond ${pct(c.tolerance)})` : MD_MARK[x.verdict],
      ]),
    ),
    '',
  );
  if (perTokenAbsent(c)) out.push(`${perTokenAbsent(c)}.`, '');
  out.push(`${tally(c)}.`, '');
  const notes = [...headerLines(c).filter((l) => !l.startsWith('FORCED')), ...c.cells.flatMap((x) => x.notes.map((n) => `${x.cell} ${x.variant}: ${n}`))];
  if (notes.length) out.push(...notes.map((n) => `- ${n}`), '');
  out.push(
    `<sub>Ratios new ÷ baseline; ${esc(METHOD(c).replace(/^ratios new ÷ baseline with /, ''))}. Baseline ` +
      `${esc(run(c.baseline))}, new ${esc(run(c.next))}.</sub>`,
    '',
  );
  return out.join('\n');
}

/** The comparison table's columns, in compare.md and compare.html alike (the page adds the notes). */
function columns(c: Comparison): string[] {
  return [
    'cell',
    'variant',
    'baseline out tok/s',
    'new out tok/s',
    'ratio [95% CI]',
    'baseline mean e2e',
    'new mean e2e',
    'ratio [95% CI]',
    ...extraHead(c),
    'verdict',
  ];
}

const COMPARE_CSS = `
.badge.regression{background:#C0392B}.badge.slower{background:#D55E00}.badge.faster{background:#1a7f37}.badge.mixed{background:#CC79A7}
.badge.too-few-samples,.badge.no-interval,.badge.not-measured{color:var(--muted);border:1px dashed var(--muted)}
.runs tr.regression td{background:var(--bad-bg)}
.summary-ok{border-left-color:#1a7f37}.summary-ok b{color:#1a7f37}
`;

function badge(c: CellComparison, tolerance: number): string {
  const cls = regressedAny(c) ? 'regression' : c.verdict;
  const text = regressedAny(c)
    ? `regression > ${pct(tolerance)}: ${regressed(c)}`
    : c.verdict === 'same'
      ? 'no significant difference'
      : VERDICT_TEXT[c.verdict].replace(/ \(.*\)$/, '');
  return `<span class="badge ${cls}">${esc(text)}</span>`;
}

function ratioCell(r: Ratio | null): string {
  if (r === null) return '<span class="na">–</span>';
  const ci = r.ci ? `[${esc(r.ci.lo.toFixed(3))}, ${esc(r.ci.hi.toFixed(3))}]` : 'no interval';
  return `${esc(r.value.toFixed(3))}×<span class="ci">${ci}</span>`;
}

/** compare.html: one page, no scripts or external files. */
export function renderCompareHtml(c: Comparison): string {
  const title = `${c.next.benchmark}: ${c.next.runId} vs baseline ${c.baseline.runId}`;
  const callout =
    c.regressions > 0
      ? `<div class="box callout"><b>${c.regressions} regression(s)</b>: slower, costlier or more energy per ` +
        `token beyond ${esc(pct(c.tolerance))} with the whole interval (exit ${c.exitCode}).</div>`
      : `<div class="box callout summary-ok"><b>No regression</b> beyond ${esc(pct(c.tolerance))} (exit ${c.exitCode}).</div>`;
  const forced = c.forced.length
    ? `<div class="box preflight"><h3>Forced: the workloads differ</h3><ul>` +
      `${c.forced.map((d) => `<li><b>${esc(d.what)}</b>: ${esc(d.baseline)} in the baseline, ${esc(d.next)} in the new run</li>`).join('')}` +
      `</ul></div>`
    : '';
  const notes = headerLines(c).filter((l) => !l.startsWith('FORCED'));
  const head = [...columns(c), 'notes'];
  const rows = c.cells.map(
    (x) =>
      `<tr${regressedAny(x) ? ' class="regression"' : ''} data-verdict="${esc(x.verdict)}" data-regression="${x.regression}" ` +
      (`data-cost-regression="${x.cost.regression}" data-energy-regression="${x.energy.regression}"><td><code>${esc(x.cell)}</code></td><td>` +
        `${esc(x.variant)}</td>`) +
      `<td class="n">${esc(tok(x.baseline.throughput))}</td><td class="n">${esc(tok(x.next.throughput))}</td><td class="n">${ratioCell(x.throughput)}</td>` +
      `<td class="n">${esc(ms(x.baseline.e2eMs))}</td><td class="n">${esc(ms(x.next.e2eMs))}</td><td class="n">${ratioCell(x.latency)}</td>` +
      extraCells(c, x)
        .map((v) => `<td class="n">${esc(v)}</td>`)
        .join('') +
      `<td>${badge(x, c.tolerance)}</td><td class="legend-note">${x.notes.map(esc).join('<br>')}</td></tr>`,
  );
  const body = [
    `<header><h1>${esc(c.next.benchmark)}: new run against a baseline</h1><p class="meta">baseline <b>${esc(run(c.baseline))}</b> ` +
      `· new <b>${esc(run(c.next))}</b> · tolerance <b>${esc(pct(c.tolerance))}</b></p>${forced}</header>`,
    callout,
    `<section><h2>Per cell and variant</h2><div class="scroll"><table class="runs"><thead><tr>` +
      `${head.map((h, i) => `<th class="${i >= 2 && i < head.length - 2 ? 'n' : ''}">${esc(h)}</th>`).join('')}</tr></thead><tbody>` +
      `${rows.join('')}</tbody></table></div>` +
      `<p class="legend-note">${esc(METHOD(c).replace(/^r/, 'R'))}. ${esc(tally(c))}.</p></section>`,
    perTokenAbsent(c) ? `<p class="legend-note">${esc(perTokenAbsent(c) as string)}.</p>` : '',
    notes.length ? `<div class="box warnings"><h3>Notes</h3><ul>${notes.map((n) => `<li>${esc(n)}</li>`).join('')}</ul></div>` : '',
    `<footer>k6-llm-bench compare · ${esc(c.next.benchmark)} · ${esc(c.baseline.runId)} → ${esc(c.next.runId)}</footer>`,
  ];
  return (
    `<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">` +
    `<meta name="color-scheme" content="light dark"><title>${esc(title)}</title><style>${REPORT_CSS}${COMPARE_CSS}</style></head>\n` +
    `<body><main>\n${body.filter(Boolean).join('\n')}\n</main></body></html>\n`
  );
}
