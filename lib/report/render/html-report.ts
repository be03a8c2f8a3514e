// report.html: a self-contained page (inline CSS and SVG, no scripts, fonts or external files), so
// it opens offline, attaches to a ticket and prints. Runs inside k6: no DOM, Node or Intl here.
// Every string that comes from the report goes through esc(); numbers go through the formatters.
import { TRANSPORTS } from '../../transports';
import { display } from '../figures/ab-comparison';
import { NOT_MEASURED, draftLines, fmt, fmtCi, fmtFailed, itlRuleLines, itlValue, loadLabel } from './report-format';
import type { Dist, RunFigures } from '../figures/run-figures';
import type { Report } from '../report-types';
import { htmlSection as section } from './html-parts';
import { sectionsHtml } from '../sections/index';
import { esc } from './svg/common';
import { variantColors } from './svg/report-charts';

export const REPORT_CSS =
  `
:root{--bg:#fff;--fg:#1d2430;--muted:#5b6575;--line:#d9dee6;--card:#f6f8fa;--warn-bg:#fff6e0;--warn:#8a5a00;--nm-bg:#eef3fb;--nm:#1f4f8f;` +
  `--ok:#1a7f37;--bad:#c0392b;--bad-bg:#fdecea}
@media (prefers-color-scheme: dark){:root{--bg:#15181d;--fg:#e3e7ee;--muted:#9aa4b2;--line:#343a44;--card:#1d2128;--warn-bg:#33290f;` +
  `--warn:#f0c060;--nm-bg:#17263b;--nm:#9cc3f5;--ok:#4cc36b;--bad:#ff7b6b;--bad-bg:#3a1a17}}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--fg);font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
main{max-width:1240px;margin:0 auto;padding:24px 28px 48px}
h1{font-size:24px;margin:0 0 4px}h2{font-size:18px;margin:32px 0 10px;padding-bottom:4px;border-bottom:1px solid var(--line)}
.meta{color:var(--muted);margin:0 0 14px}.meta b{color:var(--fg);font-weight:600}
code{font:12.5px ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
table{border-collapse:collapse;font-variant-numeric:tabular-nums}
th,td{padding:4px 8px;border-bottom:1px solid var(--line);vertical-align:top}
th{text-align:left;font-weight:600;color:var(--muted);font-size:12px;white-space:nowrap}
td.n,th.n{text-align:right;white-space:nowrap}
.runs{font-size:13px}.runs th{white-space:normal;vertical-align:bottom;max-width:92px}.variants td{white-space:nowrap}.variants ` +
  `td.notes{white-space:normal;min-width:220px}.runs tr.cell-start td{border-top:2px solid var(--line)}
.runs tr.dead td{color:var(--muted)}.client tr.limited td{color:var(--bad);font-weight:600}.runs td.fail{color:var(--bad);font-weight:600}
.ci{display:block;font-size:11px;color:var(--muted)}
.na{color:var(--muted)}
.scroll{overflow-x:auto}
.swatch{display:inline-block;width:10px;height:10px;border-radius:2px;margin-right:6px}
.box{border-radius:6px;padding:10px 14px;margin:12px 0}
.box h3{margin:0 0 4px;font-size:14px}.box ul{margin:0;padding-left:20px}
.notmeasured{background:var(--nm-bg);color:var(--nm);border:1px solid currentColor}
.warnings{background:var(--warn-bg);color:var(--warn);border:1px solid currentColor}
.preflight{background:var(--bad-bg);color:var(--bad);border:2px solid currentColor}.preflight p{margin:4px 0 0;font-size:12.5px}
.callout{background:var(--card);border-left:5px solid #C0392B;font-size:15px}
.callout b{color:#C0392B}
.verdicts{list-style:none;padding:0;margin:0}.verdicts li{padding:5px 0;border-bottom:1px solid var(--line)}
.badge{display:inline-block;min-width:150px;text-align:center;border-radius:11px;padding:1px 10px;margin-right:10px;font-size:12px;` +
  `font-weight:600;color:#fff;-webkit-print-color-adjust:exact;print-color-adjust:exact}
.badge.same{background:#7F7F7F}.badge.no-interval,.badge.not-measured{color:var(--muted);border:1px dashed var(--muted)}
.figs{display:grid;grid-template-columns:repeat(auto-fill,minmax(520px,1fr));gap:18px}
figure{margin:0;background:var(--card);border:1px solid var(--line);border-radius:6px;padding:10px 12px;break-inside:avoid}
figure.wide{grid-column:1/-1}
figcaption{font-weight:600;margin-bottom:6px}
figure p{margin:6px 0 0;color:var(--muted);font-size:12.5px}
figure.skipped{grid-column:1/-1;background:none;border-style:dashed;padding:6px 12px}figure.skipped p{margin:2px 0 0}
svg.chart{display:block;max-width:100%;height:auto}
.slo .ok{color:var(--ok);font-weight:700}.slo .bad{color:var(--bad);font-weight:700}
.settings{display:grid;grid-template-columns:repeat(auto-fill,minmax(230px,1fr));gap:2px 18px;font-size:13px}
.settings div{display:flex;justify-content:space-between;border-bottom:1px dotted var(--line);padding:2px 0}
.settings span{color:var(--muted)}
.legend-note{color:var(--muted);font-size:12px;margin:6px 0}
footer{margin-top:36px;color:var(--muted);font-size:12px}
@media print{body{font-size:11px}main{max-width:none;padding:0}.figs{display:block}figure{margin:0 0 12px;background:none}` +
  `h2{break-after:avoid}tr{break-inside:avoid}.scroll{overflow:visible}}
@page{margin:14mm}
`;

