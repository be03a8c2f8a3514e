// npm run build:lib: the public library (lib/api/) as what a k6 user imports.
//   dist/lib/k6-llm-bench.js   one self-contained ES module: every k6 module (k6, k6/*) left as an
//                              import, nothing else imported; for bundlers (webpack, esbuild) and
//                              for k6 itself (`import … from './k6-llm-bench.js'` or an https URL).
//   dist/lib/types/            its declarations (package.json "types"), from lib/api/index.ts.
// The xk6-sse module is never imported by name: the client requires it at run time, only for
// transport 'sse' (lib/k6/library.ts), so a script that uses http never needs the extension.
// The benchmarks' bundles (webpack.config.js) are another build; this one leaves them alone.
import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { build, type BuildOptions } from 'esbuild';

const ROOT = join(__dirname, '..');
export const LIB_DIR = join(ROOT, 'dist', 'lib');
export const LIB_FILE = join(LIB_DIR, 'k6-llm-bench.js');
export const LIB_TYPES = join(LIB_DIR, 'types', 'api', 'index.d.ts');

const version = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;

/** esbuild's settings for code that runs on k6, shared with the tests that bundle user scripts. */
export const K6_TARGET: Pick<BuildOptions, 'target' | 'external' | 'define' | 'platform'> = {
  // Lowered to ES2017 (no object spread, optional chaining or ??): k6 before v0.52 read ES modules
  // through an old Babel that rejects them. k6 v1.x and v2.x take either.
  target: 'es2017',
  platform: 'neutral',
  external: ['k6', 'k6/*'],
  // lib/k6/transport.ts's loader for the benchmarks' own bundles (webpack DefinePlugin there); unused by the library.
  define: { __SSE_BUNDLE__: 'false', __non_webpack_require__: 'globalThis.require' },
};

/** The self-contained ES module, written to `outfile` (the tests bundle it into their own folders). */
export async function bundleLibrary(outfile: string): Promise<void> {
  await build({
    ...K6_TARGET,
    entryPoints: [join(ROOT, 'lib', 'api', 'index.ts')],
    outfile,
    bundle: true,
    format: 'esm',
    tsconfig: join(ROOT, 'tsconfig.json'),
    minify: false,
    legalComments: 'none',
    logLevel: 'warning',
    banner: { js: `// k6-llm-bench ${version}: the library for your own k6 scripts (docs/library.md). Apache-2.0.` },
  });
}

/** dist/lib/: the bundle and its declarations. */
export async function buildLibrary(): Promise<void> {
  rmSync(LIB_DIR, { recursive: true, force: true });
  await bundleLibrary(LIB_FILE);
  const tsc = spawnSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', join(ROOT, 'tsconfig.lib.json')], { cwd: ROOT, encoding: 'utf8' });
  if (tsc.status !== 0) throw new Error(`declarations failed:\n${tsc.stdout}${tsc.stderr}`);
}

if (require.main === module) {
  buildLibrary().then(
    () => console.log(`built ${LIB_FILE.slice(ROOT.length + 1)} and its declarations (${LIB_TYPES.slice(ROOT.length + 1)})`),
    (e: unknown) => {
      console.error((e as Error).message);
      process.exit(1);
    },
  );
}
