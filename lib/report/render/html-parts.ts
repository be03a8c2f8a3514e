// Pieces of report.html shared by html-report.ts and the sections (lib/report/sections) that draw in it.
import { esc } from './svg/common';
import type { Figure } from './svg/report-charts';

export function htmlSection(title: string, body: string): string {
  return `<section><h2>${esc(title)}</h2>${body}</section>`;
}

/** Charts in a grid; one that could not be drawn says why in its place. */
export function figureGrid(figs: Figure[], wide = false): string {
  return `<div class="figs">${figs
    .map((f) =>
      f.svg === null
        ? `<figure class="skipped${wide ? ' wide' : ''}"><figcaption>${esc(f.title)}</figcaption><p>${esc(f.note ?? '')}</p></figure>`
        : `<figure${wide ? ' class="wide"' : ''}><figcaption>${esc(f.title)}</figcaption>${f.svg}${f.note ? `<p>${esc(f.note)}</p>` : ''}</figure>`,
    )
    .join('')}</div>`;
}

/** A legend above a section's table (the sections' own words, escaped). */
export function legendNote(text: string): string {
  return `<p class="legend-note">${esc(text)}</p>`;
}

/** A section's table of runs: the cells the markdown table has, with how each is drawn in HTML. */
export interface ClientTable {
  head: readonly string[];
  rows: readonly (readonly string[])[];
  /** A column of figures: right-aligned (class n), its head too. */
  numeric?: (column: number) => boolean;
  /** A cell as shown (the variant column through display(), say). */
  show?: (cell: string, column: number) => string;
  /** A row's class: `limited` for a run whose figures a reader should doubt, `confounder` for a setting that differs. */
  rowClass?: (row: number) => string;
  /** A row's data-mark attribute, where the page's script filters on it. */
  rowMark?: (row: number) => string;
}

/** The table every section of runs draws, so that one style and one scroll box serve them all. */
export function clientTable({ head, rows, numeric = () => false, show = (c) => c, rowClass = () => '', rowMark }: ClientTable): string {
  const n = (j: number) => (numeric(j) ? ' class="n"' : '');
  const tr = (i: number) => {
    const cls = rowClass(i);
    return `<tr${cls ? ` class="${cls}"` : ''}${rowMark ? ` data-mark="${esc(rowMark(i))}"` : ''}>`;
  };
  const body = rows.map((r, i) => `${tr(i)}${r.map((c, j) => `<td${n(j)}>${esc(show(c, j))}</td>`).join('')}</tr>`).join('');
  const th = head.map((h, j) => `<th${n(j)}>${esc(h)}</th>`).join('');
  return `<div class="scroll"><table class="client"><thead><tr>${th}</tr></thead><tbody>${body}</tbody></table></div>`;
}