const dash = `<span class="na" title="${NOT_MEASURED}">–</span>`;
const finite = (v: number | null | undefined): v is number => typeof v === 'number' && Number.isFinite(v);

/** A number in a unit, or the not-measured dash. Milliseconds keep sub-ms precision below 10. */
function num(v: number | null | undefined, digits = 1): string {
  return finite(v) ? fmt(v, digits) : dash;
}

/** The unit for a latency column: seconds once its values reach a second, so digits line up. */
function unitFor(values: Array<number | null | undefined>): { unit: 'ms' | 's'; k: number } {
  const max = Math.max(0, ...values.filter(finite));
  return max >= 1000 ? { unit: 's', k: 1000 } : { unit: 'ms', k: 1 };
}

/** Three significant digits or so, in the column's unit: 0.024 s, 1.46 s, 11.8 ms, 250 ms. */
function inUnit(v: number | null | undefined, u: { unit: string; k: number }): string {
  if (!finite(v)) return dash;
  const x = v / u.k;
  return fmt(x, Math.abs(x) < 1 ? 3 : Math.abs(x) < 10 ? 2 : 1);
}

function header(r: Report): string {
  const colors = variantColors(r);
  const dur = finite(r.testRunDurationMs) ? ` · test ran <b>${esc(fmt(r.testRunDurationMs / 1000, 0))} s</b>` : '';
  const notes = r.variants.some((v) => v.notes.length > 0);
  const rows = r.variants.map(
    (v) =>
      `<tr><td><span class="swatch" style="background:${colors.get(v.variant)}"></span><b>${esc(display(v.variant))}</b></td><td>` +
      `${esc(v.engineLabel)}</td><td><code>${esc(v.url)}</code></td>` +
      (`<td>${esc(v.dialect)}</td><td>${v.model ? esc(v.model) : dash}</td><td>` +
        `${v.serverMetrics ? esc(v.serverMetrics) : `<span class="na">${NOT_MEASURED}</span>`}</td>`) +
      (notes ? `<td class="notes">${v.notes.map(esc).join('<br>')}</td>` : '') +
      '</tr>',
  );
  // A failed preflight means no load was sent: say so first and loudest, before any empty chart.
  const pf = r.preflightFailures.length
    ? `<div class="box preflight"><h3>Preflight failed: no load was sent</h3><ul>${r.preflightFailures
        .map(
          (f) => `<li><b>${esc(display(f.variant))}</b>: ${esc(f.headline)} <code>${esc(f.reason)}</code>${f.message ? `<p>${esc(f.message)}</p>` : ''}</li>`,
        )
        .join('')}</ul></div>`
    : '';
  const nm = r.notMeasured.length
    ? `<div class="box notmeasured"><h3>Not measured in this test</h3><ul>${r.notMeasured.map((n) => `<li>${esc(n)}</li>`).join('')}</ul></div>`
    : '';
  return (
    `<header><h1>${esc(r.benchmark)}</h1><p class="meta">run <b>${esc(r.runId)}</b> · generated <b>${esc(r.generatedAt)}</b> ` +
    `· transport <b>${esc(r.transport)}</b>${dur}</p>` +
    (`<div class="scroll"><table class="variants"><thead><tr><th>variant</th><th>engine</th><th>URL</th><th>dialect</th><th>model</th><th>server ` +
      `metrics</th>${notes ? '<th>notes</th>' : ''}</tr></thead>`) +
    `<tbody>${rows.join('')}</tbody></table></div>${pf}${nm}</header>`
  );
}

