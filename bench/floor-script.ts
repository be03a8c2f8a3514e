// The bare k6 script the client-cost benchmarks compare the suite with: the suite's request for a
// dialect over xk6-sse, and an event handler that only reads e.data (what the extension itself
// costs per event: the ceiling for any script). `itl` also records one Trend sample per event.
// `stamp` is the least a client that measures per-token ITL does: it reads each event's name and
// data, takes the clock per event, keeps both, and at the stream's end records one Trend sample per
// gap between events (the real gaps, not a constant).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface FloorShape {
  dialect: string;
  vus: number;
  duration: string;
  isl: number;
  osl: number;
  itl: boolean;
  stamp?: boolean;
}

/** Writes floor.js into dir and returns its path. */
export function floorScript(dir: string, s: FloorShape): string {
  const prompt = Array.from({ length: s.isl }, (_, i) => 1000 + ((i * 7919) % 30000));
  const [path, body] =
    s.dialect === 'sglang'
      ? ['/generate', { input_ids: prompt, sampling_params: { max_new_tokens: s.osl, temperature: 0, ignore_eos: true }, stream: true }]
      : [
          '/v1/completions',
          {
            model: 'qwen3-32b-sim',
            prompt,
            max_tokens: s.osl,
            temperature: 0,
            ignore_eos: true,
            stream: true,
            stream_options: { include_usage: true, continuous_usage_stats: true },
          },
        ];
  const file = join(dir, 'floor.js');
  writeFileSync(
    file,
    `const sse = require('k6/x/sse');
const { Trend } = require('k6/metrics');
const itl = new Trend('floor_itl', true);
const body = ${JSON.stringify(JSON.stringify(body))};
const now = Date.now;
const at = [];
const data = [];
exports.options = { scenarios: { s: { executor: 'constant-vus', vus: ${s.vus}, duration: '${s.duration}', gracefulStop: '60s' } } };
exports.default = function () {
  let n = 0;
  sse.open(__ENV.TARGET_URL + '${path}', { method: 'POST', body: body, headers: { 'Content-Type': 'application/json' }, timeout: '60s' }, ` +
      `function (client) {
    ${
      s.stamp
        ? "client.on('event', function (e) { const t = now(); const d = e.name === 'error' ? 'error' : e.data; " +
          "at[n] = t; data[n++] = d; if (d === '[DONE]') client.close(); });"
        : "client.on('event', function (e) { if (e.data === '[DONE]') client.close(); else n++; });"
    }
  });
  ${s.stamp ? 'for (let i = 1; i < n - 1; i++) itl.add(at[i] - at[i - 1]);' : s.itl ? 'for (let i = 0; i < n; i++) itl.add(1);' : ''}
};
`,
  );
  return file;
}
