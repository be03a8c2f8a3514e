// Generates the tables of README.md (benchmarks) and of the reference pages in docs/ (variables,
// metrics, capacity settings, engines, dialects, the fault matrix) from the definitions the code and tests run, between <!-- NAME:start --> and
// <!-- NAME:end --> markers.
//   npx tsx scripts/docs.ts          rewrite the files
//   npx tsx scripts/docs.ts --check  exit 1 if one is out of date
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { VARIABLES } from '../lib/config/variables';
import { METRICS, TAGS, promName, type MetricDef, type MetricKey } from '../lib/metrics/catalog';
import { RECORDED } from '../lib/api/plan';
import { BENCHMARKS } from '../lib/benchmarks';
import { faultTable } from './fault-matrix';
import { CAPACITY_VARIABLES } from '../lib/capacity/settings';
import { ENGINES, OPENAI_COMPATIBLE } from '../lib/engines/index';
import { SERVING_SETTINGS, SERVING_SETTING_NAMES, type SettingSource } from '../lib/engines/serving-config';
import { ADAPTER_NAMING_DOCS, DIALECTS, DIALECT_NAMES, poolingRoute } from '../lib/dialects/index';
import { ENABLE, POOLING_TASKS } from '../lib/dialects/pooling';

const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');

export function benchmarksTable(): string {
  const rows = Object.values(BENCHMARKS).map((b) => `| \`dist/${b.name}.js\` | ${cell(b.question)} |`);
  return ['| bundle | answers |', '|---|---|', ...rows].join('\n');
}

export function variablesTable(): string {
  const rows = VARIABLES.map((v) => {
    const per = Object.values(BENCHMARKS)
      .filter((s) => s.defaults && v.name in s.defaults)
      .map((s) => `${s.name}: \`${s.defaults?.[v.name]}\``);
    const def = v.default === '' ? '(unset)' : `\`${v.default}\``;
    const scope = v.benchmarks ? v.benchmarks.join(', ') : 'all';
    return `| \`${v.name}\` | ${def}${per.length ? ` (${per.join('; ')})` : ''} | ${scope} | ${cell(v.help)} |`;
  });
  return ['| variable | default | benchmarks | meaning |', '|---|---|---|---|', ...rows].join('\n');
}

export function capacityTable(): string {
  const rows = CAPACITY_VARIABLES.map((v) => `| \`${v.name}\` | ${v.default === '' ? '(unset)' : `\`${v.default}\``} | ${cell(v.help)} |`);
  return ['| variable | default | meaning |', '|---|---|---|', ...rows].join('\n');
}

function series(d: MetricDef): string {
  if (d.type === 'trend') return `\`${promName(d, 'p(99)')}\`, \`_p50\`, \`_avg\` …`;
  return `\`${promName(d)}\``;
}

export function metricsTable(): string {
  const rows = Object.values(METRICS).map((d: MetricDef) => {
    const unit = d.type === 'trend' && d.time ? 'ms (seconds in Prometheus)' : d.unit;
    return `| \`${d.name}\` | ${d.type} | ${unit} | ${series(d)} | ${cell(d.help)}${d.sseOnly ? ' **sse transport only.**' : ''} |`;
  });
  const tags = Object.entries(TAGS).map(([k, v]) => `| \`${k}\` | ${cell(v)} |`);
  return ['| metric | type | unit | Prometheus series | definition |', '|---|---|---|---|---|', ...rows, '', '| tag | meaning |', '|---|---|', ...tags].join(
    '\n',
  );
}

