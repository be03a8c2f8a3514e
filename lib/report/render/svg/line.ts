// Line chart with optional interval bands: throughput vs concurrency, latency vs context length.
// Pure: series in, SVG string out. Missing values (null, NaN, ≤ 0 on a log axis) break the line
// rather than being drawn as zero.
import { DASH, esc, legend, px, svgDoc, xAxis, yAxis, type Box, type Dash, type LegendItem } from './common';
import { makeScale, tickLabel, type ScaleKind } from './scale';

export interface Point {
  x: number;
  y: number | null;
  /** The 95% interval of y, drawn as a band and whiskers when present. */
  lo?: number | null;
  hi?: number | null;
}

export interface Series {
  name: string;
  color: string;
  dash?: Dash;
  hollow?: boolean;
  /** false: markers alone, no line through them (a scatter). */
  line?: boolean;
  points: Point[];
}

export interface LineChartOpts {
  title: string;
  xLabel: string;
  yLabel: string;
  /** 'auto': log when the positive x values span at least 4× (concurrency 1…64). */
  xScale?: ScaleKind | 'auto';
  /** 'auto': log when y spans at least 20× (latency from 128 to 32k tokens of context). */
  yScale?: ScaleKind | 'auto';
  width?: number;
  height?: number;
  /** Vertical markers, e.g. the knee of a ramp. */
  marks?: Array<{ x: number; label: string }>;
  /** Draw y = x, labelled (completed vs offered rate). */
  diagonal?: string;
  /** Tick labels of the x axis, e.g. "1k"; defaults to tickLabel. */
  xFmt?: (v: number) => string;
  yFmt?: (v: number) => string;
}

const finite = (v: number | null | undefined): v is number => typeof v === 'number' && Number.isFinite(v);

/** True when at least one point of one series can be drawn. */
export function plottable(series: Series[]): boolean {
  return series.some((s) => s.points.some((p) => finite(p.x) && finite(p.y)));
}

export function autoScale(values: number[], ratio: number): ScaleKind {
  const pos = values.filter((v) => finite(v) && v > 0);
  if (pos.length < 2 || pos.length < values.filter(finite).length) return 'linear';
  return Math.max(...pos) / Math.min(...pos) >= ratio ? 'log' : 'linear';
}

