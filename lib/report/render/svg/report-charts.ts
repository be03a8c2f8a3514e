// Turns a Report into the charts of report.html: which charts apply, their series, and — when a
// chart does not apply — a sentence saying why, so an absent chart never looks like a bug.
import { TRANSPORTS } from '../../../transports';
import { display, type Comparison } from '../../figures/ab-comparison';
import type { RunFigures } from '../../figures/run-figures';
import { loadWords } from '../report-format';
import type { Report } from '../../report-types';
import { PALETTE } from './common';
import { intervalChart, type IntervalRow } from './interval';
import { lineChart, plottable, type Series } from './line';

export interface Figure {
  title: string;
  /** null when the chart does not apply; `note` says why. */
  svg: string | null;
  note: string | null;
}

/** At most this many small multiples per section: beyond it the table reads better. */
const MAX_PANELS = 8;

/** One colour per variant, in the order the variants were configured (runs' order as a fallback). */
export function variantColors(r: Report): Map<string, string> {
  const m = new Map<string, string>();
  for (const label of [...r.variants.map((v) => v.variant), ...r.runs.map((x) => x.variant)]) {
    if (!m.has(label)) m.set(label, PALETTE[m.size % PALETTE.length]);
  }
  return m;
}

const loadX = (x: RunFigures) => (x.load.kind === 'vus' ? x.load.vus : x.load.kind === 'rate' ? x.load.rate : x.load.speed);
const loadText = (x: RunFigures) => loadWords(x.load);
const uniq = <T>(xs: T[]) => [...new Set(xs)];
const isArrival = (r: Report) => r.runs.some((x) => x.load.kind === 'rate');

function groupBy<T>(xs: T[], key: (x: T) => string): Array<[string, T[]]> {
  const m = new Map<string, T[]>();
  for (const x of xs) {
    const k = key(x);
    const g = m.get(k);
    if (g) g.push(x);
    else m.set(k, [x]);
  }
  return [...m.entries()];
}

const capped = (n: number) => (n > MAX_PANELS ? ` Showing the first ${MAX_PANELS} of ${n} panels; the table has them all.` : '');

/** 'a' when A is significantly faster, 'b' when B is, 'same' when the interval straddles 1. */
export type VerdictClass = 'a' | 'b' | 'same' | 'no-interval' | 'not-measured';

export function verdictClass(c: Comparison): VerdictClass {
  if (c.throughput === null || !Number.isFinite(c.throughput.value)) return 'not-measured';
  // Without an interval there is no basis for "significant" either way.
  if (c.throughput.ci === null) return 'no-interval';
  if (c.throughput.ci.lo > 1) return 'a';
  if (c.throughput.ci.hi < 1) return 'b';
  return 'same';
}

export function cellLabel(r: Report, cellId: string): string {
  const x = r.runs.find((y) => y.cellId === cellId);
  return x ? `ISL ${x.isl} · OSL ${x.osl} · ${loadText(x)}` : cellId;
}

/** The A/B interval charts: output-throughput ratio, and the e2e-latency speedup when measured. */
export function speedupFigures(r: Report): Figure[] {
  if (r.comparisons.length === 0) return [];
  const colors = variantColors(r);
  const a = r.comparisons[0].a;
  const b = r.comparisons[0].b;
  const grey = '#7F7F7F';
  const rowsFor = (pick: (c: Comparison) => Comparison['throughput']): IntervalRow[] =>
    r.comparisons.map((c) => {
      const ratio = pick(c);
      const v = ratio && Number.isFinite(ratio.value) ? ratio.value : null;
      const lo = ratio?.ci?.lo ?? null;
      const hi = ratio?.ci?.hi ?? null;
      const color = lo !== null && lo > 1 ? colors.get(a) : hi !== null && hi < 1 ? colors.get(b) : grey;
      const note = v === null ? '–' : `${v.toFixed(2)}×${lo !== null && hi !== null ? ` [${lo.toFixed(2)}, ${hi.toFixed(2)}]` : ' (no interval)'}`;
      return { label: cellLabel(r, c.cellId), key: c.cellId, value: v, lo, hi, color: color ?? grey, note };
    });
  const opts = { below: `${display(b)} faster`, above: `${display(a)} faster`, ref: 1 };
  const out: Figure[] = [];
  const tput = rowsFor((c) => c.throughput);
  out.push(
    tput.some((x) => x.value !== null)
      ? {
          title: `Output throughput, ${display(a)} ÷ ${display(b)}`,
          note: null,
          svg: intervalChart(tput, {
            ...opts,
            width: 960,
            title: 'throughput ratio',
            xLabel: `output tokens/s of ${display(a)} ÷ ${display(b)} (log scale, 95% interval)`,
          }),
        }
      : { title: 'Output throughput ratio', svg: null, note: 'Not measured for both variants in any cell, so there is no ratio to plot.' },
  );
  const lat = rowsFor((c) => c.latency);
  if (lat.some((x) => x.value !== null)) {
    out.push({
      title: `End-to-end latency speedup, mean e2e of ${display(b)} ÷ ${display(a)}`,
      note: null,
      svg: intervalChart(lat, { ...opts, width: 960, title: 'latency speedup', xLabel: `mean e2e of ${display(b)} ÷ ${display(a)} (log scale, 95% interval)` }),
    });
  }
  return out;
}

