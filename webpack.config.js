// One bundle per scenarios/*.ts → dist/<name>.js, in the shape k6 loads on every version from v0.49:
// CommonJS, ES2020 syntax, k6 modules left as require() calls, no Node polyfills, not minified
// (so k6 stack traces stay readable).
const fs = require('node:fs');
const path = require('node:path');

const scenarioDir = path.resolve(__dirname, 'scenarios');
const entry = Object.fromEntries(
  fs
    .readdirSync(scenarioDir)
    .filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'))
    .map((f) => [path.basename(f, '.ts'), path.join(scenarioDir, f)]),
);

module.exports = {
  mode: 'production',
  context: __dirname,
  entry,
  target: ['web', 'es2020'],
  devtool: false,
  output: {
    path: path.resolve(__dirname, 'dist'),
    filename: '[name].js',
    library: { type: 'commonjs' },
    clean: true,
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
        options: { configFile: path.resolve(__dirname, 'tsconfig.json') },
      },
    ],
  },
  externals: [/^k6(\/.*)?$/],
  externalsType: 'commonjs',
  optimization: { minimize: false },
  performance: { hints: false },
  stats: 'errors-warnings',
};
