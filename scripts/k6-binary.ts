// What to tell a user who has no k6. The binary itself (K6_BIN, else `k6` on PATH) is found by
// findK6 from k6-double/, the project's only k6 finder.

export const INSTALL_K6 = [
  'k6 is not installed (looked at K6_BIN and PATH). Install it, then run this again:',
  "  Debian/Ubuntu: add Grafana's k6 apt repository (k6 installation docs), then apt-get install k6",
  '  macOS:         brew install k6',
  '  Docker:        docker run --rm -i grafana/k6 run - <dist/smoke.js',
  '  Any OS:        download a release binary from github.com/grafana/k6/releases and set K6_BIN=/path/to/k6',
  '  GitHub Actions: uses: grafana/setup-k6-action@v1',
].join('\n');
