// The Grafana dashboard: every panel's PromQL is run against a real Prometheus holding series
// named and labelled exactly as k6's remote-write output makes them (backfilled with promtool),
// and must return the series and values the synthetic runs were built with. Static checks tie
// every metric name to the catalog, every k6 selector to the testid filter, and the server panels
// to the names the servers expose.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { METRICS, promName } from '../../lib/metrics/catalog';
import { startSim } from '../../sim/index';
import { TREND_STATS } from '../../scripts/prom';
import {
  CELL_C16,
  CELL_C4,
  MAIN,
  NWAY,
  OTHER,
  RUN_S,
  SPLIT,
  STEADY_S,
  tpotP50,
  DATASET_TEST,
  type DatasetRunSpec,
  SERVERS,
  TEST_S,
  failRate,
  openMetrics,
  rampTokens,
  reqRate,
  steadyTokens,
  type RunSpec,
  type TestSpec,
} from './k6-series';
import { backfill, findBinaries, labelValues, queryInstant, queryRange, startPrometheus, type Binaries, type RunningProm, type Series } from './prometheus';

const ROOT = join(__dirname, '..', '..');
const DASHBOARD = join(ROOT, 'deploy', 'grafana', 'k6-llm-bench.json');

interface Target {
  refId: string;
  expr: string;
  legendFormat?: string;
  instant?: boolean;
  range?: boolean;
  datasource?: { type: string; uid: string };
}
interface Panel {
  id: number;
  type: string;
  title: string;
  description?: string;
  datasource?: { type: string; uid: string };
  fieldConfig?: { defaults?: { unit?: string } };
  targets?: Target[];
}
interface Variable {
  name: string;
  type: string;
  query: string | { query: string };
  multi?: boolean;
  includeAll?: boolean;
  allValue?: string;
}
interface Dashboard {
  schemaVersion: number;
  uid: string;
  panels: Panel[];
  templating: { list: Variable[] };
}

const dash = JSON.parse(readFileSync(DASHBOARD, 'utf8')) as Dashboard;
const queryPanels = dash.panels.filter((p) => p.type !== 'row');
const allTargets = queryPanels.flatMap((p) => (p.targets ?? []).map((t) => ({ panel: p, target: t })));

// k6 metrics the dashboard may use that are not in the catalog: k6's own.
const K6_BUILTINS = new Set(['k6_vus', 'k6_vus_max']);
const TIME_TRENDS = Object.values(METRICS).filter((d) => d.type === 'trend' && d.time);

function catalogNames(): Map<string, { metric: string; time: boolean }> {
  const out = new Map<string, { metric: string; time: boolean }>();
  for (const def of Object.values(METRICS)) {
    if (def.type === 'trend') for (const stat of TREND_STATS.split(',')) out.set(promName(def, stat), { metric: def.name, time: def.time });
    else out.set(promName(def), { metric: def.name, time: false });
  }
  return out;
}

/** Every series selector in an expression: name (or __name__ regex) and its matchers. */
function selectors(expr: string): { names: string[]; matchers: string[] }[] {
  const out: { names: string[]; matchers: string[] }[] = [];
  const re = /([A-Za-z_:][A-Za-z0-9_:]*)?\{([^}]*)\}/g;
  for (const m of expr.matchAll(re)) {
    const matchers = (m[2] ?? '').split(/,\s*/).filter(Boolean);
    const nameRe = matchers.find((x) => x.startsWith('__name__=~'));
    const names = m[1] ? [m[1]] : nameRe ? nameRe.slice('__name__=~"'.length, -1).split('|') : [];
    out.push({ names, matchers });
  }
  return out;
}

function metricNames(expr: string): string[] {
  return [...new Set(selectors(expr).flatMap((s) => s.names))];
}

