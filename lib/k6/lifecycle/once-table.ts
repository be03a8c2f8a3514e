// once.js, the file beside each bundle: the modules that not every VU runs, each evaluated on its
// first use. k6 evaluates a bundle's modules in every VU and keeps what they make in each VU's heap,
// so the bundle reaches these through require(), and webpack.config.js points such a require() at
// this table. Bundled instead, a module required is evaluated lazily, and webpack makes every
// module it imports (here: most of the suite) an accessor that every VU calls on each use and
// keeps; from once.js, what every VU runs is laid out in one scope (docs/fidelity.md, "One scope
// for what every VU runs"). k6's require works only at init, so only what is loaded at init is
// here; the server-metrics probe, the watch and the cache reset, required when their scenarios
// run, stay in the bundle (nothing that every VU runs imports them). The keys are paths under lib/.
declare function require(id: string): unknown;

export const modules = {
  /** setup() and handleSummary(): VU 0. */
  get 'k6/vu0'() {
    return require('./vu0') as typeof import('./vu0');
  },
  /** The configuration read from the environment, the plan, the k6 options: VU 0. */
  get 'k6/bench-context'() {
    return require('./bench-context') as typeof import('./bench-context');
  },
  /** DATASET runs: every VU. */
  get 'k6/dataset'() {
    return require('./dataset') as typeof import('./dataset');
  },
  /** TRACE runs: every VU. */
  get 'k6/trace'() {
    return require('./trace') as typeof import('./trace');
  },
};
