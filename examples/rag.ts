// A RAG step: retrieve passages from your search service, put them in the prompt, generate. The
// retrieval is a k6 HTTP request (http_req_duration{name:retrieve}), the generation an LLM
// request (llm_ttft, llm_e2e, llm_input_tokens …): one script shows where the time goes.
//
//   k6 run -e LLM_URL=http://127.0.0.1:30000 -e SEARCH_URL=http://search.local dist/rag.js
import http from 'k6/http';
import { check } from 'k6';
import { Trend } from 'k6/metrics';
import { LlmClient, llmOptions, llmSummary, type SummaryData } from 'k6-llm-bench';

const generator = new LlmClient({
  url: __ENV.LLM_URL,
  dialect: 'auto',
  transport: __ENV.TRANSPORT === 'http' ? 'http' : 'sse',
  name: 'generator',
});
const pipeline = new Trend('rag_pipeline_duration', true);

const QUESTIONS = ['How do I reset my password?', 'What is the refund policy?', 'Can I change my delivery address?'];

export const options = llmOptions({
  scenarios: { questions: { executor: 'constant-vus', vus: Number(__ENV.VUS ?? 2), duration: __ENV.DURATION ?? '30s' } },
  thresholds: {
    'http_req_duration{name:retrieve}': ['p(95)<300'],
    llm_success: ['rate>0.99'],
    rag_pipeline_duration: ['p(95)<8000'],
  },
});

export default function () {
  const question = QUESTIONS[(__VU + __ITER) % QUESTIONS.length];
  const started = Date.now();

  // 1. Retrieve.
  const res = http.get(`${__ENV.SEARCH_URL}/search?q=${encodeURIComponent(question)}&k=3`, { tags: { name: 'retrieve' } });
  const passages = (res.status === 200 ? (res.json('passages') as string[] | undefined) : undefined) ?? [];
  check(passages, { 'passages retrieved': (p) => p.length > 0 });

  // 2. Generate with the passages as context. The server's prompt_tokens (llm_input_tokens) shows
  //    what the retrieved context costs.
  const context = passages.map((p, i) => `[${i + 1}] ${p}`).join('\n');
  const answer = generator.complete(`Answer from the context only.\n\nContext:\n${context}\n\nQuestion: ${question}\nAnswer:`, { maxTokens: 64 });
  check(answer, {
    'answer generated': (r) => r.ok && r.text.length > 0,
    'the context reached the model': (r) => r.promptTokens === null || r.promptTokens > 20,
  });
  pipeline.add(Date.now() - started);
}

export function handleSummary(data: SummaryData) {
  return llmSummary(data, { title: 'rag', dir: __ENV.RESULTS_DIR ?? '.' });
}
