// The healthy-but-hung server: /health answers 200, the model list answers, and no token ever
// comes. A load test against it waits out its timeouts and reports a wall of errors. Preflight in
// setup() sends a one-token generation under a short deadline instead: the test stops before any
// load, with k6's "test aborted" line naming what hangs (the engine, or one API layer while
// another route still answers) and what to do.
//
//   k6 run -e LLM_URL=http://127.0.0.1:8000 dist/preflight-hung.js      # exit 108 when hung
import { check } from 'k6';
import { LlmClient, llmOptions, llmSummary, preflight, type LlmSetup, type SummaryData } from 'k6-llm-bench';

const llm = new LlmClient({ url: __ENV.LLM_URL, dialect: 'auto', transport: 'http', name: 'server' });

export const options = llmOptions({
  scenarios: { load: { executor: 'constant-vus', vus: 2, duration: __ENV.DURATION ?? '10s' } },
  thresholds: { llm_success: ['rate>0.99'] },
});

export function setup(): { llm: LlmSetup } {
  // Health, identification (which API, which model), then one token within `timeout`. On failure
  // preflight() aborts the test (exit 108) with the diagnosis; abortOnFailure: false returns it.
  return { llm: preflight(llm, { timeout: __ENV.PREFLIGHT_TIMEOUT ?? '5s', warmup: 1, maxPromptTokens: 64, maxTokens: 32 }) };
}

export default function (data: { llm: LlmSetup }) {
  llm.adopt(data.llm);
  const r = llm.complete('Say hello.', { maxTokens: 16 });
  check(r, { ok: (x) => x.ok });
}

export function handleSummary(data: SummaryData) {
  return llmSummary(data, { title: 'preflight', dir: __ENV.RESULTS_DIR ?? '.' });
}
