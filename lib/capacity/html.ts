// report.html of a capacity search: the answer first, then one chart per SLO (load against the
// measured p99 with its interval, the SLO as a line, each variant's capacity marked), the search
// path and where each SLO broke. Self-contained like the benchmarks' report.html. Pure.
import { display } from '../report/figures/ab-comparison';
import { REPORT_CSS } from '../report/render/html-report';
import { fmt } from '../report/render/report-format';
import { PALETTE, esc } from '../report/render/svg/common';
import { lineChart, type Series } from '../report/render/svg/line';
import { capacityText, costLine, energyLine, pathHead, pathRows, ratioText, type CapacityReport } from './capacity-report';
import { label } from './search';
import type { CapacitySettings } from './settings';

function chart(s: CapacitySettings, r: CapacityReport, key: CapacitySettings['criteria'][number]['key']): string {
  const crit = s.criteria.find((c) => c.key === key) as CapacitySettings['criteria'][number];
  const share = key === 'attainment';
  const series: Series[] = r.variants.map((v, i) => ({
    name: display(v.variant),
    color: PALETTE[i % PALETTE.length],
    points: v.points.map((p) => {
      const m = p.measures.find((x) => x.key === key);
      if (!m) return { x: p.load, y: null };
      // Attainment is drawn as the share that met every SLO (higher is better); its interval flips.
      return share ? { x: p.load, y: (1 - m.value) * 100, lo: (1 - m.hi) * 100, hi: (1 - m.lo) * 100 } : { x: p.load, y: m.value, lo: m.lo, hi: m.hi };
    }),
  }));
  const xs = r.variants.flatMap((v) => v.points.map((p) => p.load));
  const limit = share ? crit.limit * 100 : crit.limit;
  if (xs.length)
    series.push({
      name: `SLO ${share ? `${fmt(limit, 1)} %` : `${fmt(limit, 1)} ms`}`,
      color: '#C0392B',
      dash: 'dash',
      points: [
        { x: Math.min(...xs), y: limit },
        { x: Math.max(...xs), y: limit },
      ],
    });
  const marks = r.variants
    .filter((v) => v.capacity.crossing !== null)
    .map((v) => ({ x: v.capacity.crossing as number, label: `${display(v.variant)} capacity` }));
  return lineChart(series, {
    title: `${label(key)} vs load`,
    xLabel: `load (${s.loop.unit})`,
    yLabel: share ? 'requests within every SLO, %' : `${label(key)}, ms`,
    xScale: 'linear',
    yScale: 'linear',
    marks,
    width: 620,
  });
}

export function renderCapacityHtml(s: CapacitySettings, r: CapacityReport): string {
  const verdicts = r.variants
    .map(
      (v) =>
        `<li><b>${esc(display(v.variant))}</b>: ${esc(capacityText(s, v.capacity))}` +
        `${v.capacity.limitedBy ? `, limited by ${esc(label(v.capacity.limitedBy))}` : ''}` +
        (`${v.goodputAtCapacity === null ? '' : ` · goodput ${esc(fmt(v.goodputAtCapacity, 2))} req/s`} · ${v.points.length} loads, ${v.runs} ` +
          `k6 runs<br><span class="ci">${esc(v.stop ? v.stop.reason : 'not finished')}</span></li>`),
    )
    .join('');
  const broke = r.variants
    .flatMap((v) =>
      v.capacity.criteria.map(
        (c) =>
          `<li>${esc(display(v.variant))}: ${esc(label(c.key))} ` +
          (c.brokeAt === null
            ? 'held at every load measured'
            : `first broke at ${esc(fmt(c.brokeAt, s.loop.integer ? 0 : 2))} ${esc(s.loop.short)} (step ${c.brokeStep})`) +
          `</li>`,
      ),
    )
    .join('');
  const head = pathHead(s);
  const rows = pathRows(s, r);
  const table =
    `<div class="scroll"><table class="runs"><thead><tr>` +
    `${head.map((h, i) => `<th${i > 0 ? ' class="n"' : ''}>${esc(h)}</th>`).join('')}</tr></thead><tbody>${rows
      .map((row) => `<tr>${row.map((c, i) => `<td${i > 0 ? ' class="n"' : ''}>${esc(c)}</td>`).join('')}</tr>`)
      .join('')}</tbody></table></div>`;
  const ratio = r.ratio
    ? `<p><b>${esc(display(r.ratio.a))} ÷ ${esc(display(r.ratio.b))} = ${esc(ratioText(r.ratio.ratio))}</b> ` +
      `at equal SLO. The interval divides the ends of both capacity intervals (conservative: at least 90 % coverage).</p>`
    : '';
  const cost = costLine(s, r);
  const costHtml = cost === null ? '' : `<section><h2>Cost at SLO capacity</h2><p data-capacity-cost>${esc(cost)}</p></section>`;
  const energy = energyLine(s, r);
  const energyHtml = energy === null ? '' : `<section><h2>Energy at SLO capacity</h2><p data-capacity-energy>${esc(energy)}</p></section>`;
  const warnings = r.warnings.length ? `<div class="box warnings"><h3>Warnings</h3><ul>${r.warnings.map((w) => `<li>${esc(w)}</li>`).join('')}</ul></div>` : '';
  const settings = [...Object.entries(r.workload), ...Object.entries(r.settings).map(([k, v]) => [k, String(v)])]
    .map(([k, v]) => `<div><span>${esc(k)}</span><b>${esc(v)}</b></div>`)
    .join('');
  return (
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">` +
    `<meta name="color-scheme" content="light dark"><title>capacity — ${esc(r.runId)}</title><style>${REPORT_CSS}</style></head>\n<body><main>` +
    (`<header><h1>Capacity under SLOs</h1><p class="meta">run <b>${esc(r.runId)}</b> · ${esc(r.loop.name)} ` +
      `loop (${esc(r.loop.unit)}) · transport <b>${esc(r.transport)}</b> · generated <b>${esc(r.generatedAt)}</b> ` +
      `· ${Math.round(r.durationMs / 1000)} s</p></header>`) +
    `<div class="box callout">${esc(r.headline)}</div><ul class="verdicts">${verdicts}</ul>${ratio}${costHtml}${energyHtml}${warnings}` +
    (`<section><h2>Search path</h2><div class="figs">` +
      `${s.criteria.map((c) => `<figure><figcaption>${esc(label(c.key))} against ${esc(c.variable)}</figcaption>${chart(s, r, c.key)}</figure>`).join('')}` +
      `</div>`) +
    `<p class="legend-note">Each point is one load, with its 95 % interval; dashed: the SLO; red lines: each variant's capacity.</p>${table}</section>` +
    `<section><h2>Where each SLO broke</h2><ul>${broke}</ul></section>` +
    `<section><h2>Workload and settings</h2><div class="settings">${settings}</div></section>` +
    `<footer>k6-llm-bench capacity search</footer></main></body></html>\n`
  );
}
