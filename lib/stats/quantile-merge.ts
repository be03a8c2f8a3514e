// Latency distributions that can be merged across k6 instances. Each instance's k6 computes exact
// percentiles of its own samples; with PARTIAL=true it reports them on a fixed grid of ranks
// (QUANTILE_GRID). A merged quantile comes from the mixture of the instances' distributions,
// each known exactly at the grid ranks and interpolated between them, so its true rank in the
// pooled samples is within the grid's rank step of the one asked for: at most 0.5 % (rank), and
// 0.1 % from p99 up. That is the stated worst-case error (rank, not value: a heavy tail can move
// a value a lot within 0.1 % of rank, and the report says "rank").

/** Ranks in [0, 1]: every 0.5 % to 99 %, then every 0.1 % to 99.9 %, then 99.95 %. Ends 0 and 1 are min and max. */
export const QUANTILE_GRID: readonly number[] = (() => {
  const g: number[] = [];
  for (let k = 1; k < 198; k++) g.push(k / 200);
  for (let k = 990; k <= 999; k++) g.push(k / 1000);
  g.push(0.9995);
  return g;
})();

/** The worst rank error of a merged quantile at rank q. */
export function rankError(q: number): number {
  return q >= 0.99 ? 0.001 : 0.005;
}

/** k6's summaryTrendStats name of a grid rank, e.g. p(0.5), p(99.95). */
export function statName(rank: number): string {
  return `p(${Number((rank * 100).toFixed(3))})`;
}

export const GRID_STATS: readonly string[] = QUANTILE_GRID.map(statName);

/** One instance's trend as k6 summarises it (values keyed by stat name). */
export type TrendValues = Record<string, number>;

interface Part {
  n: number;
  /** (value, rank) points, ranks ascending from 0 (min) to 1 (max). */
  points: Array<[number, number]>;
}

function part(v: TrendValues): Part | null {
  const n = v.count ?? 0;
  if (n <= 0) return null;
  const points: Array<[number, number]> = [[v.min, 0]];
  for (let k = 0; k < QUANTILE_GRID.length; k++) {
    const x = v[GRID_STATS[k]];
    if (x === undefined) throw new Error(`trend lacks ${GRID_STATS[k]}: the instance did not run with PARTIAL=true`);
    points.push([x, QUANTILE_GRID[k]]);
  }
  points.push([v.max, 1]);
  return { n, points };
}

/** The merged quantile at rank q of several instances' trends. */
export function mergedQuantile(parts: readonly TrendValues[], q: number): number {
  return mergedQuantiles(parts, [q])[0];
}

/**
 * The merged quantiles at ranks qs (ascending or not) of several instances' trends, in one sweep:
 * the mixture is piecewise linear between the parts' grid values, with jumps where a part has a
 * point mass; each q lands inside a rise (interpolated) or on a jump.
 */
export function mergedQuantiles(parts: readonly TrendValues[], qs: readonly number[]): number[] {
  const ps = parts.map(part).filter((p): p is Part => p !== null);
  if (ps.length === 0) return qs.map(() => NaN);
  if (ps.length === 1) return qs.map((q) => quantileOf(ps[0], q));
  const total = ps.reduce((a, p) => a + p.n, 0);
  const xs = [...new Set(ps.flatMap((p) => p.points.map((pt) => pt[0])))].sort((a, b) => a - b);
  // Per part, a pointer to its first point at or above x, moving forward as x grows.
  const at = ps.map(() => 0);
  const left = new Float64Array(xs.length);
  const right = new Float64Array(xs.length);
  for (let k = 0; k < xs.length; k++) {
    const x = xs[k];
    let fl = 0;
    let fr = 0;
    for (let i = 0; i < ps.length; i++) {
      const pts = ps[i].points;
      let j = at[i];
      while (j < pts.length && pts[j][0] < x) j++;
      at[i] = j;
      let l: number;
      let r: number;
      if (j === pts.length) l = r = 1;
      else if (pts[j][0] === x) {
        l = j === 0 ? 0 : pts[j][1];
        let last = j;
        while (last + 1 < pts.length && pts[last + 1][0] === x) last++;
        r = pts[last][1];
      } else if (j === 0) l = r = 0;
      else {
        const [x0, r0] = pts[j - 1];
        const [x1, r1] = pts[j];
        l = r = r0 + ((r1 - r0) * (x - x0)) / (x1 - x0);
      }
      fl += ps[i].n * l;
      fr += ps[i].n * r;
    }
    left[k] = fl / total;
    right[k] = fr / total;
  }
  return qs.map((q) => {
    if (q <= 0 || right[0] >= q) return xs[0];
    for (let k = 1; k < xs.length; k++) {
      if (left[k] >= q) return left[k] === right[k - 1] ? xs[k] : xs[k - 1] + ((xs[k] - xs[k - 1]) * (q - right[k - 1])) / (left[k] - right[k - 1]);
      if (right[k] >= q) return xs[k];
    }
    return xs[xs.length - 1];
  });
}

function quantileOf(p: Part, q: number): number {
  const pts = p.points;
  for (let i = 1; i < pts.length; i++) {
    const [x1, r1] = pts[i];
    if (r1 >= q) {
      const [x0, r0] = pts[i - 1];
      return r1 === r0 ? x1 : x0 + ((x1 - x0) * (q - r0)) / (r1 - r0);
    }
  }
  return pts[pts.length - 1][0];
}

/** Merges k6 trend summaries: exact count, sum-derived avg, min and max; grid-merged percentiles. */
export function mergeTrends(parts: readonly TrendValues[], stats: readonly string[]): TrendValues {
  const live = parts.filter((v) => (v.count ?? 0) > 0);
  const out: TrendValues = {};
  const count = live.reduce((a, v) => a + v.count, 0);
  const ranked: Array<[string, number]> = [];
  for (const s of stats) {
    if (s === 'count') out.count = count;
    else if (live.length === 0) out[s] = 0;
    else if (s === 'avg') out.avg = live.reduce((a, v) => a + v.avg * v.count, 0) / count;
    else if (s === 'min') out.min = Math.min(...live.map((v) => v.min));
    else if (s === 'max') out.max = Math.max(...live.map((v) => v.max));
    else if (s === 'med') ranked.push([s, 0.5]);
    else {
      const m = /^p\(([\d.]+)\)$/.exec(s);
      if (!m) throw new Error(`cannot merge trend stat ${s}`);
      ranked.push([s, Number(m[1]) / 100]);
    }
  }
  if (ranked.length > 0 && live.length > 0) {
    const values = mergedQuantiles(
      live,
      ranked.map((r) => r[1]),
    );
    ranked.forEach(([s], i) => (out[s] = values[i]));
  }
  return out;
}
