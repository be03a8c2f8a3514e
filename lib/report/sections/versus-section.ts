// The compare benchmark: every variant against the baseline (lib/report/figures/standings.ts), in each
// report format: a speedup matrix (variants × cells, the baseline 1.00×), the rankings, the
// crossovers, and for report.html a chart of speedup against concurrency.
import { display } from '../figures/ab-comparison';
import { mdTable, table, ciBounds } from '../render/report-format';
import { htmlSection } from '../render/html-parts';
import { MARK, entryVerdict, versus as versusOf, type Versus, type VersusEntry } from '../figures/standings';
import { isRepeated, repeatsJson, repeatsLine, versusAcrossRepeats } from '../figures/repeats';
import type { Report } from '../report-types';
import { PALETTE, esc } from '../render/svg/common';
import { lineChart, plottable, type Series } from '../render/svg/line';
import type { ReportSection } from './section';
import { confoundedNote } from '../figures/confounding';

const x2 = (v: number) => `${v.toFixed(2)}×`;

function cellText(e: VersusEntry | undefined): string {
  if (!e) return '–';
  const t = e.throughput;
  if (!t) return `${MARK.not_measured} not measured`;
  return `${MARK[e.standing]} ${x2(t.value)}${t.ci ? ` [${t.ci.lo.toFixed(2)}, ${t.ci.hi.toFixed(2)}]` : ''}`;
}

/** Rows: the baseline, then each variant; columns: the cells. */
function matrix(v: Versus, cellIds: string[]): { head: string[]; rows: string[][] } {
  const head = ['variant', ...cellIds];
  const rows = [[`${display(v.baseline)} (baseline)`, ...cellIds.map(() => '1.00×')]];
  for (const variant of v.variants.filter((x) => x !== v.baseline)) {
    rows.push([display(variant), ...cellIds.map((c) => cellText(v.entries.find((e) => e.variant === variant && e.cellId === c)))]);
  }
  return { head, rows };
}

const LEGEND =
  `${MARK.faster} faster, ${MARK.slower} slower, ${MARK.same} no significant difference, ${MARK.too_few_samples} ` +
  `too few samples, ${MARK.not_measured} not measured`;

/** REPEATS: each entry's repeats, the run-to-run spread beside the within-run intervals. */
function repeatLines(v: Versus): string[] {
  return v.entries.flatMap((e) => (isRepeated(e) ? [`${display(e.variant)} at ${e.cellId}: ${repeatsLine(e.repeats)}`] : []));
}

function explained(v: Versus, r: Report): string[] {
  const out = [`Method: ${v.method}.`];
  for (const p of r.serving?.pairs ?? []) {
    const note = confoundedNote(r.serving ?? null, p.variant, p.baseline, display);
    if (note) out.push(`${display(p.variant)} vs ${display(p.baseline)}${note}.`);
  }
  const few = v.entries.filter((e) => e.standing === 'too_few_samples');
  if (few.length) out.push(`No verdict in ${few.length} comparison(s): ${[...new Set(few.map((e) => e.why))].join('; ')}.`);
  return out;
}

const cellIdsOf = (r: Report) => [...new Set(r.runs.map((x) => x.cellId))];

function text(v: Versus, r: Report): string[] {
  const { head, rows } = matrix(v, cellIdsOf(r));
  const out = [
    '',
    `Output throughput against ${display(v.baseline)} (${(v.intervalLevel * 100).toFixed(1)} % simultaneous intervals; ${LEGEND}):`,
    table(head, rows),
  ];
  for (const rk of v.rankings) out.push(`  ranking at ${rk.cellId}: ${rk.tiers.map((t) => t.map(display).join(' = ')).join(' > ')}`);
  for (const c of v.crossovers) out.push(`  ${c.text}`);
  for (const l of repeatLines(v)) out.push(`  ${l}`);
  for (const l of explained(v, r)) out.push(`  ${l}`);
  return out;
}

function markdown(v: Versus, r: Report): string[] {
  const { head, rows } = matrix(v, cellIdsOf(r));
  const out = [
    `## Against ${display(v.baseline)}`,
    '',
    `Output throughput ratio to ${display(v.baseline)}, ${(v.intervalLevel * 100).toFixed(1)} % simultaneous intervals (${LEGEND}).`,
    '',
    mdTable(head, rows),
    '',
  ];
  if (v.rankings.length)
    out.push(
      '**Rankings** (a tier holds what the intervals do not separate):',
      '',
      ...v.rankings.map((rk) => `- ${rk.cellId}: ${rk.tiers.map((t) => t.map(display).join(' = ')).join(' > ')}`),
      '',
    );
  if (v.crossovers.length) out.push('**Crossovers:**', '', ...v.crossovers.map((c) => `- ${c.text}`), '');
  const reps = repeatLines(v);
  if (reps.length) out.push('**Repeats:**', '', ...reps.map((l) => `- ${l}`), '');
  out.push(...explained(v, r).map((l) => `_${l}_`), '');
  return out;
}

