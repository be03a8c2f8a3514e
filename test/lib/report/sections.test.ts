// A report section added the way a new one is: one file (here inline) and one entry in the list of
// lib/report/sections/index.ts. buildReport builds it once; the terminal, report.md, report.html
// and summary.json each show it, in its slot; a section that does not apply is skipped.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { renderHtml } from '../../../lib/report/render/html-report';
import { summaryJson } from '../../../lib/report/render/summary-json';
import { renderMarkdown } from '../../../lib/report/render/markdown-report';
import { renderText } from '../../../lib/report/render/text-report';
import { SECTIONS, registerSection, type ReportSection } from '../../../lib/report/sections/index';
import { rebuild } from '../../../lib/raw/rebuild';
import { rampPlan, recordUpTo, T0 } from '../raw/synthetic';

interface Busiest {
  variant: string;
  cellId: string;
  requests: number;
  of: number;
}

// The one file a new section needs: what it concludes from the runs, and how each format says it.
const busiest: ReportSection<Busiest> = {
  key: 'busiest',
  jsonKey: 'busiest_run',
  slot: 'conclusions',
  build: ({ complete }) => {
    const top = [...complete.runs].sort((a, b) => b.requests.total - a.requests.total)[0];
    return top ? { variant: top.variant, cellId: top.cellId, requests: top.requests.total, of: complete.runs.length } : null;
  },
  text: (b) => ['', `Busiest run: ${b.variant} ${b.cellId}, ${b.requests} requests (of ${b.of} runs)`],
  markdown: (b) => [`**Busiest run:** ${b.variant} ${b.cellId}, ${b.requests} requests`, ''],
  html: (b) => `<div class="box busiest"><b>Busiest run:</b> ${b.variant} ${b.cellId}</div>`,
  json: (b) => ({ variant: b.variant, cell: b.cellId, requests: b.requests }),
};

function withSection<T>(s: ReportSection<T>, body: () => void): void {
  const before = [...SECTIONS];
  registerSection(s);
  try {
    body();
  } finally {
    SECTIONS.splice(0, SECTIONS.length, ...before);
  }
}

test('a test-only section in one file and one list entry: built once, shown in the terminal, report.md, report.html and summary.json', () => {
  const { spec, cfg, plan } = rampPlan();
  withSection(busiest, () => {
    const { report } = rebuild({ rec: recordUpTo(plan, plan.totalMs + 10_000, true), closed: true }, spec, cfg, null, new Date(T0));
    const top = [...report.runs].sort((a, b) => b.requests.total - a.requests.total)[0];
    const text = renderText(report, []);
    assert.match(text, new RegExp(`\\nBusiest run: ${top.variant} ${top.cellId}, ${top.requests.total} requests \\(of 5 runs\\)\\n`));
    // In its slot: with the conclusions, after the knee (its list entry comes after the knee's).
    assert.ok(text.indexOf('Concurrency: ') < text.indexOf('Busiest run:'), text);
    const md = renderMarkdown(report);
    assert.ok(md.includes(`**Busiest run:** ${top.variant} ${top.cellId}`), md);
    assert.ok(md.indexOf('**Busiest run:**') < md.indexOf('## Per cell and variant'), 'conclusions come before the per-run table in report.md');
    const html = renderHtml(report);
    assert.ok(html.includes(`<div class="box busiest"><b>Busiest run:</b> ${top.variant} ${top.cellId}</div>`));
    assert.ok(html.indexOf('box busiest') < html.indexOf('<h2>Per cell and variant</h2>'));
    const json = JSON.parse(summaryJson(report)) as Record<string, unknown>;
    assert.deepEqual(json.busiest_run, { variant: top.variant, cell: top.cellId, requests: top.requests.total });
    const keys = Object.keys(json);
    assert.equal(keys.indexOf('busiest_run'), keys.indexOf('fall_behind') + 1, 'after the built-in conclusions, before the errors');
  });
  // Out of the list, out of every output.
  const { report } = rebuild({ rec: recordUpTo(plan, plan.totalMs + 10_000, true), closed: true }, spec, cfg, null, new Date(T0));
  assert.doesNotMatch(renderText(report, []), /Busiest run/);
  assert.equal('busiest_run' in JSON.parse(summaryJson(report)), false);
});

test('a section that does not apply to the run (build gives null) is left out of every rendering and null in summary.json', () => {
  const { spec, cfg, plan } = rampPlan();
  withSection({ ...busiest, build: () => null }, () => {
    const { report } = rebuild({ rec: recordUpTo(plan, plan.totalMs + 10_000, true), closed: true }, spec, cfg, null, new Date(T0));
    assert.doesNotMatch(renderText(report, []) + renderMarkdown(report) + renderHtml(report), /Busiest run/);
    assert.equal((JSON.parse(summaryJson(report)) as Record<string, unknown>).busiest_run, null);
  });
});

test('a run stopped early is built once: each section sees every run and draws from the complete ones alone', () => {
  const { spec, cfg, plan } = rampPlan();
  const seen: Array<{ runs: number; complete: number; cells: number }> = [];
  withSection(
    { ...busiest, build: (i) => (seen.push({ runs: i.runs.length, complete: i.complete.runs.length, cells: i.complete.cells.length }), busiest.build(i)) },
    () => {
      // Cut off 14.5 s into the runs: 2 of 5 complete, the third in flight.
      const { report, progress } = rebuild({ rec: recordUpTo(plan, 14_500), closed: false }, spec, cfg, null, new Date(T0));
      assert.deepEqual(
        progress.runs.map((r) => r.state),
        ['complete', 'complete', 'incomplete', 'not run', 'not run'],
      );
      assert.deepEqual(seen, [{ runs: 5, complete: 2, cells: 2 }], 'one build, from the 2 complete runs');
      assert.match(renderText(report, []), /Busiest run: .* \(of 2 runs\)/);
      assert.match(report.knee?.text ?? '', /c=2\b/);
      assert.doesNotMatch(report.knee?.text ?? '', /c=3/, 'the knee is drawn from the complete runs');
      assert.match(report.runs[2].notes[0], /^incomplete: the test stopped 2\.5 s into this run's 4\.0 s of load/);
    },
  );
});
