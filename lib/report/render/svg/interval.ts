// Interval ("forest") chart: one row per cell, the ratio as a dot with its 95% interval as a
// whisker, a reference line at 1×. Ratios go on a log axis so "A 2× faster" and "B 2× faster" sit
// at the same distance from the line.
import { esc, FONT, px, svgDoc, textWidth, xAxis, type Box } from './common';
import { makeScale, tickLabel } from './scale';

export interface IntervalRow {
  label: string;
  value: number | null;
  lo: number | null;
  hi: number | null;
  color: string;
  /** Printed right of the plot, e.g. "1.52× [1.41, 1.63]". */
  note: string;
  /** Written onto the dot as data-key, so tests can find a row. */
  key?: string;
}

export interface IntervalChartOpts {
  title: string;
  xLabel: string;
  /** Where the reference line goes, and which side means what. */
  ref?: number;
  below?: string;
  above?: string;
  width?: number;
}

const finite = (v: number | null): v is number => v !== null && Number.isFinite(v) && v > 0;

export function intervalChart(rows: IntervalRow[], o: IntervalChartOpts): string {
  const W = o.width ?? 760;
  const ref = o.ref ?? 1;
  const rowH = 26;
  const labelW = Math.min(220, Math.max(60, ...rows.map((r) => textWidth(r.label))) + 12);
  const noteW = Math.min(200, Math.max(60, ...rows.map((r) => textWidth(r.note))) + 12);
  const box: Box = { left: labelW, top: 26, right: W - noteW, bottom: 26 + Math.max(1, rows.length) * rowH };
  const H = box.bottom + 44;
  const vals = rows.flatMap((r) => [r.value, r.lo, r.hi]).filter(finite);
  const scale = makeScale([...vals, ref], [box.left + 10, box.right - 10], { kind: 'log', maxTicks: 7 });
  const X = scale.map;
  const fmt = (v: number) => `${tickLabel(v)}×`;
  const out: string[] = [xAxis(scale, box, o.xLabel, fmt)];
  // Zebra rows, so a label can be followed across to its dot.
  rows.forEach((_, i) => {
    if (i % 2 === 1) out.push(`<rect x="0" y="${px(box.top + i * rowH)}" width="${W}" height="${rowH}" fill="currentColor" fill-opacity="0.04"/>`);
  });
  const xr = X(ref);
  out.push(
    `<line class="ref" data-v="${ref}" x1="${px(xr)}" y1="${px(box.top - 6)}" x2="${px(xr)}" y2="${px(box.bottom)}" ` +
      `stroke="currentColor" stroke-width="1.5" stroke-opacity="0.7"/>`,
  );
  if (o.below) out.push(`<text x="${px(xr - 8)}" y="${px(box.top - 10)}" text-anchor="end" font-style="italic">← ${esc(o.below)}</text>`);
  if (o.above) out.push(`<text x="${px(xr + 8)}" y="${px(box.top - 10)}" font-style="italic">${esc(o.above)} →</text>`);
  rows.forEach((r, i) => {
    const y = box.top + i * rowH + rowH / 2;
    out.push(`<text class="row-label" x="${px(labelW - 10)}" y="${px(y + FONT / 3)}" text-anchor="end">${esc(r.label)}</text>`);
    out.push(`<text class="row-note" x="${px(box.right + 10)}" y="${px(y + FONT / 3)}">${esc(r.note)}</text>`);
    if (!finite(r.value)) {
      out.push(`<text x="${px((box.left + box.right) / 2)}" y="${px(y + FONT / 3)}" text-anchor="middle" fill-opacity="0.6">not measured</text>`);
      return;
    }
    if (finite(r.lo) && finite(r.hi)) {
      out.push(
        `<path class="whisker" d="M${px(X(r.lo))} ${px(y)}H${px(X(r.hi))}M${px(X(r.lo))} ${px(y - 5)}v10M${px(X(r.hi))} ` +
          `${px(y - 5)}v10" stroke="${r.color}" stroke-width="2" fill="none"/>`,
      );
    }
    out.push(`<circle class="pt" data-key="${esc(r.key ?? r.label)}" data-v="${r.value}" cx="${px(X(r.value))}" cy="${px(y)}" r="5" fill="${r.color}"/>`);
  });
  return svgDoc(W, H, o.title, out.join(''), 'interval');
}
