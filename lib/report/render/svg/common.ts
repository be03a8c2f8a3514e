// Shared bits of the SVG charts: escaping, colours, text width, the legend and axes.
// Charts draw text and axes in currentColor, so they follow the page's light or dark theme, and
// carry data-* attributes with raw values so tests can check geometry without a browser.
import { tickLabel, type Scale } from './scale';

/** Escapes text and attribute values (both quote kinds, so any attribute quoting is safe). */
export function esc(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}

/** Okabe–Ito colours: distinguishable with the common colour-vision deficiencies, and readable on
 * both white and near-black backgrounds (the yellow is left out: invisible on white). */
export const PALETTE = ['#0072B2', '#D55E00', '#009E73', '#CC79A7', '#E69F00', '#56B4E9', '#7F7F7F', '#882255'];

export type Dash = 'solid' | 'dash' | 'dot';
export const DASH: Record<Dash, string> = { solid: '', dash: '7 4', dot: '2 3' };

export const FONT = 12;
/** Rough width of a label in the page's sans-serif at 12 px: no DOM to measure with. */
export const textWidth = (s: string, size = FONT) => s.length * size * 0.58;

/** Rounds pixel coordinates: shorter output, and no sub-pixel blur on axis lines. */
export const px = (v: number) => String(Math.round(v * 10) / 10);

export interface LegendItem {
  label: string;
  color: string;
  dash?: Dash;
  /** Hollow markers tell a p99 series from a p50 one when printed in grey. */
  hollow?: boolean;
  marker?: boolean;
}

/** Lays legend items out in rows that fit `width`; returns the SVG and the height it took. */
export function legend(items: LegendItem[], x0: number, y0: number, width: number): { svg: string; height: number } {
  const rowH = 18;
  let x = x0;
  let y = y0 + 12;
  const parts: string[] = [];
  for (const it of items) {
    const w = 28 + textWidth(it.label) + 16;
    if (x > x0 && x + w > x0 + width) {
      x = x0;
      y += rowH;
    }
    const dash = DASH[it.dash ?? 'solid'];
    parts.push(
      `<g class="legend-item"><line x1="${px(x)}" y1="${px(y - 4)}" x2="${px(x + 22)}" y2="${px(y - 4)}" stroke="${it.color}" ` +
        `stroke-width="2"${dash ? ` stroke-dasharray="${dash}"` : ''}/>` +
        (it.marker === false
          ? ''
          : `<circle cx="${px(x + 11)}" cy="${px(y - 4)}" r="3.5" fill="${it.hollow ? 'none' : it.color}" stroke="${it.color}" stroke-width="1.5"/>`) +
        `<text x="${px(x + 28)}" y="${px(y)}">${esc(it.label)}</text></g>`,
    );
    x += w;
  }
  return { svg: parts.join(''), height: items.length ? y - y0 + 8 : 0 };
}

export interface Box {
  left: number;
  top: number;
  right: number;
  bottom: number;
}

/** Ticks, grid lines and the label of the x axis. `fmt` turns a tick value into its label. */
export function xAxis(s: Scale, box: Box, label: string, fmt: (v: number) => string = tickLabel): string {
  const out = [`<g class="axis x" data-axis="x" data-scale="${s.kind}" data-ticks="${s.tickStyle}">`];
  let lastRight = -Infinity;
  for (const t of s.ticks) {
    const x = s.map(t);
    const text = fmt(t);
    const w = textWidth(text);
    // Never let two tick labels touch: skip one that would (its grid line stays).
    const show = x - w / 2 > lastRight + 6;
    out.push(`<line class="grid" x1="${px(x)}" y1="${px(box.top)}" x2="${px(x)}" y2="${px(box.bottom)}" stroke="currentColor" stroke-opacity="0.12"/>`);
    if (show) {
      out.push(`<text class="tick" data-v="${t}" x="${px(x)}" y="${px(box.bottom + 16)}" text-anchor="middle">${esc(text)}</text>`);
      lastRight = x + w / 2;
    }
  }
  out.push(`<line x1="${px(box.left)}" y1="${px(box.bottom)}" x2="${px(box.right)}" y2="${px(box.bottom)}" stroke="currentColor" stroke-opacity="0.6"/>`);
  out.push(`<text class="axis-label" x="${px((box.left + box.right) / 2)}" y="${px(box.bottom + 34)}" text-anchor="middle">${esc(label)}</text></g>`);
  return out.join('');
}

export function yAxis(s: Scale, box: Box, label: string, fmt: (v: number) => string = tickLabel): string {
  const out = [`<g class="axis y" data-axis="y" data-scale="${s.kind}" data-ticks="${s.tickStyle}">`];
  let lastTop = Infinity;
  for (const t of s.ticks) {
    const y = s.map(t);
    const show = y + 6 < lastTop - 2;
    out.push(`<line class="grid" x1="${px(box.left)}" y1="${px(y)}" x2="${px(box.right)}" y2="${px(y)}" stroke="currentColor" stroke-opacity="0.12"/>`);
    if (show) {
      out.push(`<text class="tick" data-v="${t}" x="${px(box.left - 6)}" y="${px(y + 4)}" text-anchor="end">${esc(fmt(t))}</text>`);
      lastTop = y - 6;
    }
  }
  out.push(`<line x1="${px(box.left)}" y1="${px(box.top)}" x2="${px(box.left)}" y2="${px(box.bottom)}" stroke="currentColor" stroke-opacity="0.6"/>`);
  const cy = (box.top + box.bottom) / 2;
  out.push(`<text class="axis-label" transform="translate(14 ${px(cy)}) rotate(-90)" text-anchor="middle">${esc(label)}</text></g>`);
  return out.join('');
}

/** The <svg> wrapper: scales to its container, keeps its aspect ratio, labelled for screen readers. */
export function svgDoc(width: number, height: number, title: string, body: string, cls: string): string {
  return (
    `<svg class="chart ${cls}" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" role="img" ` +
    `font-family="system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif" font-size="${FONT}" fill="currentColor"><title>${esc(title)}</title>${body}</svg>`
  );
}