function html(v: Versus, r: Report): string {
  const ids = cellIdsOf(r);
  const { head, rows } = matrix(v, ids);
  const cls = (s: string) => (s.startsWith(MARK.faster) ? 'faster' : s.startsWith(MARK.slower) ? 'slower' : '');
  const table =
    `<div class="scroll"><table class="speedups"><thead><tr>${head.map((h) => `<th>${esc(h)}</th>`).join('')}</tr></thead><tbody>` +
    rows.map((row) => `<tr>${row.map((c, i) => (i === 0 ? `<th>${esc(c)}</th>` : `<td class="${cls(c)}">${esc(c)}</td>`)).join('')}</tr>`).join('') +
    '</tbody></table></div>';
  const ranks = v.rankings.length
    ? `<ul class="verdicts">` +
      `${v.rankings.map((rk) => `<li>${esc(rk.cellId)}: ${esc(rk.tiers.map((t) => t.map(display).join(' = ')).join(' > '))}</li>`).join('')}` +
      `</ul>`
    : '';
  const cross = v.crossovers.length ? `<ul class="verdicts">${v.crossovers.map((c) => `<li>${esc(c.text)}</li>`).join('')}</ul>` : '';
  const reps = repeatLines(v);
  const repeated = reps.length ? `<ul class="verdicts">${reps.map((l) => `<li>${esc(l)}</li>`).join('')}</ul>` : '';
  return htmlSection(
    `Against ${display(v.baseline)}`,
    `<p class="legend-note">` +
      `${esc(`Output throughput ratio to ${display(v.baseline)}, ${(v.intervalLevel * 100).toFixed(1)} % simultaneous intervals. ${LEGEND}.`)}` +
      `</p>` +
      table +
      ranks +
      chart(r, v) +
      cross +
      repeated +
      explained(v, r)
        .map((l) => `<p class="legend-note">${esc(l)}</p>`)
        .join(''),
  );
}

/** Speedup against concurrency, one line per variant, one panel per ISL/OSL, crossovers marked. */
function chart(r: Report, v: Versus): string {
  const groups = new Map<string, VersusEntry[]>();
  for (const e of v.entries) if (e.load.kind === 'vus') groups.set(`ISL ${e.isl} · OSL ${e.osl}`, [...(groups.get(`ISL ${e.isl} · OSL ${e.osl}`) ?? []), e]);
  const colors = new Map(r.variants.map((variant, i) => [variant.variant, PALETTE[i % PALETTE.length]]));
  const parts: string[] = [];
  for (const [key, list] of groups) {
    const variants = [...new Set(list.map((e) => e.variant))];
    const series: Series[] = variants.map((name) => ({
      name: display(name),
      color: colors.get(name) ?? PALETTE[0],
      points: list
        .filter((e) => e.variant === name)
        .map((e) => ({
          x: e.load.kind === 'vus' ? e.load.vus : 0,
          y: e.throughput?.value ?? null,
          lo: e.throughput?.ci?.lo ?? null,
          hi: e.throughput?.ci?.hi ?? null,
        }))
        .sort((a, b) => a.x - b.x),
    }));
    if (new Set(list.map((e) => (e.load.kind === 'vus' ? e.load.vus : 0))).size < 2 || !plottable(series)) continue;
    const marks = v.crossovers
      .filter((c) => `ISL ${c.isl} · OSL ${c.osl}` === key && c.to !== null && (c.kind === 'ends' || c.kind === 'reverses'))
      .map((c) => ({ x: c.to as number, label: `${display(c.variant)} crossover` }));
    parts.push(
      lineChart(series, {
        title: `speedup vs concurrency — ${key}`,
        xLabel: 'concurrency (requests in flight)',
        yLabel: `throughput ÷ ${display(v.baseline)}`,
        yScale: 'linear',
        marks,
      }),
    );
  }
  return parts.join('');
}

/** summary.json's `versus`: every entry with its verdict sentence. */
function json(v: Versus, r: Report): unknown {
  return {
    baseline: v.baseline,
    variants: v.variants,
    interval_level: v.intervalLevel,
    method: v.method,
    entries: v.entries.map((e) => ({
      cell: e.cellId,
      variant: e.variant,
      baseline: e.baseline,
      throughput_ratio: e.throughput?.value ?? null,
      throughput_ratio_ci: ciBounds(e.throughput?.ci),
      e2e_speedup: e.latency?.value ?? null,
      e2e_speedup_ci: ciBounds(e.latency?.ci),
      standing: e.standing,
      why: e.why,
      verdict:
        entryVerdict(e, display) +
        (isRepeated(e) ? ` (across ${e.repeats.within.length} repeats; ${e.repeats.agreement})` : '') +
        confoundedNote(r.serving ?? null, e.variant, e.baseline, display),
      ...(isRepeated(e) ? { repeats: repeatsJson(e.repeats) } : {}),
    })),
    rankings: v.rankings,
    crossovers: v.crossovers,
  };
}

export const versus: ReportSection<Versus> = {
  key: 'versus',
  jsonKey: 'versus',
  slot: 'conclusions',
  // REQUESTS mode has no time slices, so no interval to judge by.
  build: ({ kind, plan, cfg, complete }) =>
    kind === 'compare' && plan.requests === null
      ? ((plan.repeats ?? 1) > 1 ? versusAcrossRepeats : versusOf)(
          complete.runs,
          complete.cells,
          cfg.variants.map((v) => v.variant),
          cfg.baseline,
          plan.sliceMs,
        )
      : null,
  text,
  markdown,
  html,
  json,
};
