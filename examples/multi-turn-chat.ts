// A multi-turn chat: each VU replays conversations from the built-in prompt set, sending the
// history with the server's own replies, turn after turn. Each call is tagged with its turn, so
// thresholds and the summary can tell a first question from a long conversation's fifth.
//
//   k6 run -e LLM_URL=http://127.0.0.1:8000 dist/multi-turn-chat.js
import { check, sleep } from 'k6';
import { builtinPrompts, LlmClient, llmOptions, llmSummary, messagesOf, turnsOf, type Message, type SummaryData } from 'k6-llm-bench';

const chat = new LlmClient({
  url: __ENV.LLM_URL,
  dialect: 'openai-chat', // /v1/chat/completions; the model is the one GET /v1/models lists
  transport: __ENV.TRANSPORT === 'http' ? 'http' : 'sse',
  name: 'chat',
});

// Conversations of two or more user turns, from the prompts the benchmarks use (the same on every
// machine). loadPrompts('my.jsonl') reads your own (ShareGPT or OpenAI messages).
const conversations = builtinPrompts(['chat']).filter((item) => turnsOf(item) >= 2);

export const options = llmOptions({
  scenarios: { users: { executor: 'per-vu-iterations', vus: Number(__ENV.VUS ?? 2), iterations: Number(__ENV.ITERATIONS ?? 2) } },
  thresholds: {
    llm_success: ['rate>0.99'],
    // Per-turn sub-metrics: the later turns carry more history.
    'llm_e2e{turn:1}': ['p(95)<5000'],
    'llm_e2e{turn:2}': ['p(95)<5000'],
  },
});

export default function () {
  const item = conversations[(__VU * 7 + __ITER) % conversations.length];
  const history: Message[] = [];
  for (let turn = 1; turn <= Math.min(turnsOf(item), 3); turn++) {
    // The user's turn as recorded (its last message); the assistant's turns are the server's replies.
    const recorded = messagesOf(item, turn);
    history.push(recorded[recorded.length - 1]);
    const reply = chat.chat(history, { maxTokens: 40, tags: { turn: String(turn) } });
    check(reply, { 'reply received': (r) => r.ok });
    if (!reply.ok) break;
    history.push({ role: 'assistant', content: reply.text });
    sleep(0.3); // the user reads and types
  }
}

export function handleSummary(data: SummaryData) {
  return llmSummary(data, { title: 'multi-turn chat', dir: __ENV.RESULTS_DIR ?? '.' });
}
