// Finds the k6 binary (K6_BIN, else `k6` on PATH) and says how to get one when there is none.
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

export function findK6(env: NodeJS.ProcessEnv = process.env): string | null {
  if (env.K6_BIN) {
    try {
      accessSync(env.K6_BIN, constants.X_OK);
      return env.K6_BIN;
    } catch {
      return null;
    }
  }
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    const p = join(dir, 'k6');
    try {
      accessSync(p, constants.X_OK);
      return p;
    } catch {
      // keep looking
    }
  }
  return null;
}

export const INSTALL_K6 = [
  'k6 is not installed (looked at K6_BIN and PATH). Install it, then run this again:',
  "  Debian/Ubuntu: add Grafana's k6 apt repository (k6 installation docs), then apt-get install k6",
  '  macOS:         brew install k6',
  '  Docker:        docker run --rm -i grafana/k6 run - <dist/smoke.js',
  '  Any OS:        download a release binary from github.com/grafana/k6/releases and set K6_BIN=/path/to/k6',
  '  GitHub Actions: uses: grafana/setup-k6-action@v1',
].join('\n');
