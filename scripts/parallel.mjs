#!/usr/bin/env node
// Runs the npm scripts named on the command line side by side, CHECK_CONCURRENCY at a time (2: this
// machine's and CI's cores), each one's output printed whole when it ends, so that two logs never
// interleave. Exits with the first failing script's code, after every script has run: one run
// shows every failure. `npm test` runs the lint and the typecheck so (each reads the whole tree
// on one core; one after the other they took 72 s of CI's budget).
//
// Usage: node scripts/parallel.mjs SCRIPT [SCRIPT ...]
import { spawn } from 'node:child_process';

const names = process.argv.slice(2);
if (names.length === 0) {
  console.error('usage: node scripts/parallel.mjs SCRIPT [SCRIPT ...] (npm scripts of package.json)');
  process.exit(2);
}
const concurrency = Math.max(1, Number(process.env.CHECK_CONCURRENCY ?? 2) || 1);
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

function run(name) {
  const t0 = Date.now();
  return new Promise((resolve) => {
    const child = spawn(npm, ['run', name], { stdio: ['ignore', 'pipe', 'pipe'] });
    const out = [];
    child.stdout.on('data', (d) => out.push(d));
    child.stderr.on('data', (d) => out.push(d));
    child.on('error', (e) => out.push(Buffer.from(`${e.message}\n`)));
    child.on('close', (code, signal) => {
      const status = code ?? 1;
      const text = Buffer.concat(out).toString();
      process.stdout.write(`\n> npm run ${name} (${((Date.now() - t0) / 1000).toFixed(1)} s, exit ${code ?? signal})\n${text}`);
      resolve(status);
    });
  });
}

const queue = [...names];
const codes = new Map();
async function worker() {
  for (let name = queue.shift(); name !== undefined; name = queue.shift()) codes.set(name, await run(name));
}
await Promise.all(Array.from({ length: Math.min(concurrency, names.length) }, worker));
const failed = names.filter((n) => codes.get(n) !== 0);
if (failed.length > 0) {
  console.error(`\nscripts/parallel.mjs: failed: ${failed.map((n) => `npm run ${n} (exit ${codes.get(n)})`).join(', ')}`);
  process.exit(codes.get(failed[0]) || 1);
}
