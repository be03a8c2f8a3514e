// The front door and the reference pages: generated tables up to date, every variable and metric
// documented, the two commands named, and every repository path or link they name exists.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { FILES, render } from '../../scripts/docs';
import { VARIABLES } from '../../lib/config/variables';
import { METRICS } from '../../lib/metrics/catalog';
import { BENCHMARK_NAMES } from '../../lib/benchmarks';

const root = join(__dirname, '..', '..');
const read = (f: string) => readFileSync(join(root, f), 'utf8');
const readme = read('README.md');
const docs = readdirSync(join(root, 'docs'))
  .filter((f) => f.endsWith('.md'))
  .map((f) => `docs/${f}`);

test('every generated table matches the code (npm run docs regenerates them)', () => {
  for (const [file, sections] of Object.entries(FILES)) {
    const text = read(file);
    assert.equal(render(text, sections, file), text, `${file} is out of date: run \`npm run docs\``);
  }
});

test('every variable and every metric is documented', () => {
  const variables = read('docs/variables.md');
  const metrics = read('docs/metrics.md');
  for (const v of VARIABLES) assert.ok(variables.includes(`| \`${v.name}\` |`), v.name);
  for (const m of Object.values(METRICS)) assert.ok(metrics.includes(`| \`${m.name}\` |`), m.name);
});

test('the README is a front door: the two commands, every benchmark, at most about 200 lines', () => {
  const pkg = JSON.parse(read('package.json')) as { scripts: Record<string, string> };
  assert.match(readme, /npm ci && npm start/);
  assert.match(readme, /npm ci && npm test/);
  assert.ok(pkg.scripts.start && pkg.scripts.test);
  for (const b of BENCHMARK_NAMES) assert.ok(readme.includes(`dist/${b}.js`), b);
  assert.ok(readme.split('\n').length <= 210, `${readme.split('\n').length} lines`);
});

test('every link and repository path named in the README and docs/ exists', () => {
  const missing: string[] = [];
  for (const file of ['README.md', ...docs]) {
    const text = read(file);
    const base = dirname(join(root, file));
    // Markdown links to files of the repository (not URLs, not anchors).
    for (const m of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      const target = m[1].split('#')[0];
      if (target === '' || /^[a-z]+:/.test(target)) continue;
      if (!existsSync(join(base, target))) missing.push(`${file}: link ${m[1]}`);
    }
    // Paths in backticks that name a file or folder of the repository by its top-level folder.
    for (const m of text.matchAll(/`((?:lib|scripts|sim|test|bench|deploy|docs|scenarios|examples|\.github|\.ci)\/[A-Za-z0-9_./-]+)`/g)) {
      const p = m[1].replace(/[.,:]$/, '');
      if (/[*<>]/.test(p)) continue;
      if (!existsSync(join(root, p))) missing.push(`${file}: \`${p}\``);
    }
  }
  assert.deepEqual(missing, []);
});

test('every source file named in the code, its comments and the docs exists (a compiled .js counts when its .ts does)', () => {
  const tracked = execFileSync('git', ['ls-files'], { cwd: root, encoding: 'utf8' })
    .split('\n')
    .filter((f) => /\.(ts|js|mjs|cjs|md|ya?ml|sh)$/.test(f) && !f.startsWith('test/fixtures/'));
  // A repository path by its top-level folder, not the tail of a longer path (another project's
  // `vllm/…/lib/x.py`, `../shared/…`), ending in a file extension.
  const path =
    /(?<![A-Za-z0-9_./@-])((?:lib|scripts|sim|test|bench|deploy|docs|scenarios|examples|\.github|\.ci)\/[A-Za-z0-9_./-]*[A-Za-z0-9_-]\.(?:ts|js|mjs|md|json|ya?ml|sh|py|html|svg))(?![A-Za-z0-9_/-])/g;
  const missing: string[] = [];
  for (const file of tracked) {
    for (const m of read(file).matchAll(path)) {
      const p = m[1];
      if (!existsSync(join(root, p)) && !(p.endsWith('.js') && existsSync(join(root, p.replace(/\.js$/, '.ts'))))) missing.push(`${file}: ${p}`);
    }
  }
  assert.ok(tracked.length > 100, `${tracked.length} files read`);
  assert.deepEqual(missing, []);
});

/** Whether a folder holds a file, at any depth: git keeps no empty folder, and a move can leave one behind. */
const holdsFiles = (dir: string): boolean =>
  readdirSync(join(root, dir), { withFileTypes: true }).some((e) => e.isFile() || (e.isDirectory() && holdsFiles(`${dir}/${e.name}`)));

