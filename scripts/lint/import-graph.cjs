// The import graph of lib/ (relative imports of .ts files, `import type` included: a type cycle is
// still a cycle a reader has to untangle), its cycles, and its folder-level edges. Used by the
// ESLint rule below (eslint.config.js) and by scripts/docs.ts for docs/architecture.md.
const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.join(__dirname, '..', '..');
const LIB = path.join(ROOT, 'lib');

function walk(dir) {
  // A hidden entry is no part of lib/: test/lint/layers.test.ts writes one under lib/dialects/ while it runs.
  return fs.readdirSync(dir).flatMap((n) => {
    if (n.startsWith('.')) return [];
    const p = path.join(dir, n);
    if (fs.statSync(p).isDirectory()) return walk(p);
    return p.endsWith('.ts') && !p.endsWith('.d.ts') ? [p] : [];
  });
}

/** An import whose names are all types (`import type …`, `{ type A, type B }`): no code is evaluated for it. */
function typeOnly(clause) {
  const c = clause.trim();
  if (c.startsWith('type ')) return true;
  const names = /^\{([^}]*)\}$/.exec(c);
  return names !== null && names[1].split(',').every((n) => n.trim() === '' || n.trim().startsWith('type '));
}

/** file → the lib files it imports; with `values`, only the imports that evaluate the file (not type-only ones). */
function graph({ values = false } = {}) {
  const files = walk(LIB);
  const known = new Set(files);
  const g = new Map();
  for (const f of files) {
    const src = fs.readFileSync(f, 'utf8');
    const deps = [];
    for (const m of src.matchAll(/^\s*(?:import|export)\b([^'"]*?)from\s+'(\.[^']+)'/gm)) {
      if (values && typeOnly(m[1])) continue;
      const t = path.resolve(path.dirname(f), m[2]);
      const hit = [`${t}.ts`, path.join(t, 'index.ts')].find((c) => known.has(c));
      if (hit) deps.push(hit);
    }
    g.set(f, deps);
  }
  return g;
}

/** The strongly connected components with more than one file (Tarjan). */
function cycles(g) {
  let index = 0;
  const stack = [];
  const on = new Set();
  const idx = new Map();
  const low = new Map();
  const out = [];
  const visit = (v) => {
    idx.set(v, index);
    low.set(v, index++);
    stack.push(v);
    on.add(v);
    for (const w of g.get(v) ?? []) {
      if (!idx.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v), low.get(w)));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v), idx.get(w)));
    }
    if (low.get(v) === idx.get(v)) {
      const c = [];
      let w;
      do {
        w = stack.pop();
        on.delete(w);
        c.push(w);
      } while (w !== v);
      if (c.length > 1) out.push(c);
    }
  };
  for (const v of g.keys()) if (!idx.has(v)) visit(v);
  return out;
}

/** Folder (relative to lib/, '.' for lib/ itself) → the folders its files import. */
function folderEdges(g) {
  const folder = (f) => path.relative(LIB, path.dirname(f)) || '.';
  const out = new Map();
  for (const [f, deps] of g) {
    const a = folder(f);
    if (!out.has(a)) out.set(a, new Set());
    for (const d of deps) if (folder(d) !== a) out.get(a).add(folder(d));
  }
  return out;
}

module.exports = { ROOT, LIB, graph, cycles, folderEdges };
