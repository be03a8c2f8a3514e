// A/B benchmarks: the first variant against the second in every cell, output-throughput ratio and
// e2e speedup with their intervals and a verdict (lib/report/figures/ab-comparison.ts compare()).
import { AB_LEVEL, compare, display, type Comparison } from '../figures/ab-comparison';
import { NOT_MEASURED, fmtCi, mdTable, ciBounds } from '../render/report-format';
import { figureGrid, htmlSection } from '../render/html-parts';
import { esc } from '../render/svg/common';
import { speedupFigures, variantColors, verdictClass, type VerdictClass } from '../render/svg/report-charts';
import type { ReportSection } from './section';
import { confoundedNote } from '../figures/confounding';
import { servingOf } from './serving-section';
import { pairsOf, repeatsJson } from '../figures/repeats';

export const comparisons: ReportSection<Comparison[]> = {
  key: 'comparisons',
  jsonKey: 'comparisons',
  slot: 'conclusions',
  build({ kind, cfg, complete, where, plan, data }) {
    const out: Comparison[] = [];
    if (kind !== 'ab' || cfg.variants.length !== 2) return out;
    const [a, b] = cfg.variants.map((v) => v.variant);
    const confounded = confoundedNote(servingOf({ cfg, data }), b, a, display);
    for (const cell of complete.cells) {
      const ra = complete.runs.find((r) => r.cellId === cell.id && r.variant === a);
      const rb = complete.runs.find((r) => r.cellId === cell.id && r.variant === b);
      if (ra && rb) {
        const c = compare(ra, rb, where({ cell }), plan.sliceMs, pairsOf(complete.runs, cell.id, a, b));
        out.push({ ...c, verdict: c.verdict + confounded });
      }
    }
    return out;
  },
  text(cs) {
    if (cs.length === 0) return [];
    const from = cs[0].repeats ? `across ${cs[0].repeats.within.length} repeats (t over the repeats' ratios)` : 'from the steady slices';
    return ['', `${display(cs[0].a)} vs ${display(cs[0].b)} (output throughput, 95% interval ${from}):`, ...cs.map((c) => `  ${c.verdict}`)];
  },
  markdown(cs) {
    if (cs.length === 0) return [];
    const rows = cs.map((c) => [
      c.cellId,
      c.throughput ? `${c.throughput.value.toFixed(2)}×${fmtCi(c.throughput.ci, 2)}` : '–',
      c.latency ? `${c.latency.value.toFixed(2)}×${fmtCi(c.latency.ci, 2)}` : '–',
      c.verdict,
    ]);
    return [`## ${display(cs[0].a)} vs ${display(cs[0].b)}`, '', mdTable(['cell', 'throughput ratio [95% CI]', 'e2e speedup [95% CI]', 'verdict'], rows), ''];
  },
  html(cs, r) {
    if (r.kind !== 'ab' || cs.length === 0) return '';
    const colors = variantColors(r);
    const { a, b } = cs[0];
    const badge: Record<VerdictClass, [string, string]> = {
      a: [`${display(a)} faster`, `background:${colors.get(a)}`],
      b: [`${display(b)} faster`, `background:${colors.get(b)}`],
      same: ['no significant difference', ''],
      'no-interval': ['no interval', ''],
      'not-measured': [NOT_MEASURED, ''],
    };
    const items = cs.map((c) => {
      const k = verdictClass(c);
      const [text, style] = badge[k];
      return `<li data-verdict="${k}"><span class="badge ${k}"${style ? ` style="${style}"` : ''}>${esc(text)}</span>${esc(c.verdict)}</li>`;
    });
    return htmlSection(
      `${display(a)} vs ${display(b)}`,
      `<p class="legend-note">Verdicts from the output-throughput ratio ${esc(display(a))} ÷ ${esc(display(b))} and its 95% interval (` +
        (cs[0].repeats
          ? `across ${cs[0].repeats.within.length} repeats: t over the repeats' log ratios, each repeat's own interval beside it`
          : "batch means over the steady slices, Welch's t") +
        `): faster only when the whole interval is on one side of 1×.</p>` +
        `<ul class="verdicts">${items.join('')}</ul>` +
        figureGrid(speedupFigures(r), true),
    );
  },
  json(cs) {
    return cs.map((c) => {
      const throughputCi = ciBounds(c.throughput?.ci);
      const e2eCi = ciBounds(c.latency?.ci);
      return {
        cell: c.cellId,
        a: c.a,
        b: c.b,
        throughput_ratio_a_over_b: c.throughput?.value ?? null,
        // The interval's name in versus and dataset too; its level is ci_level.
        throughput_ratio_ci: throughputCi,
        throughput_ratio_ci95: throughputCi,
        e2e_speedup_b_over_a: c.latency?.value ?? null,
        e2e_speedup_ci: e2eCi,
        e2e_speedup_ci95: e2eCi,
        ci_level: AB_LEVEL,
        verdict: c.verdict,
        ...(c.repeats === undefined ? {} : { repeats: repeatsJson(c.repeats) }),
      };
    });
  },
  renamed: {
    'comparisons[].throughput_ratio_ci95': 'comparisons[].throughput_ratio_ci',
    'comparisons[].e2e_speedup_ci95': 'comparisons[].e2e_speedup_ci',
  },
};
