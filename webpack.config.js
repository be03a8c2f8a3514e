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
//                        What not every VU runs (lib/k6/lifecycle/once-table.ts): setup(), handleSummary() and the
//                        configuration's reader (VU 0), the dataset and trace readers. Built apart:
//                        a bundle's require() of one of them is a require of once.js, so that the
//                        bundle lays out what every VU runs in one scope (docs/fidelity.md).
//
// The same sources; the constant __SSE_BUNDLE__ (DefinePlugin) tells them apart, and webpack drops
// the branch the constant rules out, so each bundle holds only its own way of loading the module.
const fs = require('node:fs');
const path = require('node:path');
const { DefinePlugin } = require('webpack');
const { FunctionScopePlugin } = require('./scripts/function-scope');

const scenarioDir = path.resolve(__dirname, 'scenarios');
const entry = Object.fromEntries(
  fs
    .readdirSync(scenarioDir)
    .filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'))
    .map((f) => [path.basename(f, '.ts'), path.join(scenarioDir, f)]),
);
const lib = path.resolve(__dirname, 'lib');
const onceTs = path.join(lib, 'k6', 'lifecycle', 'once-table.ts');
// The modules once.js holds, from its table (lib/k6/lifecycle/once-table.ts): each getter's name,
// and the module its require() names, as a path under lib/.
const ONCE = new Map(
  [...fs.readFileSync(onceTs, 'utf8').matchAll(/^ {2}get (\w+)\(\) \{\n {4}return require\('([^']+)'\)/gm)].map((m) => [
    path
      .relative(lib, path.resolve(path.dirname(onceTs), m[2]))
      .split(path.sep)
      .join('/'),
    m[1],
  ]),
);

// In a bundle, require() of a module in once.js's table is a read of that getter of once.js
// (`require("./once.js").modules[name]`): were it bundled, webpack would evaluate it lazily, and
// so make every module it imports (most of the suite) an accessor each VU calls on each use and
// keeps (lib/k6/lifecycle/once-table.ts).
function toOnce({ request, context, dependencyType }, cb) {
  if (dependencyType !== 'commonjs' || !request.startsWith('.')) return cb();
  const key = path.relative(lib, path.resolve(context, request)).split(path.sep).join('/').replace(/\.ts$/, '');
  return ONCE.has(key) ? cb(null, ['./once.js', 'modules', ONCE.get(key)], 'commonjs') : cb();
}

function bundles({ sse, once }) {
  const dir = path.resolve(__dirname, 'dist', ...(sse ? ['sse'] : []));
  return {
    name: (sse ? 'sse' : 'http') + (once ? '-once' : ''),
    mode: 'production',
    context: __dirname,
    entry: once ? { once: onceTs } : entry,
    target: ['web', 'es2020'],
    devtool: false,
    output: {
      path: dir,
      filename: '[name].js',
      library: { type: 'module' },
      module: true,
      // once.js belongs to its own build, dist/sse/ to the sse builds.
      clean: once ? false : { keep: sse ? /^once\.js$/ : /^(sse[\\/]|once\.js$)/ },
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
          // The http bundles' build type-checks these very sources; the others only transpile them
          // (isolatedModules: the same output), and so do all where BUILD_TYPECHECKED=1 says that
          // `npm run typecheck` has just passed (npm test).
          options: { configFile: path.resolve(__dirname, 'tsconfig.json'), transpileOnly: sse || once || process.env.BUILD_TYPECHECKED === '1' },
        },
      ],
    },
    plugins: [new DefinePlugin({ __SSE_BUNDLE__: JSON.stringify(sse) }), new FunctionScopePlugin()],
    experiments: { outputModule: true },
    externals: once ? [/^k6(\/.*)?$/] : [/^k6(\/.*)?$/, toOnce],
    externalsType: 'module',
    // transport.ts loads k6/x/sse with k6's own require (a plain require() in the bundle), which
    // webpack would rather see in a Node target only.
    ignoreWarnings: [/__non_webpack_require__ is only allowed in target node/],
    optimization: { minimize: false },
    performance: { hints: false },
    stats: 'errors-warnings',
  };
}

module.exports = [false, true].flatMap((sse) => [bundles({ sse, once: false }), bundles({ sse, once: true })]);
