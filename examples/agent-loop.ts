// An agent loop: the model is asked a question it needs a tool for, the script runs the tool (an
// HTTP call to your service), feeds the result back, and asks again, until the model answers or
// the step budget runs out. Each model call is one measured LLM request; the tool calls are k6
// HTTP requests; a counter of your own says how the tool was chosen.
//
// The protocol is plain text, so it works on any server: the system prompt asks the model to
// reply `TOOL get_weather <city>` when it needs the tool. The simulated server in this project
// returns filler text and never emits a tool call (neither in text nor as OpenAI tool_calls), so
// on it the first step falls back to the tool the task requires, as OpenAI's
// tool_choice: "required" would; the `agent_tool_calls{chosen_by:…}` counter says which happened.
//
//   k6 run -e LLM_URL=http://127.0.0.1:8000 -e TOOLS_URL=http://tools.local dist/agent-loop.js
import http from 'k6/http';
import { check } from 'k6';
import { Counter, Trend } from 'k6/metrics';
import { LlmClient, llmOptions, llmSummary, type Message, type SummaryData } from 'k6-llm-bench';

const model = new LlmClient({
  url: __ENV.LLM_URL,
  dialect: 'openai-chat',
  transport: __ENV.TRANSPORT === 'http' ? 'http' : 'sse',
  name: 'agent',
});

const toolCalls = new Counter('agent_tool_calls');
const taskTime = new Trend('agent_task_duration', true);
const MAX_STEPS = 4;
const CITIES = ['Lisbon', 'Oslo', 'Nairobi', 'Lima'];

export const options = llmOptions({
  scenarios: { agents: { executor: 'shared-iterations', vus: Number(__ENV.VUS ?? 2), iterations: Number(__ENV.ITERATIONS ?? 4) } },
  thresholds: {
    llm_success: ['rate>0.99'],
    agent_task_duration: ['p(95)<10000'],
    'agent_tool_calls{chosen_by:model}': ['count>=0'], // declared so the summary shows both sources
    'agent_tool_calls{chosen_by:required}': ['count>=0'],
  },
});

/** `TOOL get_weather Lisbon` anywhere in the reply; null when the model asked for no tool. */
function toolRequest(text: string): { name: string; arg: string } | null {
  const m = /^\s*TOOL\s+(\w+)\s+(.+?)\s*$/m.exec(text);
  return m ? { name: m[1], arg: m[2] } : null;
}

function runTool(name: string, arg: string): string {
  if (name !== 'get_weather') return `unknown tool ${name}`;
  const res = http.get(`${__ENV.TOOLS_URL}/weather?city=${encodeURIComponent(arg)}`, { tags: { name: 'tool get_weather' } });
  return res.status === 200 ? String(res.body) : `the tool failed with status ${res.status}`;
}

export default function () {
  const city = CITIES[(__VU + __ITER) % CITIES.length];
  const started = Date.now();
  const messages: Message[] = [
    { role: 'system', content: 'You can use one tool. To call it, reply with exactly one line: TOOL get_weather <city>. Otherwise answer the user.' },
    { role: 'user', content: `Should I take an umbrella in ${city} today?` },
  ];
  let answered = false;
  for (let step = 1; step <= MAX_STEPS && !answered; step++) {
    const reply = model.chat(messages, { maxTokens: 48, tags: { step: String(step) } });
    if (!check(reply, { 'model replied': (r) => r.ok })) break;
    messages.push({ role: 'assistant', content: reply.text });
    let call = toolRequest(reply.text);
    let chosenBy = 'model';
    if (call === null && step === 1) {
      // The task needs the weather: the first step must call the tool (tool_choice "required").
      call = { name: 'get_weather', arg: city };
      chosenBy = 'required';
    }
    if (call === null) {
      answered = true; // no tool asked for: this reply is the answer
      break;
    }
    toolCalls.add(1, { chosen_by: chosenBy });
    // The tool's result goes back as the next message; the model answers with it in context.
    messages.push({ role: 'user', content: `Result of ${call.name}(${call.arg}): ${runTool(call.name, call.arg)}` });
  }
  check(answered, { 'agent finished within the step budget': (a) => a });
  taskTime.add(Date.now() - started);
}

export function handleSummary(data: SummaryData) {
  return llmSummary(data, { title: 'agent loop', dir: __ENV.RESULTS_DIR ?? '.' });
}
