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