/** The servers the suite recognises, from their profiles (lib/engines). */
export function enginesTable(): string {
  const rows = [...ENGINES, OPENAI_COMPATIBLE].map((e) => {
    const probes = (e.probes ?? []).map((p) => `\`GET ${p.route}\``).join(', ');
    const metrics = e.metrics ? `\`${e.metrics.prefix}*\`${e.metrics.specDrafts ? ' (with speculative counters)' : ''}` : 'not read';
    const tokenize = e.tokenize ? `\`POST ${e.tokenize.path}\`` : 'none (estimate)';
    return (
      `| ${e.label} | \`${e.id}\` | ${probes || '—'} | \`${e.dialect}\` (offers ${e.offered.map((d) => `\`${d}\``).join(', ')}) | ` +
      `${metrics} | ${tokenize} | ${cell(e.checked)} |`
    );
  });
  return ['| server | id | extra probes | DIALECT=auto | /metrics | tokenize | checked against |', '|---|---|---|---|---|---|---|', ...rows].join('\n');
}

/** Where each engine shows each serving setting, from the profiles' `serving` (lib/engines/serving-config.ts). */
export function servingTable(): string {
  const engines = ENGINES.filter((e) => e.serving);
  const where = (src: SettingSource) =>
    'gauge' in src ? `\`${src.gauge}{${src.label}}\`` : `\`GET ${src.route}\` \`${typeof src.field === 'string' ? src.field : src.field.join('.')}\``;
  const rows = SERVING_SETTING_NAMES.map((name) => {
    const cells = engines.map((e) => {
      if (name === 'engine') return 'preflight';
      const s = e.serving?.settings[name];
      const list = s === undefined ? [] : Array.isArray(s) ? (s as readonly SettingSource[]) : [s as SettingSource];
      return list.length ? list.map(where).join(', else ') : 'not shown';
    });
    return `| \`${name}\` | ${SERVING_SETTINGS[name].group} | ${cells.join(' | ')} |`;
  });
  return [`| setting | kind | ${engines.map((e) => e.label).join(' | ')} |`, `|---|---|${engines.map(() => '---|').join('')}`, ...rows].join('\n');
}

/** The dialects and what each sends and reads, from the dialect table (lib/dialects/index.ts). */
export function dialectsTable(): string {
  const rows = DIALECTS.map(
    (d) =>
      `| \`${d.name}\` | \`POST ${d.path}\` (${d.api}) | ${cell(d.docs.prompt)} | ${cell(d.docs.budget)} | ` +
      `${cell(d.docs.counts)} | ${cell(ADAPTER_NAMING_DOCS[d.adapter ?? 'model'])} | ${cell(d.traits.images?.docs ?? '— (refused with `IMAGES`)')} |`,
  );
  const auto =
    '| `auto` (default) | probes `GET /get_model_info` (SGLang → `sglang`) and `GET /v1/models` ' +
    '(llama.cpp → `llamacpp`; vLLM and other OpenAI-compatible servers → `openai`) in setup and prints ' +
    'the choice | | | | | |';
  return [
    '| `DIALECT` | route | prompt | output budget | token counts from | LoRA adapter (`ADAPTERS`) | images (`IMAGES`) |',
    '|---|---|---|---|---|---|---|',
    ...rows,
    auto,
  ].join('\n');
}

/** Which server offers which dialect, from the engine profiles' `offered` (lib/engines). */
export function offeredTable(): string {
  const servers = [...ENGINES, OPENAI_COMPATIBLE];
  const head = `| \`DIALECT\` | ${servers.map((e) => e.label).join(' | ')} |`;
  const rows = DIALECT_NAMES.map(
    (d) => `| \`${d}\` | ${servers.map((e) => (e.dialect === d ? 'yes (auto)' : e.offered.includes(d) ? 'yes' : '—')).join(' | ')} |`,
  );
  return [head, `|---|${servers.map(() => '---|').join('')}`, ...rows].join('\n');
}

/** The pooling routes (embeddings, rerank) the servers behind each dialect serve, and how each engine turns them on (lib/dialects/pooling.ts). */
export function poolingTable(): string {
  const route = (r: string | null) => (r === null ? '—' : `\`POST ${r}\``);
  const rows = DIALECT_NAMES.map((d) => `| \`${d}\` | ${route(poolingRoute(d, 'embeddings'))} | ${route(poolingRoute(d, 'rerank'))} |`);
  const enable = POOLING_TASKS.map((t) => `- ${t}: ${ENABLE[t]}.`);
  return [
    '| `DIALECT` | embeddings (`dist/embeddings.js`) | rerank (`dist/rerank.js`) |',
    '|---|---|---|',
    ...rows,
    '',
    'A route a server has but was not started with answers 501 or 404; the message says how to turn it on:',
    '',
    ...enable,
  ].join('\n');
}

