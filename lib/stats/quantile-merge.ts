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

/**
 * The part's rank of x, interpolated between its grid points (0 below min, 1 from max up). Where
 * several grid points share x (ties, a point mass), `left` gives the lowest of their ranks (the
 * rank just below x) and otherwise the highest.
 */
function cdf(p: Part, x: number, left = false): number {
  const pts = p.points;
  if (x < pts[0][0]) return 0;
  if (x > pts[pts.length - 1][0]) return 1;
  // The first point at or above x.
  let lo = 0;
  let hi = pts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (pts[mid][0] < x) lo = mid + 1;
    else hi = mid;
  }
  if (pts[lo][0] === x) {
    if (left) return lo === 0 ? 0 : pts[lo][1];
    let last = lo;
    while (last + 1 < pts.length && pts[last + 1][0] === x) last++;
    return pts[last][1];
  }
  const [x0, r0] = pts[lo - 1];
  const [x1, r1] = pts[lo];
  return r0 + ((r1 - r0) * (x - x0)) / (x1 - x0);
}

/** The merged quantile at rank q of several instances' trends. */
export function mergedQuantile(parts: readonly TrendValues[], q: number): number {
  const ps = parts.map(part).filter((p): p is Part => p !== null);
  if (ps.length === 0) return NaN;
  if (ps.length === 1) return quantileOf(ps[0], q);
  const total = ps.reduce((a, p) => a + p.n, 0);
  const F = (x: number, left: boolean) => ps.reduce((a, p) => a + p.n * cdf(p, x, left), 0) / total;
  // The mixture is piecewise linear between the parts' grid values, with jumps where a part has
  // a point mass: find where it reaches q, interpolating inside a rise, or landing on a jump.
  const xs = [...new Set(ps.flatMap((p) => p.points.map((pt) => pt[0])))].sort((a, b) => a - b);
  let prevX = xs[0];
  let prevF = F(prevX, false);
  if (q <= 0 || prevF >= q) return prevX;
  for (let i = 1; i < xs.length; i++) {
    const x = xs[i];
    const below = F(x, true);
    if (below >= q) return below === prevF ? x : prevX + ((x - prevX) * (q - prevF)) / (below - prevF);
    const at = F(x, false);
    if (at >= q) return x;
    prevX = x;
    prevF = at;
  }
  return xs[xs.length - 1];
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
  for (const s of stats) {
    if (s === 'count') out.count = count;
    else if (live.length === 0) out[s] = 0;
    else if (s === 'avg') out.avg = live.reduce((a, v) => a + v.avg * v.count, 0) / count;
    else if (s === 'min') out.min = Math.min(...live.map((v) => v.min));
    else if (s === 'max') out.max = Math.max(...live.map((v) => v.max));
    else if (s === 'med') out.med = mergedQuantile(live, 0.5);
    else {
      const m = /^p\(([\d.]+)\)$/.exec(s);
      if (!m) throw new Error(`cannot merge trend stat ${s}`);
      out[s] = mergedQuantile(live, Number(m[1]) / 100);
    }
  }
  return out;
}
