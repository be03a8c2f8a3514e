import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { display } from '../../../lib/report/figures/ab-comparison';
import { renderHtml } from '../../../lib/report/render/html-report';
import { esc } from '../../../lib/report/render/svg/common';
import { ALL, abReport, arrivalReport, dist, oneTargetDownReport, rampReport, setupFailedReport, sseReport } from '../../fixtures/report/reports';

const rendered = Object.fromEntries(Object.entries(ALL).map(([k, f]) => [k, renderHtml(f())]));

const count = (html: string, re: RegExp) => (html.match(re) ?? []).length;
const svgs = (html: string) => html.match(/<svg[\s\S]*?<\/svg>/g) ?? [];
const attr = (tag: string, name: string) => {
  const m = tag.match(new RegExp(`\\s${name}="([^"]*)"`));
  return m ? m[1] : null;
};

test('no preflight box when preflight passed', () => {
  for (const name of ['ab', 'ramp', 'sse', 'one-down']) assert.doesNotMatch(rendered[name], /box preflight/, name);
});

test('every fixture renders balanced main tags, with no scripts or external resources', () => {
  for (const [name, html] of Object.entries(rendered)) {
    assert.match(html, /^<!doctype html>/, name);
    for (const tag of ['html', 'head', 'body', 'main', 'section', 'figure', 'table', 'thead', 'tbody', 'tr', 'svg', 'g', 'ul', 'div', 'style']) {
      const open = count(html, new RegExp(`<${tag}[\\s>]`, 'g'));
      const close = count(html, new RegExp(`</${tag}>`, 'g'));
      assert.equal(open, close, `${name}: ${open} <${tag}> vs ${close} </${tag}>`);
    }
    assert.doesNotMatch(html, /<script|<link|<img|<iframe|@import|url\(|\ssrc=|\shref=/i, name);
    assert.doesNotMatch(html, /NaN|undefined|Infinity|\[object/, `${name}: a broken value leaked into the page`);
  }
});

test('every variant label and every verdict appears, with a badge class from the ratio interval', () => {
  const r = abReport();
  const html = renderHtml(r);
  for (const t of r.variants) assert.ok(html.includes(esc(display(t.variant))), t.variant);
  for (const c of r.comparisons) assert.ok(html.includes(esc(c.verdict)), c.verdict);
  // 1.5 [1.41, 1.6] and 1.2 [1.1, 1.3]: A; 1.02 [0.95, 1.09]: no difference; 0.8 [0.74, 0.86]: B.
  const classes = [...html.matchAll(/<li data-verdict="([a-z-]+)">/g)].map((m) => m[1]);
  assert.deepEqual(classes, ['a', 'a', 'same', 'b']);
  assert.match(html, /class="badge a"[^>]*>DFlash faster</);
  assert.match(html, /class="badge b"[^>]*>MTP faster</);
  assert.match(html, /class="badge same">no significant difference</);
});

test('A/B: the speedup chart, throughput and latency charts are drawn', () => {
  const html = rendered.ab;
  assert.equal(count(html, /<svg class="chart interval"/g), 2, 'throughput ratio and e2e speedup');
  // Two ISL/OSL panels of throughput vs concurrency, two load panels of latency vs ISL.
  assert.equal(count(html, /<svg class="chart line"/g), 4);
  assert.match(html, /Output throughput vs concurrency — ISL 1024 · OSL 256/);
  assert.match(html, /End-to-end latency vs ISL — OSL 256 · c=32/);
  assert.match(html, /class="band"/, 'the throughput interval is drawn as a band');
});

test('speedup chart: the 1× reference line lies between the 0.8× and the 1.5× cells, points ordered by ratio', () => {
  const chart = svgs(rendered.ab).find((s) => s.includes('class="chart interval"')) as string;
  const ref = chart.match(/<line class="ref"[^>]*>/)?.[0] as string;
  assert.equal(attr(ref, 'data-v'), '1');
  const xRef = Number(attr(ref, 'x1'));
  const cx = (key: string) => {
    const dot = chart.match(new RegExp(`<circle class="pt" data-key="${key}"[^>]*>`))?.[0];
    assert.ok(dot, key);
    return Number(attr(dot, 'cx'));
  };
  const slow = cx('i8192_o256_c32'); // 0.8×
  const same = cx('i8192_o256_c1'); // 1.02×
  const mid = cx('i1024_o256_c32'); // 1.2×
  const fast = cx('i1024_o256_c1'); // 1.5×
  assert.ok(slow < xRef && xRef < fast, `${slow} < ${xRef} < ${fast}`);
  assert.ok(same > xRef && same < mid && mid < fast);
  // Log axis: 0.8× and 1.25× are equally far from 1×, so 0.8 sits closer to 1 than 1.5 does.
  assert.ok(xRef - slow < fast - xRef);
});

test('ticks are round numbers on every axis of every chart', () => {
  let axes = 0;
  for (const [name, html] of Object.entries(rendered)) {
    for (const g of html.match(/<g class="axis [xy]"[^>]*>[\s\S]*?<\/g>/g) ?? []) {
      axes++;
      const style = attr(g.slice(0, g.indexOf('>') + 1), 'data-ticks');
      const ticks = [...g.matchAll(/class="tick" data-v="([^"]+)"/g)].map((m) => Number(m[1]));
      assert.ok(ticks.length >= 2, `${name}: axis with ${ticks.length} labelled ticks`);
      const mantissa = (v: number) => Number((Math.abs(v) / Math.pow(10, Math.floor(Math.log10(Math.abs(v))))).toPrecision(6));
      if (style === 'pow2') for (const t of ticks) assert.ok(Number.isInteger(Math.log2(t)), `${name}: ${t} is not a power of 2`);
      else if (style === '125') for (const t of ticks) assert.ok([1, 2, 5].includes(mantissa(t)), `${name}: ${t} not 1-2-5`);
      else {
        // Labels may be thinned, so check against the smallest gap: a 1/2/5 step, ticks on its multiples.
        const step = Math.min(...ticks.slice(1).map((t, i) => Number((t - ticks[i]).toPrecision(6))));
        assert.ok([1, 2, 5].includes(mantissa(step)), `${name}: step ${step}`);
        for (const t of ticks) assert.ok(Math.abs(t / step - Math.round(t / step)) < 1e-6, `${name}: ${t} not a multiple of ${step}`);
      }
    }
  }
  assert.ok(axes >= 20, `checked ${axes} axes`);
});

test('x tick labels never overlap (estimated text width) in the common cases', () => {
  for (const [name, html] of Object.entries(rendered)) {
    for (const g of html.match(/<g class="axis x"[^>]*>[\s\S]*?<\/g>/g) ?? []) {
      const labels = [...g.matchAll(/class="tick" data-v="[^"]+" x="([^"]+)"[^>]*>([^<]*)</g)].map((m) => ({ x: Number(m[1]), w: m[2].length * 7 }));
      for (let i = 1; i < labels.length; i++) {
        assert.ok(labels[i].x - labels[i].w / 2 > labels[i - 1].x + labels[i - 1].w / 2, `${name}: x labels ${i - 1} and ${i} overlap`);
      }
    }
  }
});

test('strings from the report are escaped: a malicious model name stays text', () => {
  const r = abReport();
  r.variants[1].model = '<script>alert("x")</script>';
  r.variants[1].url = 'http://evil/"><img src=x onerror=alert(1)>';
  r.warnings.push('</li></ul><script>bad()</script>');
  r.runs[0].variant = 'd<b>flash';
  const html = renderHtml(r);
  assert.doesNotMatch(html, /<script|<img|<b>flash/);
  assert.ok(html.includes('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;'));
  assert.ok(html.includes('&quot;&gt;&lt;img src=x onerror=alert(1)&gt;'));
});

test('http transport: "not measured" is shown and no TTFT/ITL figure appears, even if data sneaks in', () => {
  const r = abReport();
  for (const x of r.runs) {
    x.ttft = dist(4321.5);
    x.itl = dist(98.76);
  }
  const html = renderHtml(r);
  assert.match(html, /class="box notmeasured"/);
  assert.match(html, /Not measured in this test[\s\S]*TTFT, ITL and TPOT/);
  assert.doesNotMatch(html, /TTFT p50|ITL p50|TPOT p50|Time to first token/);
  // Visible text only: pixel coordinates in the SVGs may contain any digits.
  const text = html.replace(/<[^>]*>/g, ' ');
  assert.doesNotMatch(text, /4321|4\.32|8213|8\.21|98\.7|98\.8|0\.099/, 'no TTFT/ITL numbers');
  assert.doesNotMatch(html, /data-[xyv]="(4321|98\.76)/, 'nor in chart data');
  assert.match(html, /TTFT, ITL and TPOT columns are absent/);
});

test('sse: TTFT columns and charts appear; the single concurrency level skips the throughput chart and says why', () => {
  const html = renderHtml(sseReport());
  assert.doesNotMatch(html, /class="box notmeasured"/);
  assert.match(html, /TTFT p50 \(s\)/);
  assert.equal(count(html, /<figcaption>Time to first token vs ISL/g), 2);
  const skipped = html.match(/<figure class="skipped[^"]*"><figcaption>Output throughput vs concurrency<\/figcaption><p>([^<]*)</);
  assert.ok(skipped, 'throughput chart is replaced by a note');
  assert.match(skipped[1], /Only one concurrency level \(c=4\)/);
  assert.doesNotMatch(html.slice(html.indexOf('Throughput vs concurrency'), html.indexOf('<h2>Latency')), /<svg/);
  // Wide latency range: a log y axis with round 1-2-5 ticks.
  assert.match(html, /data-axis="y" data-scale="log" data-ticks="125"/);
});

test('ramp: knee marked on the chart and called out; latency falls back to vs concurrency, explained', () => {
  const r = rampReport();
  assert.equal(r.knee?.concurrency, 32);
  const html = renderHtml(r);
  assert.match(html, /<g class="mark" data-x="32">/);
  assert.match(html, /<div class="box callout"><b>Concurrency knee:<\/b> knee at c=32/);
  assert.match(html, /One input length \(ISL 1024\): showing latency vs concurrency instead/);
  assert.match(html, /data-axis="x" data-scale="log" data-ticks="pow2"/, 'concurrency 1…64 on a log2 axis');
  // The callout comes after the charts and before the table (the page's reading order).
  assert.ok(html.indexOf('Concurrency knee') > html.indexOf('<h2>Latency') && html.indexOf('Concurrency knee') < html.indexOf('Per cell and variant'));
});

test('arrival: offered rate on x, completed-vs-offered chart with its diagonal, fall-behind marked', () => {
  const r = arrivalReport();
  assert.equal(r.fallBehind?.rate, 8);
  const html = renderHtml(r);
  assert.match(html, /offered arrival rate \(requests\/s\)/);
  assert.match(html, /<line class="diagonal"/);
  assert.match(html, /<g class="mark" data-x="8">/);
  assert.match(html, /<b>Arrival rate:<\/b> falls behind at 8 req\/s/);
});

test('a variant whose setup failed: no points for it, a note why, greyed rows, errors listed', () => {
  const html = renderHtml(oneTargetDownReport());
  assert.match(html, /MTP: not plotted, no successful requests\./);
  assert.equal(count(html, /<tr class="[^"]*dead[^"]*" data-variant="mtp">/g), 3);
  assert.equal(count(html, /data-series="MTP/g), 0, 'no MTP series in any chart');
  assert.match(html, /unreachable 12/);
  assert.equal(count(html, /data-verdict="not-measured"/g), 3);
  assert.match(html, /Not measured for both variants in any cell/);
});

test('setup failed entirely / no runs / one run: no charts, each absence explained', () => {
  const failed = renderHtml(setupFailedReport());
  assert.equal(svgs(failed).length, 0);
  assert.match(failed, /<div class="box preflight"><h3>Preflight failed: no load was sent<\/h3><ul><li><b>MTP<\/b>: nothing answers at the URL/);
  assert.ok(failed.indexOf('box preflight') < failed.indexOf('box notmeasured'), 'the preflight failure comes first');
  assert.match(failed, /class="na">– not evaluated \(no samples\)<\/td><td><code>llm_success/);
  assert.doesNotMatch(failed, /✓ met|✗ missed/, 'an SLO without samples is neither met nor missed');
  assert.match(failed, /everything: preflight failed, no load was sent/);
  assert.match(failed, /<p>mtp: cannot connect to http:\/\/mtp\.gpu\.internal:30001 .*MTP_URL right\?<\/p>/, 'the whole diagnosis, not only its headline');
  assert.match(failed, /Output throughput was not measured in any run/);
  assert.match(failed, /Latency was not measured in any run/);
  const empty = rendered.empty;
  assert.equal(svgs(empty).length, 0);
  assert.match(empty, /No runs in this report\./);
  const one = rendered['one-run'];
  assert.equal(svgs(one).length, 0);
  assert.match(one, /Only one concurrency level \(c=1\)/);
  assert.match(one, /One input length \(ISL 1024\) and one load level/);
  assert.match(one, />74\.2</, 'the table still has the figure');
});

test('all throughput null but latencies measured: throughput chart skipped, latency chart drawn', () => {
  const r = rampReport();
  for (const x of r.runs) {
    x.throughput = null;
    x.throughputCi = null;
  }
  const html = renderHtml(r);
  assert.match(html, /Output throughput was not measured in any run/);
  assert.equal(count(html, /<svg class="chart line"/g), 1);
});

test('NaN and null values are shown as "–", never as numbers', () => {
  const r = abReport();
  r.runs[0].throughput = NaN;
  r.runs[0].e2e = { ...dist(1000), p50: NaN };
  r.runs[1].requestRate = null;
  const html = renderHtml(r);
  assert.doesNotMatch(html, /NaN/);
  const row = html.match(/<tr[^>]*data-variant="dflash">[\s\S]*?<\/tr>/)?.[0] as string;
  assert.match(row, /title="not measured">–/);
});

test('SLO outcomes carry ✓ and ✗', () => {
  const html = rendered.ab;
  assert.match(html, /class="ok">✓ met<\/td><td><code>llm_e2e<\/code>/);
  assert.match(html, /class="bad">✗ missed<\/td><td><code>llm_success<\/code>/);
});

test('k6 constraints: the renderers use no Node, DOM or Intl APIs', () => {
  const dir = join(__dirname, '../../../lib/report/render');
  const files = readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'));
  assert.ok(files.includes('html-report.ts') && files.includes('svg/line.ts'), files.join(', '));
  for (const f of files) {
    const src = readFileSync(join(dir, f), 'utf8').replace(/^\s*(\/\/|\*|\/\*\*).*$/gm, '');
    assert.doesNotMatch(src, /\bIntl\b|toLocale|TextEncoder|structuredClone|\brequire\(|(?<![.\w])(process|document|window)\.|from 'node:|from 'k6/, f);
  }
});