function marks(r: Report): Array<{ x: number; label: string }> {
  const m: Array<{ x: number; label: string }> = [];
  if (r.knee?.concurrency != null) m.push({ x: r.knee.concurrency, label: `knee c=${r.knee.concurrency}` });
  if (r.fallBehind?.rate != null) m.push({ x: r.fallBehind.rate, label: `falls behind at ${r.fallBehind.rate}/s` });
  return m;
}

function deadVariants(runs: RunFigures[], has: (x: RunFigures) => boolean): string[] {
  return groupBy(runs, (x) => x.variant)
    .filter(([, xs]) => !xs.some(has))
    .map(([v, xs]) => `${display(v)}: not plotted, ${xs.every((x) => x.requests.ok === 0) ? 'no successful requests' : 'not measured'}.`);
}

/** Throughput against concurrency (or offered rate), one panel per ISL/OSL, one line per variant. */
export function throughputFigures(r: Report): Figure[] {
  const arrival = isArrival(r);
  const what = arrival ? 'offered rate' : 'concurrency';
  const title = `Output throughput vs ${what}`;
  if (r.runs.length === 0) return [{ title, svg: null, note: 'No runs in this report.' }];
  if (!r.runs.some((x) => x.throughput !== null && Number.isFinite(x.throughput))) {
    return [{ title, svg: null, note: 'Output throughput was not measured in any run (no successful requests with token counts).' }];
  }
  const levels = uniq(r.runs.map(loadX));
  if (levels.length < 2) {
    return [{ title, svg: null, note: `Only one ${what} level (${loadText(r.runs[0])}): a line needs at least two. The table below has the figures.` }];
  }
  const colors = variantColors(r);
  const groups = groupBy(r.runs, (x) => `ISL ${x.isl} · OSL ${x.osl}`);
  const out: Figure[] = [];
  const xLabel = arrival ? 'offered arrival rate (requests/s)' : 'concurrency (requests in flight)';
  for (const [key, runs] of groups.slice(0, MAX_PANELS)) {
    const panel = groups.length > 1 ? ` — ${key}` : ` (${key})`;
    if (uniq(runs.map(loadX)).length < 2) {
      out.push({ title: title + panel, svg: null, note: `Only one ${what} level for ${key}.` });
      continue;
    }
    const perVariant = groupBy(runs, (x) => x.variant);
    const line = (v: string, points: Series['points']): Series => ({ name: display(v), color: colors.get(v) ?? PALETTE[0], points });
    const series = perVariant.map(([v, xs]) =>
      line(
        v,
        xs.map((x) => ({ x: loadX(x), y: x.throughput, lo: x.throughputCi?.lo ?? null, hi: x.throughputCi?.hi ?? null })),
      ),
    );
    const notes = deadVariants(runs, (x) => x.throughput !== null);
    if (!plottable(series)) {
      out.push({ title: title + panel, svg: null, note: `No throughput measured for ${key}.` });
      continue;
    }
    const intervals = runs.some((x) => x.throughputCi !== null)
      ? ' Bands and whiskers: 95% interval (t) over the steady time slices.'
      : ' No intervals (fewer than 2 steady slices).';
    out.push({
      title: title + panel,
      note: (notes.join(' ') + intervals).trim(),
      svg: lineChart(series, { title: title + panel, xLabel, yLabel: 'output tokens/s', yScale: 'linear', marks: marks(r) }),
    });
    if (arrival) {
      const done = perVariant.map(([v, xs]) =>
        line(
          v,
          xs.map((x) => ({ x: loadX(x), y: x.requestRate })),
        ),
      );
      if (plottable(done)) {
        out.push({
          title: `Completed vs offered requests/s${panel}`,
          note: 'Below the dotted line the server completes fewer requests than arrive: it is falling behind.',
          svg: lineChart(done, {
            title: 'completed vs offered',
            xLabel,
            yLabel: 'completed requests/s',
            yScale: 'linear',
            diagonal: 'completed = offered',
            marks: marks(r),
          }),
        });
      }
    }
  }
  if (groups.length > MAX_PANELS) out.push({ title: 'More panels', svg: null, note: capped(groups.length).trim() });
  return out;
}

