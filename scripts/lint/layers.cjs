// lib/'s layers as data: each unit (a folder, a root file, or one leaf file inside a folder) has a
// rank, and a file may import only from its own unit or from a unit of a lower rank. The picture
// in docs/architecture.md draws the same order top to bottom; the ESLint rule in eslint.config.js
// reports an import that runs up or sideways.
const path = require('node:path');

const LIB = path.join(__dirname, '..', '..', 'lib');

/** Unit → rank. A file's unit is the longest key that names it: a file key before its folder's. */
const RANKS = {
  // Leaves: no import from lib/ outside themselves (the next ones only from leaves below them).
  'stats/': 0,
  'clock/': 0,
  'prometheus/': 0,
  'vu/': 0,
  'transports.ts': 0,
  'http-port.ts': 0,
  'config/parse.ts': 0,
  'reading/stream-arrivals.ts': 0,
  'dialects/adapter.ts': 0,
  'dialects/json-schema.ts': 0,
  // The words of a request and a reply (dialects' types and error classes), which the reading code
  // speaks; then the reading code; then the dialects, which read their replies with it.
  'dialects/structured.ts': 1,
  'dialects/types.ts': 2,
  'dialects/errors.ts': 3,
  'reading/': 4,
  'dialects/': 5,
  'config/dataset-config.ts': 6,
  'config/trace-config.ts': 6,
  'plan/plan-types.ts': 6,
  'config/config-types.ts': 7,
  // Definitions over the leaves.
  'engines/': 8,
  'metrics/': 8,
  'benchmarks.ts': 8,
  'config/': 9,
  'workload/': 10,
  'dataset/': 11,
  'server-metrics/': 12,
  'variants.ts': 13,
  'preflight/': 14,
  'plan/': 15,
  // What reads a run: the reports, then what stands on them.
  'report/': 16,
  'capacity/': 17,
  'compare/': 17,
  'raw/': 17,
  // The k6 layer, then the public library over it.
  'k6/': 18,
  'api/': 19,
};

/** The unit of a lib/ file (absolute path), or null outside lib/. */
function unitOf(file) {
  const rel = path.relative(LIB, file).split(path.sep).join('/');
  if (rel.startsWith('..')) return null;
  if (RANKS[rel] !== undefined) return rel;
  const top = rel.includes('/') ? `${rel.slice(0, rel.indexOf('/'))}/` : rel;
  return RANKS[top] !== undefined ? top : null;
}

/** Why `from` may not import `to` (both absolute lib/ paths), or null when it may. */
function violation(from, to) {
  const a = unitOf(from);
  const b = unitOf(to);
  if (a === null || b === null) return `${a === null ? path.relative(LIB, from) : path.relative(LIB, to)} has no rank in scripts/lint/layers.cjs`;
  if (a === b || RANKS[b] < RANKS[a]) return null;
  return `lib/${a} (rank ${RANKS[a]}) imports lib/${b} (rank ${RANKS[b]}): an import may only go down the layers (scripts/lint/layers.cjs)`;
}

module.exports = { RANKS, unitOf, violation };
