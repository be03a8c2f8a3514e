// VU workers run plain JavaScript. Registering tsx inside each worker costs ~0.7 s per worker
// (it starts its own loader thread), which would dominate every test, so the worker-side sources
// (vu/ and shared/) are transpiled once with the project's TypeScript (transpileModule: no type
// checking, that is what `tsc --noEmit` is for) into a cache directory keyed by their content.
// Concurrent test processes may race to fill the cache; each writes a private directory and
// renames it into place, and the loser discards its copy.

import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import { createRequire } from 'node:module';
import * as os from 'node:os';
import * as path from 'node:path';

const ROOT = path.resolve(__dirname, '..');
const WORKER_SOURCE_DIRS = ['shared', 'vu'];

let cached: string | undefined;

/** Path of the compiled vu/worker.js, compiling the worker sources if needed. */
export function workerEntry(): string {
  if (cached) return cached;
  const files = WORKER_SOURCE_DIRS.flatMap((dir) => listTs(path.join(ROOT, dir)));
  const hash = crypto.createHash('sha256');
  for (const file of files) hash.update(path.relative(ROOT, file)).update('\0').update(fs.readFileSync(file)).update('\0');
  const outDir = path.join(os.tmpdir(), 'k6-double-js', hash.digest('hex').slice(0, 16));
  if (!fs.existsSync(path.join(outDir, '.complete'))) build(files, outDir);
  cached = path.join(outDir, 'vu', 'worker.js');
  return cached;
}

function listTs(dir: string): string[] {
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .flatMap((e) => (e.isDirectory() ? listTs(path.join(dir, e.name)) : e.name.endsWith('.ts') ? [path.join(dir, e.name)] : []));
}

function build(files: string[], outDir: string): void {
  const ts = createRequire(__filename)('typescript') as typeof import('typescript');
  const tmp = `${outDir}.tmp-${process.pid}-${crypto.randomBytes(4).toString('hex')}`;
  for (const file of files) {
    const { outputText } = ts.transpileModule(fs.readFileSync(file, 'utf8'), {
      fileName: file,
      compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, esModuleInterop: true },
    });
    const out = path.join(tmp, path.relative(ROOT, file)).replace(/\.ts$/, '.js');
    fs.mkdirSync(path.dirname(out), { recursive: true });
    fs.writeFileSync(out, outputText);
  }
  // The cache may live under a directory whose package.json says "type": "module".
  fs.writeFileSync(path.join(tmp, 'package.json'), '{"type":"commonjs"}\n');
  fs.writeFileSync(path.join(tmp, '.complete'), '');
  fs.mkdirSync(path.dirname(outDir), { recursive: true });
  try {
    fs.renameSync(tmp, outDir);
  } catch {
    // Another process finished first; its copy is identical.
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}