/** lib/'s folders and the folders each imports, from the import graph (scripts/lint/import-graph.cjs). */
export function layersTable(): string {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const ig = require('./lint/import-graph.cjs') as {
    graph(): Map<string, string[]>;
    cycles(g: Map<string, string[]>): string[][];
    folderEdges(g: Map<string, string[]>): Map<string, Set<string>>;
  };
  const g = ig.graph();
  const rows = [...ig.folderEdges(g)]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(
      ([f, to]) =>
        `| \`lib/${f === '.' ? '' : `${f}/`}\` | ${
          [...to]
            .sort()
            .map((t) => `\`${t === '.' ? 'lib/*.ts' : t}\``)
            .join(', ') || '—'
        } |`,
    );
  const n = ig.cycles(g).length;
  return ['| folder | imports from |', '|---|---|', ...rows, '', `Files in lib/: ${g.size}; import cycles: ${n}.`].join('\n');
}

/** What each call of the library (lib/api) records: its subset of the catalog, with when and which tags. */
export function libraryMetricsTable(): string {
  const when: Partial<Record<MetricKey, string>> = {
    success: 'every call: 1 or 0',
    errors: 'every failed call',
    preflightFailed: 'preflight() of a variant that failed',
    runVus: "a VU's first call in a scenario",
    windowTokens: 'constant-vus / constant-arrival-rate scenarios of one duration',
    windowRequests: 'the same',
    windowE2e: 'the same',
    windowTtft: 'the same, sse',
    windowTtftRequests: 'the same, sse',
    windowLastEnd: 'other scenarios',
    inputTokens: 'successful calls the server counted',
    outputTokens: 'successful calls the server counted',
    cachedTokens: 'where the server reports prefix-cache hits',
    cacheQueriedTokens: 'where the server counts the cached tokens (0 included)',
    acceptance: 'where the server reports verify steps (SGLang meta_info)',
    specVerifySteps: 'the same',
    specTokens: 'the same',
    draftTokens: 'where the server reports drafts (llama.cpp timings)',
    draftAccepted: 'the same',
  };
  const extra: Partial<Record<MetricKey, string>> = {
    errors: ', `error_class`',
    itlRule: ', `itl_rule`',
    windowTokens: ', `slice`',
    windowRequests: ', `slice`',
    windowE2e: ', `slice`',
    windowTtft: ', `slice`',
    windowTtftRequests: ', `slice`',
  };
  const rows = RECORDED.map((k) => {
    const d: MetricDef = METRICS[k];
    const tags = k === 'preflightFailed' ? '`variant`, `reason`' : `\`variant\`, \`dialect\`, yours${extra[k] ?? ''}`;
    return `| \`${d.name}\` | ${d.type} | ${when[k] ?? (d.sseOnly ? 'successful calls, sse transport' : 'successful calls')} | ${tags} |`;
  });
  return ["| metric | type | recorded for | tags (besides k6's `scenario`) |", '|---|---|---|---|', ...rows].join('\n');
}

type Sections = Record<string, () => string>;

/** Each generated file and its sections. */
export const FILES: Record<string, Sections> = {
  'README.md': { benchmarks: benchmarksTable },
  'docs/variables.md': { variables: variablesTable },
  'docs/metrics.md': { metrics: metricsTable },
  'docs/capacity.md': { capacity: capacityTable },
  'docs/faults.md': { faults: faultTable },
  'docs/engines.md': { engines: enginesTable, serving: servingTable },
  'docs/dialects.md': { dialects: dialectsTable, offered: offeredTable, pooling: poolingTable },
  'docs/architecture.md': { layers: layersTable },
  'docs/library.md': { 'library-metrics': libraryMetricsTable },
};

export function render(text: string, sections: Sections = FILES['README.md'], file = 'README.md'): string {
  let out = text;
  for (const [name, make] of Object.entries(sections)) {
    const start = `<!-- ${name}:start -->`;
    const end = `<!-- ${name}:end -->`;
    const i = out.indexOf(start);
    const j = out.indexOf(end);
    if (i === -1 || j === -1 || j < i) throw new Error(`${file} lacks the ${start} … ${end} markers`);
    out = out.slice(0, i + start.length) + '\n' + make() + '\n' + out.slice(j);
  }
  return out;
}

if (require.main === module) {
  let stale = false;
  for (const [file, sections] of Object.entries(FILES)) {
    const path = join(__dirname, '..', file);
    const current = readFileSync(path, 'utf8');
    const next = render(current, sections, file);
    if (next === current) continue;
    if (process.argv.includes('--check')) {
      console.error(`${file} tables are out of date: run \`npm run docs\`.`);
      stale = true;
    } else {
      writeFileSync(path, next);
      console.log(`${file} tables updated.`);
    }
  }
  if (stale) process.exit(1);
}
