// Two providers side by side: the same requests at the same load against two deployments, each in
// a scenario of its own, at the same time. The report pairs them (same load, two clients) and
// gives the benchmarks' verdict: "A faster by 1.9× [1.7, 2.1]" or "no significant difference",
// from the throughput of each time slice (steady slices, Student's t on the log ratio).
//
//   k6 run -e A_URL=http://vllm:8000 -e B_URL=http://sglang:30000 dist/compare-providers.js
import { check } from 'k6';
import { LlmClient, llmOptions, llmSummary, randomText, type SummaryData } from 'k6-llm-bench';

const transport = __ENV.TRANSPORT === 'http' ? 'http' : 'sse';
const a = new LlmClient({ url: __ENV.A_URL, dialect: 'auto', transport, name: __ENV.A_NAME ?? 'a' });
const b = new LlmClient({ url: __ENV.B_URL, dialect: 'auto', transport, name: __ENV.B_NAME ?? 'b' });

// The same seeded prompts for both: a comparison needs the same workload.
const PROMPTS = [1, 2, 3, 4].map((seed) => randomText(200, seed));
const duration = __ENV.DURATION ?? '60s';
const vus = Number(__ENV.VUS ?? 2);

export const options = llmOptions(
  {
    scenarios: {
      // One scenario per provider, same executor, VUs and duration: a pair in the report.
      provider_a: { executor: 'constant-vus', vus, duration, exec: 'askA' },
      provider_b: { executor: 'constant-vus', vus, duration, exec: 'askB' },
    },
    thresholds: { llm_success: ['rate>0.99'] },
  },
  { slices: 6 }, // throughput per slice of the duration; the first slice is ramp-up and left out
);

function ask(client: LlmClient) {
  // ignoreEos: both generate exactly maxTokens, so throughput compares like with like.
  const r = client.complete(PROMPTS[__ITER % PROMPTS.length], { maxTokens: 64, ignoreEos: true });
  check(r, { [`${client.name} answered`]: (x) => x.ok });
}

export const askA = () => ask(a);
export const askB = () => ask(b);

export function handleSummary(data: SummaryData) {
  // The verdict is in the text on stdout, report.md/.html and summary.json's `comparisons`.
  return llmSummary(data, { title: 'providers side by side', dir: __ENV.RESULTS_DIR ?? '.' });
}