interface Col {
  head: string;
  n: boolean;
  cell: (x: RunFigures) => string;
}

/** The per-run table: the markdown report's columns, units in the headers, intervals in small type. */
function runsTable(r: Report): string {
  if (r.runs.length === 0) return '<p class="na">No runs.</p>';
  const sse = TRANSPORTS[r.transport].timesEvents;
  const e2eU = unitFor(r.runs.flatMap((x) => [x.e2e?.p99]));
  // Client-side TTFT/ITL only count with sse: with http they are not shown, so must not pick units.
  const ttftU = unitFor(r.runs.flatMap((x) => [sse ? x.ttft?.p99 : null, x.server?.ttftMeanMs]));
  const itlU = unitFor(r.runs.flatMap((x) => [sse ? itlValue(x, 'p99').value : null, sse ? x.tpot?.p50 : null, x.server?.itlMeanMs]));
  const itlCell = (p: 'p50' | 'p99', u: { unit: string; k: number }) => (x: RunFigures) => {
    const v = itlValue(x, p);
    return v.value === null ? dash : `${inUnit(v.value, u)}${v.perChunk ? '<span class="ci">per chunk †</span>' : ''}`;
  };
  const itlNotes = sse ? [...itlRuleLines(r.runs), ...draftLines(r.runs)] : draftLines(r.runs);
  const pct = (d: (x: RunFigures) => Dist | null, p: 'p50' | 'p90' | 'p99', u: { unit: string; k: number }) => (x: RunFigures) => inUnit(d(x)?.[p], u);
  const cols: Col[] = [
    { head: 'ISL', n: true, cell: (x) => String(x.isl) },
    { head: 'OSL', n: true, cell: (x) => String(x.osl) },
    { head: 'load', n: true, cell: (x) => esc(loadLabel(x.load)) },
    { head: 'variant', n: false, cell: (x) => esc(display(x.variant)) },
    { head: 'requests', n: true, cell: (x) => String(x.requests.total) },
    { head: 'failed', n: true, cell: (x) => fmtFailed(x.requests) },
    {
      head: 'output tok/s',
      n: true,
      cell: (x) =>
        finite(x.throughput)
          ? `${fmt(x.throughput)}${x.throughputCi ? `<span class="ci">[${fmt(x.throughputCi.lo, 0)}, ${fmt(x.throughputCi.hi, 0)}]</span>` : ''}`
          : dash,
    },
    { head: 'req/s', n: true, cell: (x) => num(x.requestRate, 2) },
    { head: 'goodput req/s', n: true, cell: (x) => num(x.goodput, 2) },
    { head: `e2e p50 (${e2eU.unit})`, n: true, cell: pct((x) => x.e2e, 'p50', e2eU) },
    { head: `e2e p90 (${e2eU.unit})`, n: true, cell: pct((x) => x.e2e, 'p90', e2eU) },
    { head: `e2e p99 (${e2eU.unit})`, n: true, cell: pct((x) => x.e2e, 'p99', e2eU) },
  ];
  // With the http transport these were not measured: no column, rather than a column of numbers
  // that would look measured (the "not measured" box says why).
  if (sse) {
    cols.push(
      { head: `TTFT p50 (${ttftU.unit})`, n: true, cell: pct((x) => x.ttft, 'p50', ttftU) },
      { head: `TTFT p99 (${ttftU.unit})`, n: true, cell: pct((x) => x.ttft, 'p99', ttftU) },
      { head: `TTST p50 (${ttftU.unit})`, n: true, cell: pct((x) => x.ttst ?? null, 'p50', ttftU) },
      { head: `ITL p50 (${itlU.unit})`, n: true, cell: itlCell('p50', itlU) },
      { head: `ITL p99 (${itlU.unit})`, n: true, cell: itlCell('p99', itlU) },
      { head: `TPOT p50 (${itlU.unit})`, n: true, cell: pct((x) => x.tpot, 'p50', itlU) },
    );
  }
  cols.push(
    {
      head: 'accept. length (tok/step)',
      n: true,
      cell: (x) =>
        x.acceptance ? `${x.acceptance.value.toFixed(2)}<span class="ci">${esc(fmtCi(x.acceptance.ci, 2).trim())} ${esc(x.acceptance.source)}</span>` : dash,
    },
    { head: `server TTFT mean (${ttftU.unit})`, n: true, cell: (x) => inUnit(x.server?.ttftMeanMs, ttftU) },
    { head: `server ITL mean (${itlU.unit})`, n: true, cell: (x) => inUnit(x.server?.itlMeanMs, itlU) },
  );
  const rows = r.runs.map((x, i) => {
    const cls = [i > 0 && r.runs[i - 1].cellId !== x.cellId ? 'cell-start' : '', x.requests.ok === 0 ? 'dead' : ''].filter(Boolean).join(' ');
    const tds = cols.map(
      (c) => `<td class="${c.n ? 'n' : ''}${c.head === 'failed' && x.requests.failed + x.requests.unreachable > 0 ? ' fail' : ''}">${c.cell(x)}</td>`,
    );
    return `<tr${cls ? ` class="${cls}"` : ''} data-variant="${esc(x.variant)}">${tds.join('')}</tr>`;
  });
  return (
    `<div class="scroll"><table class="runs"><thead><tr>${cols.map((c) => `<th class="${c.n ? 'n' : ''}">${esc(c.head)}</th>`).join('')}</tr>` +
    `</thead><tbody>${rows.join('')}</tbody></table></div>` +
    `<p class="legend-note">– not measured (no successful requests, or not reported). Output tok/s: aggregate over the steady window, 95% interval below it. ` +
    `Greyed rows had no successful request.${sse ? '' : ' TTFT, ITL and TPOT columns are absent: the http transport cannot measure them.'}</p>` +
    (itlNotes.length ? `<ul class="legend-note">${itlNotes.map((l) => `<li>${esc(l)}</li>`).join('')}</ul>` : '')
  );
}

