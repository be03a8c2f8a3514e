// One server, three APIs: the same question over /v1/chat/completions, Anthropic Messages
// (/v1/messages) and OpenAI Responses (/v1/responses), as agent tools and coding assistants call
// vLLM, SGLang and llama.cpp. Every sample carries the API spoken in its `dialect` tag, so the
// thresholds below and the summary compare the three routes of one deployment.
//
//   k6 run -e LLM_URL=http://127.0.0.1:8000 [-e LLM_API_KEY=…] dist/three-apis.js
import { check } from 'k6';
import { LlmClient, llmOptions, llmSummary, type SummaryData } from 'k6-llm-bench';

const llm = new LlmClient({
  url: __ENV.LLM_URL,
  dialect: 'openai-chat', // the client's own API; messages() and responses() speak the others
  apiKey: __ENV.LLM_API_KEY, // Messages gets it as x-api-key (with anthropic-version), the others as a bearer token
  transport: __ENV.TRANSPORT === 'http' ? 'http' : 'sse',
  name: 'server',
  defaults: { maxTokens: 48, ignoreEos: true },
});

export const options = llmOptions({
  scenarios: { users: { executor: 'per-vu-iterations', vus: Number(__ENV.VUS ?? 2), iterations: Number(__ENV.ITERATIONS ?? 2) } },
  thresholds: {
    'llm_success{dialect:openai-chat}': ['rate>0.99'],
    'llm_success{dialect:anthropic}': ['rate>0.99'],
    'llm_success{dialect:responses}': ['rate>0.99'],
    'llm_e2e{dialect:anthropic}': ['p(95)<5000'],
    'llm_e2e{dialect:responses}': ['p(95)<5000'],
  },
});

const QUESTION = [
  { role: 'system', content: 'Answer in one sentence.' },
  { role: 'user', content: 'Why does the sea look blue?' },
];

export default function () {
  const chat = llm.chat(QUESTION);
  const messages = llm.messages(QUESTION);
  const responses = llm.responses('Why does the sea look blue? Answer in one sentence.');
  check(null, {
    'every API answered': () => chat.ok && messages.ok && responses.ok,
    'each with the tokens asked for': () => [chat, messages, responses].every((r) => r.completionTokens === 48),
  });
}

export function handleSummary(data: SummaryData) {
  return llmSummary(data, { title: 'one server, three APIs', dir: __ENV.RESULTS_DIR ?? '.' });
}