/** Every folder under lib/ (hidden ones aside: test/lint/layers.test.ts makes one while it runs), as `lib/a/b`. */
const libFolders = (dir = 'lib'): string[] =>
  readdirSync(join(root, dir), { withFileTypes: true })
    .filter((e) => e.isDirectory() && !e.name.startsWith('.') && holdsFiles(`${dir}/${e.name}`))
    .flatMap((e) => [`${dir}/${e.name}`, ...libFolders(`${dir}/${e.name}`)]);

test("docs/architecture.md's picture names every folder of lib/, and only folders that exist", () => {
  const arch = read('docs/architecture.md');
  const picture = arch.slice(arch.indexOf('```\n scenarios/'), arch.indexOf('```', arch.indexOf('```\n scenarios/') + 3));
  for (const f of libFolders()) {
    const parts = f.split('/');
    // A sub-folder is drawn beside its parent: "lib/report/ (+svg/)".
    const drawn = parts.length === 2 ? `${f}/` : `${parts.slice(0, -1).join('/')}/ (+${parts[parts.length - 1]}/)`;
    assert.ok(picture.includes(drawn), `${f}/ is not in the picture of docs/architecture.md (drawn as "${drawn}")`);
  }
  // Every root file of lib/ too (a folder's own files are drawn as the folder).
  for (const f of readdirSync(join(root, 'lib')).filter((x) => x.endsWith('.ts')))
    assert.ok(picture.includes(`lib/${f}`), `lib/${f} is not in the picture of docs/architecture.md`);
  for (const [named] of picture.matchAll(/lib\/[a-z0-9/-]+(?:\.ts)?/g))
    assert.ok(existsSync(join(root, named)), `the picture names ${named}, which does not exist`);
});