/** ms → the unit that keeps tick labels short: seconds once latencies reach a few seconds. */
function timeUnit(values: number[]): { unit: 'ms' | 's'; k: number } {
  const max = Math.max(0, ...values.filter((v) => Number.isFinite(v)));
  return max >= 2000 ? { unit: 's', k: 1000 } : { unit: 'ms', k: 1 };
}

type DistKey = 'e2e' | 'ttft';

function latencySeries(runs: RunFigures[], key: DistKey, x: (r: RunFigures) => number, colors: Map<string, string>): { series: Series[]; unit: string } {
  const { unit, k } = timeUnit(runs.flatMap((r) => [r[key]?.p50 ?? NaN, r[key]?.p99 ?? NaN]));
  const pct = (r: RunFigures, p: 'p50' | 'p99') => {
    const d = r[key];
    return d === null ? null : d[p] / k;
  };
  const series: Series[] = [];
  for (const [v, xs] of groupBy(runs, (r) => r.variant)) {
    const color = colors.get(v) ?? PALETTE[0];
    series.push({ name: `${display(v)} p50`, color, points: xs.map((r) => ({ x: x(r), y: pct(r, 'p50') })) });
    series.push({ name: `${display(v)} p99`, color, dash: 'dash', hollow: true, points: xs.map((r) => ({ x: x(r), y: pct(r, 'p99') })) });
  }
  return { series, unit };
}

/**
 * Latency against context length (ISL), one panel per OSL and load. A run with a single ISL
 * but several loads (a ramp, an arrival sweep) gets latency against load instead: that is where
 * its latency moves.
 */
export function latencyFigures(r: Report): Figure[] {
  const title = 'Latency vs context length';
  if (r.runs.length === 0) return [{ title, svg: null, note: 'No runs in this report.' }];
  if (!r.runs.some((x) => x.e2e !== null)) return [{ title, svg: null, note: 'Latency was not measured in any run (no successful requests).' }];
  const colors = variantColors(r);
  const ttft = TRANSPORTS[r.transport].timesEvents && r.runs.some((x) => x.ttft !== null);
  const byIsl = uniq(r.runs.map((x) => x.isl)).length >= 2;
  const byLoad = uniq(r.runs.map(loadX)).length >= 2;
  if (!byIsl && !byLoad) {
    return [{ title, svg: null, note: `One input length (ISL ${r.runs[0].isl}) and one load level: nothing to plot across. The table below has the figures.` }];
  }
  const arrival = isArrival(r);
  const xOf = byIsl ? (x: RunFigures) => x.isl : loadX;
  const xLabel = byIsl ? 'input length, ISL (tokens)' : arrival ? 'offered arrival rate (requests/s)' : 'concurrency (requests in flight)';
  const groups = groupBy(r.runs, byIsl ? (x) => `OSL ${x.osl} · ${loadText(x)}` : (x) => `ISL ${x.isl} · OSL ${x.osl}`);
  const out: Figure[] = [];
  if (!byIsl) {
    out.push({ title, svg: null, note: `One input length (ISL ${r.runs[0].isl}): showing latency vs ${arrival ? 'offered rate' : 'concurrency'} instead.` });
  }
  const metrics: Array<[DistKey, string]> = ttft
    ? [
        ['e2e', 'End-to-end latency'],
        ['ttft', 'Time to first token'],
      ]
    : [['e2e', 'End-to-end latency']];
  for (const [key, runs] of groups.slice(0, MAX_PANELS)) {
    const panel = groups.length > 1 ? ` — ${key}` : ` (${key})`;
    for (const [m, name] of metrics) {
      const title = `${name} vs ${byIsl ? 'ISL' : arrival ? 'offered rate' : 'concurrency'}${panel}`;
      if (uniq(runs.map(xOf)).length < 2) {
        out.push({ title, svg: null, note: `Only one ${byIsl ? 'ISL' : 'load level'} for ${key}.` });
        continue;
      }
      const { series, unit } = latencySeries(runs, m, xOf, colors);
      if (!plottable(series)) {
        out.push({ title, svg: null, note: `${name} not measured for ${key}.` });
        continue;
      }
      const dead = deadVariants(runs, (x) => x[m] !== null);
      out.push({
        title,
        note: [...dead, 'Solid: p50 (median); dashed, hollow markers: p99.'].join(' '),
        svg: lineChart(series, { title, xLabel, yLabel: `${m === 'e2e' ? 'e2e latency' : 'TTFT'} (${unit})`, yScale: 'auto', marks: byIsl ? [] : marks(r) }),
      });
    }
  }
  if (groups.length > MAX_PANELS) out.push({ title: 'More panels', svg: null, note: capped(groups.length).trim() });
  return out;
}