export function lineChart(series: Series[], o: LineChartOpts): string {
  const W = o.width ?? 560;
  const H0 = o.height ?? 300;
  const drawn = series.filter((s) => s.points.some((p) => finite(p.x) && finite(p.y)));
  const items: LegendItem[] = drawn.map((s) => ({ label: s.name, color: s.color, dash: s.dash, hollow: s.hollow }));
  if (o.diagonal) items.push({ label: o.diagonal, color: 'currentColor', dash: 'dot', marker: false });
  const leg = legend(items, 64, 4, W - 72);
  const box: Box = { left: 64, top: leg.height + 14, right: W - 16, bottom: leg.height + H0 - 48 };
  const H = box.bottom + 44;
  if (drawn.length === 0) {
    return svgDoc(W, 80, o.title, `<text x="${W / 2}" y="44" text-anchor="middle">no data to plot</text>`, 'line empty');
  }

  const xs = drawn.flatMap((s) => s.points.filter((p) => finite(p.y)).map((p) => p.x)).filter(finite);
  const xKind = o.xScale === undefined || o.xScale === 'auto' ? autoScale(xs, 4) : o.xScale;
  const ysRaw = drawn.flatMap((s) => s.points.flatMap((p) => [p.y, p.lo, p.hi])).filter(finite);
  const yKind = o.yScale === undefined || o.yScale === 'auto' ? autoScale(ysRaw, 20) : o.yScale;
  const ok = (v: number | null | undefined): v is number => finite(v) && (yKind === 'linear' || v > 0);
  const diagVals = o.diagonal ? xs : [];
  const xScale = makeScale(xKind === 'log' ? xs.filter((v) => v > 0) : xs, [box.left + 14, box.right - 14], { kind: xKind, maxTicks: 9 });
  const yScale = makeScale([...ysRaw.filter(ok), ...diagVals], [box.bottom, box.top], {
    kind: yKind,
    zero: true,
    niceDomain: true,
    maxTicks: yKind === 'log' ? 9 : 6,
  });
  // makeScale pads x inward; the grid spans the whole box.
  const X = xScale.map;
  const Y = yScale.map;

  const out: string[] = [leg.svg, xAxis(xScale, box, o.xLabel, o.xFmt), yAxis(yScale, box, o.yLabel, o.yFmt ?? tickLabel)];
  if (o.diagonal) {
    const [a, b] = [Math.max(xScale.domain[0], yScale.domain[0]), Math.min(xScale.domain[1], yScale.domain[1])];
    if (b > a) {
      out.push(
        `<line class="diagonal" x1="${px(X(a))}" y1="${px(Y(a))}" x2="${px(X(b))}" y2="${px(Y(b))}" stroke="currentColor" ` +
          `stroke-opacity="0.5" stroke-dasharray="${DASH.dot}"/>`,
      );
    }
  }
  for (const m of o.marks ?? []) {
    if (!finite(m.x) || (xKind === 'log' && m.x <= 0)) continue;
    const x = X(m.x);
    const anchor = x > (box.left + box.right) / 2 ? 'end' : 'start';
    out.push(
      `<g class="mark" data-x="${m.x}"><line x1="${px(x)}" y1="${px(box.top)}" x2="${px(x)}" y2="${px(box.bottom)}" ` +
        `stroke="#C0392B" stroke-width="1.5" stroke-dasharray="4 3"/>` +
        (`<text x="${px(x + (anchor === 'end' ? -4 : 4))}" y="${px(box.top + 12)}" text-anchor="${anchor}" fill="#C0392B" ` +
          `font-weight="600">${esc(m.label)}</text></g>`),
    );
  }

  for (const [i, s] of drawn.entries()) {
    const pts = s.points.filter((p) => finite(p.x) && (xKind === 'linear' || p.x > 0)).sort((a, b) => a.x - b.x);
    const g: string[] = [`<g class="series" data-series="${esc(s.name)}" data-i="${i}">`];
    // The band: one polygon per run of consecutive points that all have an interval.
    let run: Point[] = [];
    const flush = () => {
      if (run.length >= 2) {
        const top = run.map((p) => `${px(X(p.x))},${px(Y(p.hi as number))}`);
        const bottom = run.map((p) => `${px(X(p.x))},${px(Y(p.lo as number))}`).reverse();
        g.push(`<polygon class="band" points="${[...top, ...bottom].join(' ')}" fill="${s.color}" fill-opacity="0.13" stroke="none"/>`);
      }
      run = [];
    };
    for (const p of pts) {
      if (ok(p.y) && ok(p.lo) && ok(p.hi)) run.push(p);
      else flush();
    }
    flush();
    // The line, broken at missing values.
    let path = '';
    let pen = false;
    for (const p of pts) {
      if (!ok(p.y)) {
        pen = false;
        continue;
      }
      path += `${pen ? 'L' : 'M'}${px(X(p.x))} ${px(Y(p.y))}`;
      pen = true;
    }
    const dash = DASH[s.dash ?? 'solid'];
    if (s.line !== false)
      g.push(`<path d="${path}" fill="none" stroke="${s.color}" stroke-width="2"${dash ? ` stroke-dasharray="${dash}"` : ''} stroke-linejoin="round"/>`);
    for (const p of pts) {
      if (!ok(p.y)) continue;
      const x = px(X(p.x));
      if (ok(p.lo) && ok(p.hi)) {
        g.push(
          `<path class="whisker" d="M${x} ${px(Y(p.lo))}V${px(Y(p.hi))}M${px(X(p.x) - 3)} ${px(Y(p.lo))}h6M${px(X(p.x) - 3)} ` +
            `${px(Y(p.hi))}h6" stroke="${s.color}" stroke-width="1.2" fill="none"/>`,
        );
      }
      g.push(
        `<circle class="pt" data-x="${p.x}" data-y="${p.y}" cx="${x}" cy="${px(Y(p.y))}" r="3.5" ` +
          `${s.hollow ? 'style="fill: var(--bg, #fff)"' : `fill="${s.color}"`} stroke="${s.color}" stroke-width="1.5"/>`,
      );
    }
    g.push('</g>');
    out.push(g.join(''));
  }
  return svgDoc(W, H, o.title, out.join(''), 'line');
}