describe('dashboard definition', () => {
  test('is a Grafana 10/11 dashboard whose panels all query the datasource variable', () => {
    assert.ok(dash.schemaVersion >= 36 && dash.schemaVersion <= 41, `schemaVersion ${dash.schemaVersion}`);
    assert.equal(dash.uid, 'k6-llm-bench');
    const ids = dash.panels.map((p) => p.id);
    assert.equal(new Set(ids).size, ids.length, 'panel ids are unique');
    assert.ok(allTargets.length >= 12, 'has the panels of the brief');
    for (const { panel, target } of allTargets) {
      assert.deepEqual(panel.datasource, { type: 'prometheus', uid: '${datasource}' }, panel.title);
      assert.deepEqual(target.datasource, { type: 'prometheus', uid: '${datasource}' }, `${panel.title} ${target.refId}`);
      assert.ok(target.expr.trim().length > 0, `${panel.title} ${target.refId} has a query`);
    }
  });

  test('template variables: datasource, testid (one test), variant and cell (multi, All = .*)', () => {
    const v = Object.fromEntries(dash.templating.list.map((x) => [x.name, x]));
    assert.equal(v.datasource?.type, 'datasource');
    assert.equal(v.datasource?.query, 'prometheus');
    assert.equal(v.testid?.multi, false, 'one test at a time: a trend stat of two tests cannot be combined');
    for (const name of ['variant', 'cell']) {
      assert.equal(v[name]?.multi, true, name);
      assert.equal(v[name]?.includeAll, true, name);
      assert.equal(v[name]?.allValue, '.*', name);
    }
    assert.equal(v.baseline?.multi, false, 'one baseline');
    assert.equal(v.baseline?.includeAll, false, 'one baseline');
    assert.equal(varQuery(v.baseline as Variable), varQuery(v.variant as Variable), "the baseline is one of the test's variants");
    for (const name of ['testid', 'variant', 'cell']) assert.match(varQuery(v[name] as Variable), new RegExp(`^label_values\\(.*, ${name}\\)$`), name);
  });

  test('every k6 metric a panel uses is in lib/metrics/catalog.ts (promName), with a documented trend stat', () => {
    const known = catalogNames();
    const used = new Set<string>();
    for (const { panel, target } of allTargets) {
      for (const name of metricNames(target.expr)) {
        used.add(name);
        if (!name.startsWith('k6_')) continue;
        assert.ok(
          known.has(name) || K6_BUILTINS.has(name),
          `${panel.title} ${target.refId}: ${name} is neither promName() of a catalog metric (stats ${TREND_STATS}) nor a k6 built-in`,
        );
      }
      // A bare name without braces would escape the selector checks below.
      const bare = target.expr.replace(/\{[^}]*\}/g, '{}').match(/\bk6_[a-z0-9_]+\b(?!\{)/g);
      assert.equal(bare, null, `${panel.title} ${target.refId}: k6 metric without a selector: ${bare?.join(', ')}`);
    }
    // The brief's panels: throughput, ratio, e2e percentiles, TTFT/ITL, errors, acceptance, requests, VUs.
    for (const name of [
      'k6_llm_output_tokens_total',
      'k6_llm_window_output_tokens_total',
      'k6_llm_e2e_p50',
      'k6_llm_e2e_p90',
      'k6_llm_e2e_p99',
      'k6_llm_ttft_p99',
      'k6_llm_itl_p99',
      'k6_llm_success_rate',
      'k6_llm_errors_total',
      'k6_llm_acceptance_length_avg',
      'k6_llm_server_acceptance_length_avg',
      'k6_llm_e2e_count',
      'k6_vus',
    ]) {
      assert.ok(used.has(name), `a panel uses ${name}`);
    }
  });

  test('every k6 selector is filtered by testid; k6_llm ones also by variant and cell', () => {
    for (const { panel, target } of allTargets) {
      for (const s of selectors(target.expr)) {
        const label = `${panel.title} ${target.refId}: {${s.matchers.join(', ')}}`;
        if (s.names.some((n) => n.startsWith('k6_'))) assert.ok(s.matchers.includes('testid="$testid"'), `${label} lacks testid="$testid"`);
        if (s.names.some((n) => n.startsWith('k6_llm_'))) {
          assert.ok(s.matchers.includes('cell=~"$cell"'), `${label} lacks cell=~"$cell"`);
          // The ratio panel divides by the baseline whatever the variant filter says.
          const baseline = s.matchers.includes('variant="$baseline"') && /ratio/i.test(panel.title);
          assert.ok(s.matchers.includes('variant=~"$variant"') || baseline, `${label} lacks variant=~"$variant"`);
          assert.ok(!s.matchers.some((m) => /^variant="[a-z]/.test(m)), `${label}: a variant named in the query (the ratio is against $baseline)`);
        }
        if (s.names.some((n) => n.includes(':'))) {
          assert.ok(
            s.matchers.includes('job="llm-server"') && s.matchers.includes('variant=~"$variant"'),
            `${label}: server series come from the llm-server job, filtered by variant`,
          );
        }
      }
    }
  });

  test('panels of time trends are in seconds, as k6 converts them; the rest are not', () => {
    const timeNames = new Set<string>();
    for (const def of TIME_TRENDS) for (const stat of TREND_STATS.split(',')) if (stat !== 'count') timeNames.add(promName(def, stat));
    for (const p of queryPanels) {
      // A query of `1 / <time trend>` is per second (the frontier's tokens/s per user), not seconds.
      const names = (p.targets ?? []).filter((t) => !t.expr.trim().startsWith('1 / ')).flatMap((t) => metricNames(t.expr));
      const unit = p.fieldConfig?.defaults?.unit;
      if (names.some((n) => timeNames.has(n))) assert.equal(unit, 's', p.title);
      else assert.notEqual(unit, 's', p.title);
    }
  });

  test('server panels use names the servers expose (the simulator /metrics of both engines, after a request)', async () => {
    const used = [...new Set(allTargets.flatMap(({ target }) => metricNames(target.expr)).filter((n) => n.includes(':')))];
    assert.ok(used.length >= 4, `server names used: ${used.join(', ')}`);
    for (const [engine, spec, prefix] of [
      ['sglang', 'dflash', 'sglang:'],
      ['vllm', 'mtp', 'vllm:'],
    ] as const) {
      const sim = await startSim({ engine, spec, port: 0, timeScale: 100 });
      try {
        const body =
          engine === 'sglang'
            ? { text: 'hello', sampling_params: { max_new_tokens: 16, ignore_eos: true } }
            : { model: sim.options.model, prompt: 'hello', max_tokens: 16, ignore_eos: true };
        const r = await fetch(`${sim.url}${engine === 'sglang' ? '/generate' : '/v1/completions'}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
        assert.equal(r.status, 200);
        await r.arrayBuffer();
        const text = await (await fetch(`${sim.url}/metrics`)).text();
        const exposed = new Set(
          text
            .split('\n')
            .filter((l) => l && !l.startsWith('#'))
            .map((l) => /^[A-Za-z_:][A-Za-z0-9_:]*/.exec(l)?.[0]),
        );
        for (const name of used.filter((n) => n.startsWith(prefix))) assert.ok(exposed.has(name), `${name} is not exposed by the ${engine} simulator`);
      } finally {
        await sim.stop();
      }
    }
  });

  test('the trend stats the dashboard needs are what scripts/prom.ts prints, npm start sets and the docs give', () => {
    const stats = TREND_STATS.split(',');
    assert.deepEqual(stats, ['p(50)', 'p(90)', 'p(99)', 'avg', 'max', 'count']);
    const usedStats = new Set(allTargets.flatMap(({ target }) => metricNames(target.expr)).flatMap((n) => /_(p50|p90|p99|avg|max|count)$/.exec(n)?.[1] ?? []));
    for (const s of usedStats) assert.ok(stats.map((x) => x.replace(/[()]/g, '')).includes(s), `stat ${s} is not in ${TREND_STATS}`);
    assert.ok(readFileSync(join(ROOT, 'scripts', 'start.ts'), 'utf8').includes(`'${TREND_STATS}'`), 'npm start --prometheus sets the same trend stats');
    assert.ok(
      readFileSync(join(ROOT, 'docs', 'prometheus.md'), 'utf8').includes(`K6_PROMETHEUS_RW_TREND_STATS='${TREND_STATS}'`),
      'docs/prometheus.md gives the same trend stats',
    );
  });
  test('docs/prometheus.md names the series of every catalog metric', () => {
    const docs = readFileSync(join(ROOT, 'docs', 'prometheus.md'), 'utf8');
    for (const def of Object.values(METRICS)) {
      const name = def.type === 'trend' ? promName(def, 'p(50)') : promName(def);
      assert.ok(docs.includes(`\`${name}\``), `${name} (${def.name}) is not in docs/prometheus.md`);
    }
  });
});

function varQuery(v: Variable): string {
  return typeof v.query === 'string' ? v.query : v.query.query;
}

// ---- Live queries -------------------------------------------------------------------------------

interface Vars {
  testid: string;
  variant: string[] | 'All';
  cell: string[] | 'All';
  baseline: string;
}
const ALL: Vars = { testid: MAIN.testid, variant: 'All', cell: 'All', baseline: 'mtp' };
const STEP = 15;
/** What Grafana substitutes for $__rate_interval with the datasource's default 15 s scrape interval. */
const RATE_INTERVAL = '1m';

/** Grafana's interpolation for Prometheus: multi values become a regex alternation, All its allValue. */
function render(expr: string, v: Vars, rangeS: number): string {
  const multi = (x: string[] | 'All') => {
    if (x === 'All') return '.*';
    const esc = x.map((s) => s.replace(/[\\^$.*+?()[\]{}|]/g, '\\\\$&'));
    return esc.length === 1 ? (esc[0] as string) : `(${esc.join('|')})`;
  };
  return expr
    .replaceAll('$testid', v.testid)
    .replaceAll('$variant', multi(v.variant))
    .replaceAll('$baseline', v.baseline)
    .replaceAll('$cell', multi(v.cell))
    .replaceAll('$domain', '.+')
    .replaceAll('$__rate_interval', RATE_INTERVAL)
    .replaceAll('$__range', `${rangeS}s`);
}

const bins = findBinaries();
const skip = typeof bins === 'string' ? bins : false;
if (skip) console.log(`# skip dashboard query tests: ${skip}`);

describe('dashboard queries on k6-shaped series in a real Prometheus', { skip }, () => {
  let dir = '';
  let prom: RunningProm;
  // Aligned to the query step so every run's check times fall on the range query's grid.
  const t0 = Math.floor(Date.now() / 1000 / 900) * 900 - 3600;
  const end = t0 + TEST_S + STEP;
  const rangeS = end - t0;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'k6-llm-bench-dash-'));
    backfill(bins as Binaries, openMetrics(t0, TEST_S + STEP), join(dir, 'data'));
    prom = await startPrometheus(bins as Binaries, dir);
  });
  after(async () => {
    await prom?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const target = (title: string, refId: string): { panel: Panel; target: Target } => {
    const found = allTargets.find((x) => x.panel.title.startsWith(title) && x.target.refId === refId);
    assert.ok(found, `panel "${title}" ${refId}`);
    return found;
  };
  /** Runs a panel query as Grafana would: instant at the range's end, or over the range. */
  async function run(title: string, refId: string, v: Vars = ALL, at = end): Promise<Series[]> {
    const t = target(title, refId).target;
    const q = render(t.expr, v, at - t0);
    return t.instant ? queryInstant(prom.base, q, at) : queryRange(prom.base, q, t0, at, STEP);
  }
  const key = (m: Record<string, string>, labels: string[]) => labels.map((l) => `${l}=${m[l] ?? ''}`).join(',');
  function seriesSet(result: Series[], labels: string[]): string[] {
    for (const s of result) {
      const extra = Object.keys(s.metric).filter((k) => !labels.includes(k));
      assert.deepEqual(extra, [], `series ${JSON.stringify(s.metric)} has labels beyond ${labels.join(', ')}`);
    }
    return result.map((s) => key(s.metric, labels)).sort();
  }
  function find(result: Series[], labels: Record<string, string>): Series {
    const s = result.find((x) => Object.entries(labels).every(([k, v]) => x.metric[k] === v));
    assert.ok(s, `no series ${JSON.stringify(labels)} among ${result.map((x) => JSON.stringify(x.metric)).join(' ')}`);
    return s;
  }
  function valueAt(s: Series, t: number): number {
    const p = s.values.find(([ts]) => ts === t);
    assert.ok(p, `${JSON.stringify(s.metric)} has no value at +${t - t0}s`);
    return p[1];
  }
  function near(actual: number, expected: number, what: string, rel = 0.01): void {
    const ok = expected === 0 ? Math.abs(actual) < 1e-9 : Math.abs(actual - expected) <= Math.abs(expected) * rel;
    assert.ok(ok, `${what}: got ${actual}, expected ${expected} ±${rel * 100}%`);
  }
  /** Check times inside a run, late enough that a 1m rate window holds only that run's samples. */
  const checkTimes = (r: RunSpec) => [t0 + r.start + 90, t0 + r.start + RUN_S - 15];
  const runName = (r: RunSpec) => `${r.variant} ${r.cell.id}`;
  const cells = [CELL_C4.id, CELL_C16.id];
  const variantCell = (test: TestSpec = MAIN) => test.runs.map((r) => `variant=${r.variant},cell=${r.cell.id}`).sort();

  test('template variables offer the tests, variants and cells present', async () => {
    const v = Object.fromEntries(dash.templating.list.map((x) => [x.name, x]));
    const lv = async (name: string, vars: Vars) => {
      const m = /^label_values\((.*), (\w+)\)$/.exec(render(varQuery(v[name] as Variable), vars, rangeS));
      assert.ok(m, name);
      return labelValues(prom.base, m[1] as string, m[2] as string, t0, end);
    };
    assert.deepEqual(await lv('testid', ALL), [MAIN.testid, OTHER.testid, SPLIT.testid, DATASET_TEST.testid, NWAY.testid].sort());
    assert.deepEqual(await lv('baseline', { ...ALL, testid: NWAY.testid }), ['dflash', 'mtp', 'none']);
    assert.deepEqual(await lv('domain', { ...ALL, testid: DATASET_TEST.testid }), ['chat', 'code']);
    assert.deepEqual(await lv('domain', ALL), [], 'a run without DATASET has no domain');
    assert.deepEqual(await lv('variant', ALL), ['dflash', 'mtp']);
    assert.deepEqual(await lv('cell', ALL), [...cells].sort());
    assert.deepEqual(await lv('cell', { ...ALL, variant: ['mtp'] }), [...cells].sort());
  });

  // The DATASET test's panels (domain and turn): queried with its testid.
  const DSV: Vars = { ...ALL, testid: DATASET_TEST.testid };
  const DATASET_PANELS = [
    'Mean end-to-end latency by domain',
    'Acceptance length by domain',
    'Output throughput by domain',
    'Time to first token by turn',
    'Prompt tokens served from cache by turn',
  ];
  const varsFor = (title: string): Vars => (DATASET_PANELS.some((p) => title.startsWith(p)) ? DSV : ALL);
  const dsTimes = (r: DatasetRunSpec) => [t0 + r.start + 90, t0 + r.start + RUN_S - 15];
  const dsRuns = DATASET_TEST.runs;

  // One entry per panel query; the next test fails when a query has none.
  const CHECKS: Record<string, Record<string, () => Promise<void>>> = {
    'Mean end-to-end latency by domain': {
      A: async () => {
        const r = await run('Mean end-to-end latency by domain', 'A', DSV);
        assert.deepEqual(
          seriesSet(r, ['variant', 'cell', 'domain']),
          dsRuns.flatMap((x) => x.domains.map((d) => `variant=${x.variant},cell=${x.cell.id},domain=${d.domain}`)).sort(),
        );
        for (const x of dsRuns)
          for (const d of x.domains)
            for (const t of dsTimes(x)) near(valueAt(find(r, { variant: x.variant, domain: d.domain }), t), d.e2eAvg, `${x.variant} ${d.domain} e2e`);
        assert.deepEqual(await run('Mean end-to-end latency by domain', 'A'), [], 'a run without DATASET: no domain series');
      },
    },
    'Acceptance length by domain': {
      A: async () => {
        const r = await run('Acceptance length by domain', 'A', DSV);
        const dflash = dsRuns.find((x) => x.variant === 'dflash') as DatasetRunSpec;
        assert.deepEqual(
          seriesSet(r, ['variant', 'domain']),
          dflash.domains.map((d) => `variant=dflash,domain=${d.domain}`).sort(),
          'vLLM reports no acceptance per request',
        );
        for (const d of dflash.domains)
          near((find(r, { domain: d.domain }).values.at(-1) as [number, number])[1], d.acceptanceTokens as number, `dflash ${d.domain} acceptance`);
      },
    },
    'Output throughput by domain': {
      A: async () => {
        const r = await run('Output throughput by domain', 'A', DSV);
        assert.deepEqual(seriesSet(r, ['variant', 'domain']), [
          'variant=dflash,domain=chat',
          'variant=dflash,domain=code',
          'variant=mtp,domain=chat',
          'variant=mtp,domain=code',
        ]);
        for (const x of dsRuns)
          for (const d of x.domains)
            for (const t of dsTimes(x)) near(valueAt(find(r, { variant: x.variant, domain: d.domain }), t), d.tps, `${x.variant} ${d.domain} tokens/s`);
      },
    },
    'Time to first token by turn': {
      A: async () => {
        const r = await run('Time to first token by turn', 'A', DSV);
        assert.deepEqual(
          seriesSet(r, ['variant', 'cell', 'turn']),
          dsRuns.flatMap((x) => x.turns.map((u) => `variant=${x.variant},cell=${x.cell.id},turn=${u.turn}`)).sort(),
        );
        for (const x of dsRuns)
          for (const u of x.turns)
            for (const t of dsTimes(x)) near(valueAt(find(r, { variant: x.variant, turn: u.turn }), t), u.ttftP50, `${x.variant} turn ${u.turn} TTFT`);
      },
    },
    'Prompt tokens served from cache by turn': {
      A: async () => {
        const r = await run('Prompt tokens served from cache by turn', 'A', DSV);
        assert.deepEqual(seriesSet(r, ['variant', 'turn']), dsRuns.flatMap((x) => x.turns.map((u) => `variant=${x.variant},turn=${u.turn}`)).sort());
        for (const x of dsRuns)
          for (const u of x.turns)
            for (const t of dsTimes(x))
              near(valueAt(find(r, { variant: x.variant, turn: u.turn }), t), u.cachedShare, `${x.variant} turn ${u.turn} cached share`);
      },
    },
    'Output throughput ratio': {
      A: async () => {
        const r = await run('Output throughput ratio', 'A');
        assert.deepEqual(seriesSet(r, ['variant', 'cell']), cells.map((c) => `variant=dflash,cell=${c}`).sort());
        for (const cell of [CELL_C4, CELL_C16]) {
          const d = MAIN.runs.find((x) => x.variant === 'dflash' && x.cell === cell) as RunSpec;
          const m = MAIN.runs.find((x) => x.variant === 'mtp' && x.cell === cell) as RunSpec;
          const expected = d.tps / m.tps;
          // The data are built so that counting the ramp-up slice would give a visibly different answer.
          const withRamp = (steadyTokens(d) + rampTokens(d)) / (steadyTokens(m) + rampTokens(m));
          assert.ok(Math.abs(withRamp - expected) / expected > 0.02, 'test data distinguish the steady window');
          near(valueAt(find(r, { cell: cell.id }), end), expected, `ratio ${cell.id}`);
        }
        // While the second cell's dflash run has not happened yet, that cell has no ratio.
        const mid = t0 + (MAIN.runs[2] as RunSpec).start + 90;
        const partial = await run('Output throughput ratio', 'A', ALL, mid);
        assert.deepEqual(seriesSet(partial, ['variant', 'cell']), [`variant=dflash,cell=${CELL_C4.id}`]);
        // The other way round with the other baseline.
        const inverse = await run('Output throughput ratio', 'A', { ...ALL, baseline: 'dflash' });
        assert.deepEqual(seriesSet(inverse, ['variant', 'cell']), cells.map((c) => `variant=mtp,cell=${c}`).sort());
        near(valueAt(find(inverse, { cell: CELL_C4.id }), end), 300 / 600, 'mtp ÷ dflash at c4');
        // N variants: each against the baseline, only in the cells both ran.
        const nway = await run('Output throughput ratio', 'A', { ...ALL, testid: NWAY.testid, baseline: 'none' });
        assert.deepEqual(seriesSet(nway, ['variant', 'cell']), [`variant=dflash,cell=${CELL_C4.id}`, `variant=mtp,cell=${CELL_C4.id}`]);
        near(valueAt(find(nway, { variant: 'dflash' }), end), 600 / 250, 'dflash ÷ none');
        near(valueAt(find(nway, { variant: 'mtp' }), end), 400 / 250, 'mtp ÷ none');
        const picked = await run('Output throughput ratio', 'A', { ...ALL, testid: NWAY.testid, baseline: 'none', variant: ['mtp'] });
        assert.deepEqual(seriesSet(picked, ['variant', 'cell']), [`variant=mtp,cell=${CELL_C4.id}`], 'the variant filter picks the bars');
      },
      B: async () => {
        const r = await run('Output throughput ratio', 'B');
        assert.deepEqual(seriesSet(r, ['variant']), ['variant=dflash']);
        const sum = (v: string) => MAIN.runs.filter((x) => x.variant === v).reduce((a, x) => a + steadyTokens(x), 0);
        near(valueAt(r[0] as Series, end), sum('dflash') / sum('mtp'), 'overall ratio');
        const c4 = await run('Output throughput ratio', 'B', { ...ALL, cell: [CELL_C4.id] });
        near(valueAt(c4[0] as Series, end), 2, 'overall ratio of c4 alone');
        // Mid-test, a cell whose mtp run is done but dflash run is not yet must not enter the sum.
        const mid = t0 + (MAIN.runs[2] as RunSpec).start + 90;
        const partial = await run('Output throughput ratio', 'B', ALL, mid);
        near(valueAt(partial[0] as Series, mid), 2, 'overall ratio mid-test (complete cells only)');
        // N variants: the baseline's c16 run has no partner, so it does not enter any variant's sum.
        const nway = await run('Output throughput ratio', 'B', { ...ALL, testid: NWAY.testid, baseline: 'none' });
        assert.deepEqual(seriesSet(nway, ['variant']), ['variant=dflash', 'variant=mtp']);
        near(valueAt(find(nway, { variant: 'dflash' }), end), 600 / 250, 'dflash ÷ none over complete cells');
        near(valueAt(find(nway, { variant: 'mtp' }), end), 400 / 250, 'mtp ÷ none over complete cells');
      },
    },
    'Acceptance length per cell': {
      A: async () => {
        const r = await run('Acceptance length per cell', 'A');
        const runs = MAIN.runs.filter((x) => x.acceptanceMean !== null);
        assert.deepEqual(seriesSet(r, ['variant', 'cell']), runs.map((x) => `variant=${x.variant},cell=${x.cell.id}`).sort());
        for (const x of runs) near(valueAt(find(r, { variant: x.variant, cell: x.cell.id }), end), x.acceptanceMean as number, runName(x));
      },
      B: async () => {
        const r = await run('Acceptance length per cell', 'B');
        const runs = MAIN.runs.filter((x) => x.acceptanceTokens !== null);
        assert.deepEqual(seriesSet(r, ['variant', 'cell']), runs.map((x) => `variant=${x.variant},cell=${x.cell.id}`).sort());
        for (const x of runs) near(valueAt(find(r, { variant: x.variant, cell: x.cell.id }), end), x.acceptanceTokens as number, runName(x));
      },
      C: async () => {
        const r = await run('Acceptance length per cell', 'C');
        assert.deepEqual(seriesSet(r, ['variant', 'cell']), variantCell());
        for (const x of MAIN.runs) near(valueAt(find(r, { variant: x.variant, cell: x.cell.id }), end), x.serverAcceptance as number, runName(x));
      },
    },
    'Time to first answer token': Object.fromEntries(
      (
        [
          ['A', 'answer', 'p50'],
          ['B', 'answer', 'p99'],
          ['C', 'first', 'p50'],
        ] as const
      ).map(([ref, kind, p]) => [
        ref,
        async () => {
          const r = await run('Time to first answer token', ref);
          const reasoned = MAIN.runs.filter((x) => x.reasoning);
          assert.deepEqual(
            seriesSet(r, ['variant', 'cell']),
            reasoned.map((x) => `variant=${x.variant},cell=${x.cell.id}`).sort(),
            'only runs whose replies reasoned',
          );
          for (const x of reasoned)
            for (const t of checkTimes(x))
              near(valueAt(find(r, { variant: x.variant, cell: x.cell.id }), t), x.reasoning![kind][p], `${runName(x)} ${kind} ${p}`);
        },
      ]),
    ),
    'Reasoning and answer tokens per second': Object.fromEntries(
      (
        [
          ['A', 'reasoningTps'],
          ['B', 'answerTps'],
        ] as const
      ).map(([ref, field]) => [
        ref,
        async () => {
          const r = await run('Reasoning and answer tokens per second', ref);
          const reasoned = MAIN.runs.filter((x) => x.reasoning);
          assert.deepEqual(seriesSet(r, ['variant']), [...new Set(reasoned.map((x) => `variant=${x.variant}`))].sort());
          for (const x of reasoned)
            for (const t of checkTimes(x)) near(valueAt(find(r, { variant: x.variant }), t), x.reasoning![field], `${runName(x)} ${field}`);
        },
      ]),
    ),
    'Output throughput (tokens/s)': {
      A: async () => {
        const r = await run('Output throughput (tokens/s)', 'A');
        assert.deepEqual(seriesSet(r, ['variant']), ['variant=dflash', 'variant=mtp']);
        for (const x of MAIN.runs) for (const t of checkTimes(x)) near(valueAt(find(r, { variant: x.variant }), t), x.tps, `${runName(x)} at +${t - t0}s`);
      },
    },
    'Requests per second': {
      A: async () => {
        const r = await run('Requests per second', 'A');
        assert.deepEqual(seriesSet(r, ['variant']), ['variant=dflash', 'variant=mtp']);
        for (const x of MAIN.runs) for (const t of checkTimes(x)) near(valueAt(find(r, { variant: x.variant }), t), reqRate(x), runName(x));
      },
      B: async () => {
        const r = await run('Requests per second', 'B');
        assert.deepEqual(seriesSet(r, ['variant']), ['variant=dflash', 'variant=mtp']);
        for (const x of MAIN.runs.filter((y) => y.errorRate > 0))
          for (const t of checkTimes(x)) near(valueAt(find(r, { variant: x.variant }), t), failRate(x), runName(x));
      },
    },
    'End-to-end latency': Object.fromEntries(
      (['p50', 'p90', 'p99'] as const).map((p, i) => [
        'ABC'[i] as string,
        async () => {
          const r = await run('End-to-end latency', 'ABC'[i] as string);
          assert.deepEqual(seriesSet(r, ['variant', 'cell']), variantCell());
          for (const x of MAIN.runs)
            for (const t of checkTimes(x)) near(valueAt(find(r, { variant: x.variant, cell: x.cell.id }), t), x.e2e[p], `${runName(x)} ${p}`);
        },
      ]),
    ),
    'Concurrency (VUs)': {
      A: async () => {
        const r = await run('Concurrency (VUs)', 'A');
        assert.deepEqual(seriesSet(r, []), ['']);
        for (const x of MAIN.runs) for (const t of checkTimes(x)) assert.equal(valueAt(r[0] as Series, t), x.cell.concurrency, runName(x));
      },
      B: async () => {
        const r = await run('Concurrency (VUs)', 'B');
        assert.deepEqual(seriesSet(r, []), ['']);
        assert.equal(valueAt(r[0] as Series, t0 + 60), MAIN.vusMax);
      },
    },
    ...Object.fromEntries(
      (['ttft', 'itl'] as const).map((m) => [
        m === 'ttft' ? 'Time to first token' : 'Inter-token latency',
        Object.fromEntries(
          (['p50', 'p90', 'p99'] as const).map((p, i) => [
            'ABC'[i] as string,
            async () => {
              const title = m === 'ttft' ? 'Time to first token' : 'Inter-token latency';
              const r = await run(title, 'ABC'[i] as string);
              assert.deepEqual(seriesSet(r, ['variant', 'cell']), variantCell());
              for (const x of MAIN.runs)
                for (const t of checkTimes(x))
                  near(valueAt(find(r, { variant: x.variant, cell: x.cell.id }), t), (x[m] as NonNullable<RunSpec['ttft']>)[p], `${runName(x)} ${m} ${p}`);
              // The other test used the http transport: no TTFT/ITL series at all.
              assert.deepEqual(await run(title, 'ABC'[i] as string, { ...ALL, testid: OTHER.testid }), []);
            },
          ]),
        ),
      ]),
    ),
    'Error rate': {
      A: async () => {
        const r = await run('Error rate', 'A');
        assert.deepEqual(seriesSet(r, ['variant', 'cell']), variantCell());
        for (const x of MAIN.runs) for (const t of checkTimes(x)) near(valueAt(find(r, { variant: x.variant, cell: x.cell.id }), t), x.errorRate, runName(x));
      },
    },
    'Errors by class': {
      A: async () => {
        const r = await run('Errors by class', 'A');
        const failing = MAIN.runs.filter((x) => x.errorRate > 0);
        assert.deepEqual(seriesSet(r, ['variant', 'error_class']), failing.map((x) => `variant=${x.variant},error_class=${x.errorClass}`).sort());
        for (const x of failing)
          for (const t of checkTimes(x)) near(valueAt(find(r, { variant: x.variant, error_class: x.errorClass as string }), t), failRate(x), runName(x));
      },
    },
    'Server output throughput': {
      A: async () => {
        const r = await run('Server output throughput', 'A');
        assert.deepEqual(
          seriesSet(r, ['variant', 'instance']),
          [`variant=dflash,instance=${SERVERS.dflash.instance}`, `variant=mtp,instance=${SERVERS.mtp.instance}`].sort(),
        );
        for (const x of MAIN.runs) {
          for (const t of checkTimes(x)) {
            near(valueAt(find(r, { variant: x.variant }), t), x.tps, `${runName(x)} server`);
            near(valueAt(find(r, { variant: x.variant === 'dflash' ? 'mtp' : 'dflash' }), t), 0, `idle server during ${runName(x)}`);
          }
        }
      },
    },
    'Cost per million output tokens per cell': {
      A: async () => {
        const title = 'Cost per million output tokens per cell';
        // $/Mtok = GPU_HOUR_COST × GPUS ÷ (steady tokens/s × 3600) × 1e6, as the report computes it.
        const expected = (x: RunSpec) => ((x.price!.gpuHourCost as number) * x.price!.gpus * 1e6) / (x.tps * 3600);
        for (const test of [MAIN, SPLIT]) {
          const r = await run(title, 'A', { ...ALL, testid: test.testid });
          assert.deepEqual(seriesSet(r, ['variant', 'cell']), variantCell(test));
          for (const x of test.runs) near(valueAt(find(r, { variant: x.variant, cell: x.cell.id }), end), expected(x), `${test.testid} ${runName(x)} $/Mtok`);
        }
        assert.ok(Math.abs(STEADY_S - 120) < 1e-9, 'four 30 s slices after the ramp-up');
        assert.deepEqual(await run(title, 'A', { ...ALL, testid: OTHER.testid }), [], 'GPU_HOUR_COST unset: no cost series, never 0');
      },
    },
    'Energy per output token (J/token) per variant and cell': {
      A: async () => {
        const title = 'Energy per output token (J/token) per variant and cell';
        // J/token = the steady slices' joules (watts × slice length each) ÷ their output tokens (tps × slice length each).
        for (const test of [MAIN, SPLIT]) {
          const r = await run(title, 'A', { ...ALL, testid: test.testid });
          assert.deepEqual(seriesSet(r, ['variant', 'cell']), variantCell(test));
          for (const x of test.runs)
            near(valueAt(find(r, { variant: x.variant, cell: x.cell.id }), end), x.gpu!.watts / x.tps, `${test.testid} ${runName(x)} J/token`);
        }
        assert.deepEqual(await run(title, 'A', { ...ALL, testid: OTHER.testid }), [], 'GPU_METRICS_URL unset: no energy series, never 0');
      },
    },
    'Mean GPU power per variant': {
      A: async () => {
        for (const test of [MAIN, SPLIT]) {
          const r = await run('Mean GPU power per variant', 'A', { ...ALL, testid: test.testid });
          assert.deepEqual(seriesSet(r, ['variant']), ['variant=dflash', 'variant=mtp']);
          for (const x of test.runs) near(valueAt(find(r, { variant: x.variant }), end), x.gpu!.watts, `${test.testid} ${x.variant} W`);
        }
        assert.deepEqual(await run('Mean GPU power per variant', 'A', { ...ALL, testid: OTHER.testid }), [], 'GPU_METRICS_URL unset: no power series');
      },
    },
    'Throughput vs interactivity per cell': {
      A: async () => {
        const r = await run('Throughput vs interactivity per cell', 'A');
        assert.deepEqual(seriesSet(r, ['variant', 'cell']), variantCell());
        for (const x of MAIN.runs) near(valueAt(find(r, { variant: x.variant, cell: x.cell.id }), end), 1 / tpotP50(x), `${runName(x)} tokens/s per user`);
        assert.deepEqual(await run('Throughput vs interactivity per cell', 'A', { ...ALL, testid: OTHER.testid }), [], 'http transport: no TPOT');
      },
      B: async () => {
        for (const test of [MAIN, SPLIT, OTHER]) {
          const r = await run('Throughput vs interactivity per cell', 'B', { ...ALL, testid: test.testid });
          assert.deepEqual(seriesSet(r, ['variant', 'cell']), variantCell(test));
          // OTHER left GPUS unset: per deployment (one GPU).
          for (const x of test.runs)
            near(valueAt(find(r, { variant: x.variant, cell: x.cell.id }), end), x.tps / x.price!.gpus, `${test.testid} ${runName(x)} tokens/s per GPU`);
        }
      },
    },
    'Server acceptance length': {
      A: async () => {
        const r = await run('Server acceptance length', 'A');
        assert.deepEqual(seriesSet(r, ['variant', 'instance']), [`variant=dflash,instance=${SERVERS.dflash.instance}`]);
        for (const x of MAIN.runs.filter((y) => y.variant === 'dflash'))
          for (const t of checkTimes(x)) near(valueAt(r[0] as Series, t), x.serverAcceptance as number, runName(x));
      },
      B: async () => {
        const r = await run('Server acceptance length', 'B');
        assert.deepEqual(seriesSet(r, ['variant', 'instance']), [`variant=mtp,instance=${SERVERS.mtp.instance}`]);
        for (const x of MAIN.runs.filter((y) => y.variant === 'mtp'))
          for (const t of checkTimes(x)) near(valueAt(r[0] as Series, t), x.serverAcceptance as number, runName(x));
      },
    },
  };

  test('every panel query has a check here', () => {
    const have = allTargets.map(({ panel, target }) => {
      const k = Object.keys(CHECKS).find((title) => panel.title.startsWith(title));
      return `${k ?? panel.title} ${target.refId}${k && CHECKS[k]?.[target.refId] ? '' : ' (missing)'}`;
    });
    assert.deepEqual(
      have.filter((h) => h.endsWith('(missing)')),
      [],
    );
    assert.equal(
      Object.values(CHECKS).reduce((a, c) => a + Object.keys(c).length, 0),
      allTargets.length,
      'no check for a query that no longer exists',
    );
  });

  for (const [title, refs] of Object.entries(CHECKS)) {
    for (const [refId, check] of Object.entries(refs)) test(`panel "${title}" ${refId}`, check);
  }

  test('every legend names only labels its query returns', async () => {
    for (const { panel, target } of allTargets) {
      const labels = [...(target.legendFormat ?? '').matchAll(/\{\{\s*(\w+)\s*\}\}/g)].map((m) => m[1] as string);
      const r = await run(panel.title, target.refId, varsFor(panel.title));
      assert.ok(r.length > 0, `${panel.title} ${target.refId} returns series`);
      for (const s of r)
        for (const l of labels) assert.ok(l in s.metric, `${panel.title} ${target.refId}: legend {{${l}}} but series ${JSON.stringify(s.metric)}`);
    }
  });

  test('the testid filter: the other test gives its own numbers', async () => {
    const other: Vars = { ...ALL, testid: OTHER.testid };
    const tput = await run('Output throughput (tokens/s)', 'A', other);
    for (const x of OTHER.runs) for (const t of checkTimes(x)) near(valueAt(find(tput, { variant: x.variant }), t), x.tps, `other ${runName(x)}`);
    const err = await run('Error rate', 'A', other);
    for (const x of OTHER.runs)
      near(valueAt(find(err, { variant: x.variant, cell: x.cell.id }), checkTimes(x)[0] as number), x.errorRate, `other ${runName(x)}`);
    const vus = await run('Concurrency (VUs)', 'B', other);
    assert.equal(valueAt(vus[0] as Series, t0 + 60), OTHER.vusMax);
  });

  test('one run over two k6 instances (segment tag): the panels show the whole run, as for one instance', async () => {
    const split: Vars = { ...ALL, testid: SPLIT.testid };
    const tput = await run('Output throughput (tokens/s)', 'A', split);
    for (const x of SPLIT.runs)
      for (const t of checkTimes(x)) near(valueAt(find(tput, { variant: x.variant }), t), x.tps, `split ${runName(x)} throughput sums the instances`);
    const one = await run('Output throughput ratio', 'A', ALL);
    const two = await run('Output throughput ratio', 'A', split);
    for (const c of cells)
      near((find(two, { cell: c }).values.at(-1) as [number, number])[1], (find(one, { cell: c }).values.at(-1) as [number, number])[1], `ratio at ${c}`);
    const errs = await run('Errors by class', 'A', split);
    for (const x of SPLIT.runs.filter((r) => r.errorClass !== null))
      near(
        valueAt(find(errs, { variant: x.variant, error_class: x.errorClass as string }), checkTimes(x)[0] as number),
        failRate(x),
        `split ${runName(x)} errors`,
      );
    const p99 = await run('End-to-end latency', 'C', split);
    for (const x of SPLIT.runs)
      near(valueAt(find(p99, { variant: x.variant, cell: x.cell.id }), checkTimes(x)[1] as number), x.e2e.p99, `split ${runName(x)} p99 (max over instances)`);
    const acc = await run('Acceptance length per cell', 'B', split);
    for (const x of SPLIT.runs.filter((r) => r.acceptanceTokens !== null))
      near(
        (find(acc, { variant: x.variant, cell: x.cell.id }).values.at(-1) as [number, number])[1],
        x.acceptanceTokens as number,
        `split ${runName(x)} acceptance`,
      );
  });

  test('the variant and cell filters reach every k6 panel', async () => {
    for (const { panel, target } of allTargets) {
      const r = await run(panel.title, target.refId, { ...ALL, variant: ['dflash'] });
      for (const s of r) if ('variant' in s.metric) assert.equal(s.metric.variant, 'dflash', `${panel.title} ${target.refId}`);
      const c = await run(panel.title, target.refId, { ...ALL, cell: [CELL_C4.id] });
      for (const s of c) if ('cell' in s.metric) assert.equal(s.metric.cell, CELL_C4.id, `${panel.title} ${target.refId}`);
    }
    // Panels without a cell label: throughput has no value while only c16 runs load.
    const tput = await run('Output throughput (tokens/s)', 'A', { ...ALL, cell: [CELL_C4.id] });
    const c16 = MAIN.runs.filter((x) => x.cell === CELL_C16);
    for (const x of c16)
      for (const t of checkTimes(x))
        for (const s of tput)
          assert.equal(
            s.values.find(([ts]) => ts === t),
            undefined,
            `c4-only throughput at ${runName(x)}`,
          );
    // Two values become a regex alternation.
    const both = await run('End-to-end latency', 'C', { ...ALL, cell: [CELL_C4.id, CELL_C16.id], variant: ['dflash', 'mtp'] });
    assert.deepEqual(seriesSet(both, ['variant', 'cell']), variantCell());
  });
});
