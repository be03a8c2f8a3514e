// once.js, the file beside each bundle: the modules that not every VU runs, each evaluated on its
// first use. k6 evaluates a bundle's modules in every VU and keeps what they make in each VU's heap,
// so the bundle reaches these through require(), never through an import. Bundled instead, a
// module required is evaluated lazily, and webpack makes every module it imports (here: most of
// the suite) an accessor that every VU calls on each use and keeps; from once.js, what every VU
// runs is laid out in one scope (docs/fidelity.md, "One scope for what every VU runs"). k6's
// require works only at init, so only what is loaded at init is here; the server-metrics probe,
// the watch and the cache reset, required when their scenarios run, stay in the bundle (nothing
// that every VU runs imports them).
//
// This table is once.js's side; the bundles' side is a door in the file that uses a module:
// - once.js is built from it (webpack.config.js, the *-once builds: this file is their entry), and
//   there each getter's require() is webpack's own: the module is evaluated on the getter's first
//   read, inside once.js.
// - a bundle never imports this file: where it needs one of these modules, a local door requires
//   its path (`const vu0Config = () => require('./vu0-config') as typeof import('./vu0-config')`,
//   in bundle-init.ts, each-vu-bench.ts, vu0-config.ts), and webpack.config.js (toOnce) rewrites
//   that require() into k6's require of once.js and a read of this table's getter there:
//   `require("./once.js").modules["<name>"]`. The door keeps the call plain (a reader of the
//   code, or a tool that follows calls, goes from `vu0Config().loadBenchmark` to its definition).
// A plain import cannot replace it: an import is evaluated in every VU at init, which is what
// this table exists to avoid (test/lint/vu-imports.test.ts checks that no import brings them back).
declare function require(id: string): unknown;

export const modules = {
  /** setup() and handleSummary(): VU 0 (vu0-functions.ts). */
  get vu0Functions() {
    return require('./vu0-functions') as typeof import('./vu0-functions');
  },
  /** The configuration read from the environment, the plan, the k6 options: VU 0 (vu0-config.ts). */
  get vu0Config() {
    return require('./vu0-config') as typeof import('./vu0-config');
  },
  /** DATASET runs: every VU. */
  get dataset() {
    return require('../shared-dataset') as typeof import('../shared-dataset');
  },
  /** TRACE runs: every VU. */
  get trace() {
    return require('../shared-trace') as typeof import('../shared-trace');
  },
};
