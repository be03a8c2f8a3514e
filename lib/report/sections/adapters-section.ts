// ADAPTERS runs: per run and adapter the requests the client sent and how they went, and per
// adapter a verdict between the variants (lib/report/figures/adapter-figures.ts), in each report format; nothing
// for runs without ADAPTERS.
import { display } from '../figures/ab-comparison';
import { adapterReport, type AdapterReport } from '../figures/adapter-figures';
import { fmtMs, mdTable, table, ciBounds } from '../render/report-format';
import { htmlSection } from '../render/html-parts';
import type { Dist } from '../figures/run-figures';
import { esc } from '../render/svg/common';
import type { ReportSection } from './section';

const HEAD = ['cell', 'variant', 'adapter', 'requests', 'failed', 'prompt tokens', 'output tokens', 'e2e mean', 'e2e p50', 'TTFT p50'];

function rows(d: AdapterReport): string[][] {
  return d.runs.flatMap((r) =>
    r.adapters.map((a) => [
      r.cellId,
      r.variant,
      a.domain,
      String(a.ok + a.failed),
      String(a.failed),
      String(a.inputTokens),
      String(a.outputTokens),
      fmtMs(a.e2e?.avg),
      fmtMs(a.e2e?.p50),
      fmtMs(a.ttft?.p50),
    ]),
  );
}

const mixLine = (d: AdapterReport) => `LoRA adapters (ADAPTERS, drawn per request from SEED): ${d.mix.map((a) => `${a.name} ×${a.weight}`).join(', ')}.`;

function title(d: AdapterReport): string {
  const as = new Set(d.comparisons.map((c) => c.a));
  const c = d.comparisons[0];
  return as.size > 1 ? `each variant vs ${display(c.b)} by adapter` : `${display(c.a)} vs ${display(c.b)} by adapter`;
}

const levelNote = (d: AdapterReport) =>
  `mean e2e latency, ${(d.comparisons[0].level * 100).toFixed(d.comparisons[0].level > 0.95 ? 1 : 0)}% bootstrap interval`;

function text(d: AdapterReport): string[] {
  const out = ['', mixLine(d), 'By adapter:', table(HEAD, rows(d), 3)];
  if (d.comparisons.length) out.push(`${title(d)} (${levelNote(d)}):`, ...d.comparisons.map((c) => `  ${c.verdict}`));
  return out;
}

function markdown(d: AdapterReport): string[] {
  const out = ['## By adapter', '', mixLine(d), '', mdTable(HEAD, rows(d)), ''];
  if (d.comparisons.length) out.push(`### ${title(d)}`, '', `${levelNote(d)}.`, '', ...d.comparisons.map((c) => `- ${c.verdict}`), '');
  return out;
}

function html(d: AdapterReport): string {
  const cell = (v: string, i: number, tag: 'td' | 'th') => `<${tag}${i >= 3 ? ' class="n"' : ''}>${esc(v)}</${tag}>`;
  const tableHtml =
    `<div class="scroll"><table class="runs"><thead><tr>${HEAD.map((h, i) => cell(h, i, 'th')).join('')}</tr></thead>` +
    `<tbody>${rows(d)
      .map((r) => `<tr>${r.map((v, i) => cell(v, i, 'td')).join('')}</tr>`)
      .join('')}</tbody></table></div>`;
  const verdicts = d.comparisons.length
    ? `<h3>${esc(title(d))}</h3><p class="meta">${esc(levelNote(d))}.</p><ul class="verdicts">` +
      `${d.comparisons.map((c) => `<li>${esc(c.verdict)}</li>`).join('')}</ul>`
    : '';
  return htmlSection('By adapter', `<p class="meta">${esc(mixLine(d))}</p>${verdicts}${tableHtml}`);
}

const dj = (x: Dist | null) => (x === null ? null : { avg: x.avg, p50: x.p50, p90: x.p90, p99: x.p99, max: x.max, count: x.count });

function json(d: AdapterReport): unknown {
  return {
    mix: d.mix,
    runs: d.runs.map((r) => ({
      scenario: r.scenario,
      variant: r.variant,
      cell: r.cellId,
      adapters: r.adapters.map((a) => ({
        adapter: a.domain,
        requests: a.ok + a.failed,
        failed: a.failed,
        input_tokens: a.inputTokens,
        output_tokens: a.outputTokens,
        e2e_ms: dj(a.e2e),
        ttft_ms: dj(a.ttft),
        acceptance_length: a.acceptance,
      })),
    })),
    comparisons: d.comparisons.map((c) => ({
      cell: c.cellId,
      a: c.a,
      b: c.b,
      ci_level: c.level,
      verdict: c.verdict,
      adapters: c.domains.map((x) => ({
        adapter: x.domain,
        e2e_speedup: x.speedup?.value ?? null,
        e2e_speedup_ci: ciBounds(x.speedup?.ci),
      })),
    })),
  };
}

export const adapters: ReportSection<AdapterReport> = {
  key: 'adapters',
  jsonKey: 'adapters',
  slot: 'details',
  build: ({ cfg, plan, data, kind, where }) => adapterReport(cfg, plan, data.metrics, kind, where),
  text,
  markdown,
  html,
  json,
};