function settingsSection(r: Report): string {
  const items = Object.entries(r.settings).filter(([, v]) => v !== null);
  if (items.length === 0) return '';
  return section(
    'Settings',
    `<div class="settings">${items.map(([k, v]) => `<div><span>${esc(k)}</span><code>${esc(String(v))}</code></div>`).join('')}</div>`,
  );
}

export function renderHtml(r: Report): string {
  const body = [
    header(r),
    ...sectionsHtml(r, 'conclusions'),
    section('Per cell and variant', runsTable(r)),
    ...sectionsHtml(r, 'details'),
    ...sectionsHtml(r, 'checks'),
    ...sectionsHtml(r, 'outcomes'),
    r.warnings.length ? `<div class="box warnings"><h3>Warnings</h3><ul>${r.warnings.map((w) => `<li>${esc(w)}</li>`).join('')}</ul></div>` : '',
    settingsSection(r),
    `<footer>k6-llm-bench · ${esc(r.benchmark)} · ${esc(r.runId)}</footer>`,
  ];
  return (
    `<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">` +
    `<meta name="color-scheme" content="light dark"><title>${esc(r.benchmark)} — ${esc(r.runId)}</title><style>${REPORT_CSS}</style></head>\n` +
    `<body><main>\n${body.filter(Boolean).join('\n')}\n</main></body></html>\n`
  );
}
