// The corpus's provenance kept true (test/fixtures/corpus): the capture script never overwrites a
// reply the manifest lists as built, and writes every reply the manifest says it captured; built
// replies cite code at a tag or commit, never a branch that moves; the README says which llama.cpp
// Messages and Responses replies are captured and which are built, as the manifest does.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const DIR = join(__dirname, '..', '..', 'fixtures', 'corpus');
const SCRIPT = readFileSync(join(DIR, 'capture-llamacpp.sh'), 'utf8');
const README = readFileSync(join(DIR, 'README.md'), 'utf8');

interface Entry {
  file: string;
  server: string;
  version: string;
  source: string;
  captured: boolean;
  route?: string;
  notes?: string;
}
const MANIFEST = JSON.parse(readFileSync(join(DIR, 'manifest.json'), 'utf8')) as Entry[];
const BY_SCRIPT = MANIFEST.filter((e) => e.captured && e.source.includes('capture-llamacpp.sh'));
const BUILDS = [...new Set(BY_SCRIPT.map((e) => e.version))];

/** The names the script captures (`capture NAME METHOD ROUTE …`), in its own order. */
const NAMES = [...SCRIPT.matchAll(/^capture (\S+) (?:GET|POST) /gm)].map((m) => m[1]);

/** A shell function of the script, from `name() {` to its closing `}` at the line's start. */
function shellFunction(name: string): string {
  const m = new RegExp(`^${name}\\(\\) \\{\\n[\\s\\S]*?^\\}\\n`, 'm').exec(SCRIPT);
  assert.ok(m, `capture-llamacpp.sh defines ${name}()`);
  return m[0];
}

/** Runs the script's own name check (CHECK_ONLY=1 capture_all) for one build, with no server. */
function checkNames(build: string, extra = ''): { status: number | null; stderr: string } {
  const builtFiles = MANIFEST.filter((e) => e.captured === false).map((e) => e.file);
  const all = shellFunction('capture_all').replace(/^\}\n$/m, `${extra}}\n`);
  // HERE, OUT, BUILD and BUILT as the script sets them; BUILT from the manifest, one file a line.
  const script = ['OUT="$HERE/llamacpp"', shellFunction('capture'), all, 'CHECK_ONLY=1 capture_all'].join('\n');
  const r = spawnSync('bash', ['-c', script], { encoding: 'utf8', env: { ...process.env, HERE: DIR, BUILD: build, BUILT: builtFiles.join('\n') } });
  return { status: r.status, stderr: r.stderr };
}

test('the capture script never overwrites a reply the manifest lists as built (its own check, before any request)', () => {
  assert.ok(NAMES.length >= 20 && BUILDS.length >= 1, `${NAMES.length} names, builds ${BUILDS.join(', ')}`);
  for (const build of BUILDS) {
    const clean = checkNames(build);
    assert.equal(clean.status, 0, `${build}: ${clean.stderr}`);
    // The check itself works: a capture into a built reply's name is refused.
    const clash = checkNames(build, 'capture v1-messages.json POST /v1/messages\n');
    assert.equal(clash.status, 1, `${build}: a clash must stop the script`);
    assert.match(clash.stderr, new RegExp(`refusing to capture into llamacpp/${build}-v1-messages\\.json: the manifest lists it as built`));
  }
  // And the same by name alone: no capture name is a built reply of a captured build.
  const built = new Set(MANIFEST.filter((e) => !e.captured).map((e) => e.file));
  for (const build of BUILDS) for (const n of NAMES) assert.ok(!built.has(`llamacpp/${build}-${n}`), `capture ${n} would overwrite a built reply`);
});

test('every reply the manifest says the script captured is one it writes', () => {
  for (const e of BY_SCRIPT) {
    const name = e.file.replace(`llamacpp/${e.version}-`, '');
    assert.ok(NAMES.includes(name), `${e.file}: capture-llamacpp.sh writes no ${name}`);
  }
});

test('sources cite code at a tag or commit, not a branch that moves', () => {
  // A ref is pinned when it is a full commit or a release tag (v0.4.9, b11669); any other name may
  // be a branch. The notes cite the other files a reply was built from, so they are held to it too.
  const pinned = /^([0-9a-f]{40}|v\d[\w.+-]*|b\d+)$/;
  const unpinned: string[] = [];
  for (const e of MANIFEST) {
    for (const m of `${e.source} ${e.notes ?? ''}`.matchAll(/https:\/\/github\.com\/[^/\s]+\/[^/\s]+\/(?:blob|tree|raw)\/([^/\s]+)\//g)) {
      if (!pinned.test(m[1])) unpinned.push(`${e.file} (${m[1]})`);
    }
  }
  assert.deepEqual(unpinned, [], 'cite a tag or commit');
});

test('the README lists the llama.cpp Messages and Responses replies as the manifest has them, captured or built', () => {
  const section = README.slice(README.indexOf('## llama.cpp Messages and Responses'), README.indexOf('## Adding a reply'));
  const listed = (kind: string) => {
    const item = new RegExp(`^- ${kind}[\\s\\S]*?(?=^- |$(?![\\s\\S]))`, 'm').exec(section)?.[0] ?? '';
    return [...item.matchAll(/`(b\d+-[^`]+)`/g)].map((m) => `llamacpp/${m[1]}`).sort();
  };
  const ours = MANIFEST.filter((e) => e.server === 'llamacpp' && (e.route === '/v1/messages' || e.route === '/v1/responses'));
  assert.ok(ours.length >= 8);
  assert.deepEqual(
    listed('captured'),
    ours
      .filter((e) => e.captured)
      .map((e) => e.file)
      .sort(),
  );
  assert.deepEqual(
    listed('built'),
    ours
      .filter((e) => !e.captured)
      .map((e) => e.file)
      .sort(),
  );
  assert.doesNotMatch(README, /not captured: the capture script predates/);
});
