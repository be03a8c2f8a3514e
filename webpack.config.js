// One bundle per scenarios/*.ts, built twice, in the shape k6 v1 and v2 load: an ES module, ES2020
// syntax, k6 modules left as imports, no Node polyfills, not minified (so k6 stack traces stay
// readable). An ES module, not CommonJS: k6 prints a string thrown at init in a CommonJS script
// with the stack frames after it, in an ES module alone, and an init error is one line for a user.
//
//   dist/<name>.js       TRANSPORT defaults to http. The xk6-sse module is required by a name
//                        built at run time, so k6's automatic extension resolution (k6 >= 1.0)
//                        never provisions a binary for these bundles.
//   dist/sse/<name>.js   TRANSPORT defaults to sse, and the bundle contains require("k6/x/sse")
//                        literally: k6 >= 1.0 with automatic extension resolution provisions a
//                        binary with xk6-sse itself. TRANSPORT=http still works there.
//
//   dist/once.js, dist/sse/once.js
//                        setup() and handleSummary() (lib/k6/once.ts): what only k6's VU 0 runs.
//                        Each bundle requires it from beside itself, in VU 0 only: k6 compiles a
//                        script in every VU, and the report code would cost each VU its memory.
//
// The same sources; the constant __SSE_BUNDLE__ (DefinePlugin) tells them apart, and webpack drops
// the branch the constant rules out, so each bundle holds only its own way of loading the module.
const fs = require('node:fs');
const path = require('node:path');
const { DefinePlugin } = require('webpack');

const scenarioDir = path.resolve(__dirname, 'scenarios');
const entry = Object.fromEntries(
  fs
    .readdirSync(scenarioDir)
    .filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'))
    .map((f) => [path.basename(f, '.ts'), path.join(scenarioDir, f)]),
);
entry.once = path.resolve(__dirname, 'lib', 'k6', 'once.ts');
// lib/k6/benchmark.ts's require('./once') stays a require of the file beside the bundle.
const onceExternal = ({ request, context }, cb) =>
  request === './once' && context === path.resolve(__dirname, 'lib', 'k6') ? cb(null, 'commonjs ./once.js') : cb();

function bundles({ sse }) {
  return {
    name: sse ? 'sse' : 'http',
    mode: 'production',
    context: __dirname,
    entry,
    target: ['web', 'es2020'],
    devtool: false,
    output: {
      path: path.resolve(__dirname, 'dist', ...(sse ? ['sse'] : [])),
      filename: '[name].js',
      library: { type: 'module' },
      module: true,
      // dist/sse/ belongs to the other build.
      clean: sse ? true : { keep: /^sse[\\/]/ },
    },
    resolve: {
      extensions: ['.ts', '.js'],
      fallback: {},
    },
    module: {
      rules: [
        {
          test: /\.ts$/,
          loader: 'ts-loader',
          exclude: /node_modules/,
          // The http build type-checks these very sources; the sse build only transpiles them
          // (isolatedModules: the same output).
          options: { configFile: path.resolve(__dirname, 'tsconfig.json'), transpileOnly: sse },
        },
      ],
    },
    plugins: [new DefinePlugin({ __SSE_BUNDLE__: JSON.stringify(sse) })],
    experiments: { outputModule: true },
    externals: [/^k6(\/.*)?$/, onceExternal],
    externalsType: 'module',
    // transport.ts loads k6/x/sse with k6's own require (a plain require() in the bundle), which
    // webpack would rather see in a Node target only.
    ignoreWarnings: [/__non_webpack_require__ is only allowed in target node/],
    optimization: { minimize: false },
    performance: { hints: false },
    stats: 'errors-warnings',
  };
}

module.exports = [bundles({ sse: false }), bundles({ sse: true })];