test("docs/architecture.md's picture of what loads where names only files that exist, every stage of the VU lifecycle and once.js's table", () => {
  const arch = read('docs/architecture.md');
  const start = arch.indexOf('```\n dist/');
  assert.ok(start > 0, 'the picture of what loads where (a code block that starts with dist/)');
  const picture = arch.slice(start, arch.indexOf('```', start + 3));
  for (const [named] of picture.matchAll(/lib\/[a-z0-9/-]+(?:\.ts)?/g))
    assert.ok(existsSync(join(root, named)), `the picture of what loads where names ${named}, which does not exist`);
  for (const f of readdirSync(join(root, 'lib/k6/lifecycle')))
    assert.ok(picture.includes(`lib/k6/lifecycle/${f}`), `lib/k6/lifecycle/${f}, a stage of the VU lifecycle, is not in the picture`);
  // once.js's table: each getter by its name, beside the module it loads.
  const table = read('lib/k6/lifecycle/once-table.ts');
  const getters = [...table.matchAll(/^ {2}get (\w+)\(\) \{\n {4}return require\('([^']+)'\)/gm)];
  assert.ok(getters.length >= 4, `${getters.length} getters read from once-table.ts`);
  for (const [, name, spec] of getters) {
    const file = join('lib/k6/lifecycle', `${spec}.ts`).split('\\').join('/');
    assert.match(picture, new RegExp(`\\n +${name} +${file.replace(/[.]/g, '\\.')}`), `once.js's ${name} (${file}) is not drawn`);
  }
});

test("docs/architecture.md's rooms table: every folder of lib/ and every ranked unit, at the rank scripts/lint/layers.cjs gives it", () => {
  const arch = read('docs/architecture.md');
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { RANKS } = require('../../scripts/lint/layers.cjs') as { RANKS: Record<string, number> };
  const rows = new Map([...arch.matchAll(/^\| `(lib\/[a-z0-9/.-]+)` \| (\d+) \| [^|]+ \|$/gm)].map((m) => [m[1], Number(m[2])]));
  assert.ok(rows.size > 20, `${rows.size} rooms read`);
  for (const [room] of rows) assert.ok(existsSync(join(root, room)), `the rooms table names ${room}, which does not exist`);
  for (const [unit, rank] of Object.entries(RANKS)) assert.equal(rows.get(`lib/${unit}`), rank, `lib/${unit}: rank ${rank} in layers.cjs`);
  for (const f of libFolders()) {
    const top = `${f.split('/')[1]}/`;
    assert.equal(rows.get(`${f}/`), RANKS[top], `${f}/ is not in the rooms table at its room's rank (lib/${top}: ${RANKS[top]})`);
  }
});

/** The tracked sources of the code (not the fixtures, not the docs). */
const sources = (): string[] =>
  execFileSync('git', ['ls-files', 'lib', 'sim', 'scripts', 'bench', 'scenarios', 'examples', 'test'], { cwd: root, encoding: 'utf8' })
    .split('\n')
    .filter((f) => /\.(ts|js|mjs|cjs)$/.test(f) && !f.startsWith('test/fixtures/'));

test("docs/architecture.md's Words name every word, and the code has what they name", () => {
  const arch = read('docs/architecture.md');
  const words = arch.slice(arch.indexOf('Words,'), arch.indexOf('Which folder imports which'));
  for (const w of [
    'benchmark',
    'scenario',
    'variant',
    'engine',
    'engine label',
    'engine profile',
    'imitation',
    'simulator scheduler',
    'dialect',
    'transport',
    'cell',
    'level',
    'step',
    'run',
    'test',
  ])
    assert.ok(words.includes(`**${w}**`), `Words does not define **${w}**`);
  const code = sources()
    .filter((f) => f.startsWith('lib/') || f.startsWith('sim/'))
    .map(read)
    .join('\n');
  // `Name` is a declared type, class or function; `Name.field` a field of that interface.
  for (const [, name, field] of words.matchAll(/`([A-Z][a-z][A-Za-z]+)(?:\.([a-z][A-Za-z]*))?`/g)) {
    const decl = new RegExp(`export (?:interface|type|class|function) ${name}\\b[^]*?\\n}`).exec(code);
    assert.ok(decl, `Words names ${name}, which lib/ and sim/ do not declare`);
    if (field) assert.match(decl[0], new RegExp(`\\n  ${field}\\??:`), `Words names ${name}.${field}, which ${name} has not`);
  }
});

test('the words keep their one meaning: the forms Words retired do not come back', () => {
  const retired: Array<[RegExp, string]> = [
    [/\bflavou?r\b/i, '"flavor": the word is engine'],
    [/\btype Engine = string\b/, 'type Engine = string: an engine id is EngineId (lib/engines)'],
    [/\bclass Engine\b/, "class Engine: the simulator's batching model is BatchScheduler"],
    [/\binterface PromSample\b/, 'PromSample: a scraped sample is ScrapedSample, a pushed one RemoteWriteSample'],
    [/\b(?:TargetSummary|ResolvedTarget|TargetSlot|TargetConfig|resolveTargets)\b/, 'a deployment under test is a variant'],
    [/\bengineId\b/, 'engineId: the engine is the id (`engine`), its label `engineLabel`'],
    [
      /\b(?:TargetSearch|TargetCapacity|targetLines)\b|lib\/capacity\/targets\b/,
      "a capacity search's deployment is a variant (VariantSearch, lib/capacity/step-variants.ts)",
    ],
    [/\brecordRun\b/, 'recordRun: setup writes the run record of the whole test (writeRunRecord)'],
    [
      /\b(?:identifyTarget|targetColors|deadTargets|perTarget|ProbeTarget|ResetTarget|CountingTarget|targetConfig|targetDown\w*|TARGET_UP)\b/,
      'a deployment under test is a variant (issue 55)',
    ],
    [/\bBatchEngine\b|\bsim\/engine\//, "the simulator's batch scheduler is BatchScheduler (sim/scheduler/)"],
  ];
  const found: string[] = [];
  for (const f of sources()) {
    // lib/variants.ts reads an older release's setup data (upgradeSetup), raw.test.ts checks it; this test names the forms.
    if (['test/docs/readme.test.ts', 'lib/variants.ts', 'test/lib/raw/raw.test.ts'].includes(f)) continue;
    read(f)
      .split('\n')
      .forEach((line, i) => {
        for (const [re, why] of retired) if (re.test(line)) found.push(`${f}:${i + 1}: ${why}`);
      });
  }
  // "scenario" where a benchmark is meant: in these files only k6's scenario (a run's, `scenarios`) is one.
  for (const f of ['lib/config/load.ts', 'lib/metrics/catalog.ts', 'lib/report/build-report.ts', 'lib/report/report-types.ts', 'lib/config/variables.ts']) {
    read(f)
      .split('\n')
      .forEach((line, i) => {
        if (/(?<![.\w]|k6 )scenarios?\b(?!:)/i.test(line)) found.push(`${f}:${i + 1}: "scenario" for a benchmark`);
      });
  }
  // The capacity report's variants: `targets` only as the old key written beside `variants` (lib/capacity/capacity-report.ts).
  for (const f of sources().filter((x) => x.startsWith('lib/capacity/') || x === 'scripts/capacity.ts')) {
    read(f)
      .split('\n')
      .forEach((line, i) => {
        if (/\btargets\b/.test(line) && !/RENAMED|out\.targets|w\.targets/.test(line)) found.push(`${f}:${i + 1}: "targets" for the variants`);
      });
  }
  assert.deepEqual(found, []);
});
