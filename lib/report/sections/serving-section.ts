// Serving configuration: each variant's settings as its server showed them before any load, side
// by side; rows that differ from the baseline marked (a confounder, or declared by AB_DIFFERS),
// the speculative method shown as the intended difference, what a server does not show listed as
// not compared (lib/report/figures/confounding.ts).
import { display } from '../figures/ab-comparison';
import { compareServing, differenceText, type PairCheck, type RowMark, type ServingComparison } from '../figures/confounding';
import { mdTable, table } from '../render/report-format';
import { htmlSection, clientTable } from '../render/html-parts';
import { esc } from '../render/svg/common';
import { showSetting, type ServingSetting } from '../../engines/serving-config';
import type { SectionInputs, ReportSection } from './section';

const MARKS: Record<RowMark, string> = {
  same: '',
  differs: '≠ confounder',
  declared: '≠ declared (AB_DIFFERS)',
  intended: 'speculative (intended)',
  not_compared: 'not compared',
};

/** The comparison of this run's variants; null for one variant or a record without configurations. */
export function servingOf({ cfg, data }: Pick<SectionInputs, 'cfg' | 'data'>): ServingComparison | null {
  const variants = data.setup_data?.variants ?? [];
  const ordered = cfg.variants.map((configured) => variants.find((v) => v.variant === configured.variant) ?? { variant: configured.variant });
  return compareServing(ordered, cfg.baseline, (cfg.abDiffers ?? []) as ServingSetting[]);
}

function grid(c: ServingComparison): { head: string[]; rows: string[][] } {
  const head = ['setting', ...c.variants.map((v) => (v === c.baseline && c.variants.length > 1 ? `${display(v)} (baseline)` : display(v))), ''];
  const rows = c.rows.map((r) => [r.setting, ...r.values.map((v) => (v === null ? 'not exposed' : showSetting(v.value))), MARKS[r.mark]]);
  return { head, rows };
}

function pairLine(p: PairCheck): string {
  const who = `${display(p.variant)} vs ${display(p.baseline)}`;
  const declared = p.declared.length ? `; declared by AB_DIFFERS: ${p.declared.map((d) => differenceText(d, display)).join('; ')}` : '';
  const unknown = p.notCompared.length ? `; not compared (one side does not expose it): ${p.notCompared.join(', ')}` : '';
  if (p.confounders.length) return `${who}: confounded: ${p.confounders.map((d) => differenceText(d, display)).join('; ')}${declared}${unknown}`;
  return `${who}: not confounded: the settings compared agree, the speculative ones aside${declared}${unknown}`;
}

/** The lines under the table: each pair's finding, what no server exposes, what was read. */
function notes(c: ServingComparison): string[] {
  const out = c.pairs.map(pairLine);
  if (c.declared.length) out.push(`AB_DIFFERS declared: ${c.declared.join(', ')}.`);
  if (c.exposedByNone.length) out.push(`Not compared (no variant's server exposes it): ${c.exposedByNone.join(', ')}.`);
  for (const v of c.variants) out.push(`${display(v)} read: ${c.read[v].join(', ')}.`);
  return out;
}

const TITLE = 'Serving configuration (read from each server before any load)';

export const serving: ReportSection<ServingComparison> = {
  key: 'serving',
  jsonKey: 'serving_configuration',
  slot: 'conclusions',
  build: (i) => servingOf(i),
  warnings: (c) =>
    c.pairs
      .filter((p) => p.confounders.length > 0)
      .map((p) => `${display(p.variant)} vs ${display(p.baseline)} is confounded: ${p.confounders.map((d) => differenceText(d, display)).join('; ')}`),
  text(c) {
    const { head, rows } = grid(c);
    return ['', `${TITLE}:`, table(head, rows, 1), ...notes(c).map((l) => `  ${l}`)];
  },
  markdown(c) {
    const { head, rows } = grid(c);
    return [`## ${TITLE}`, '', mdTable(head, rows), '', ...notes(c).map((l) => `- ${l}`), ''];
  },
  html(c) {
    const { head, rows } = grid(c);
    const table = clientTable({
      head,
      rows,
      rowClass: (i) => (c.rows[i].mark === 'differs' ? 'confounder' : ''),
      rowMark: (i) => c.rows[i].mark,
    });
    return htmlSection(
      TITLE,
      table +
        `<ul class="verdicts">${notes(c)
          .map((l) => `<li>${esc(l)}</li>`)
          .join('')}</ul>`,
    );
  },
  json: (c) => ({
    baseline: c.baseline,
    variants: c.variants,
    declared: c.declared,
    settings: c.rows.map((r) => ({
      setting: r.setting,
      mark: r.mark,
      values: Object.fromEntries(c.variants.map((v, i) => [v, r.values[i] === null ? null : (r.values[i] as { value: unknown }).value])),
      sources: Object.fromEntries(c.variants.map((v, i) => [v, r.values[i]?.source ?? null])),
    })),
    pairs: c.pairs.map((p) => ({
      variant: p.variant,
      baseline: p.baseline,
      confounded: p.confounders.length > 0,
      confounders: p.confounders,
      declared: p.declared,
      not_compared: p.notCompared,
      text: pairLine(p),
    })),
    not_exposed: c.exposedByNone,
    read: c.read,
  }),
};
