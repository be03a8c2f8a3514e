// A user journey with an LLM step: a shopper lists products on your shop's API, then asks the
// shop's assistant about one of them. The LLM call is one line; its TTFT, ITL and tokens land in
// k6's metrics next to your HTTP figures, and thresholds hold both to account.
//
//   k6 run -e SHOP_URL=http://shop.local -e LLM_URL=http://127.0.0.1:30000 dist/user-journey.js
import http from 'k6/http';
import { check, group, sleep } from 'k6';
import { LlmClient, llmOptions, llmSummary, preflight, type LlmSetup, type SummaryData } from 'k6-llm-bench';

// 1. One client per LLM server, created at the top of the script (k6's init context). With the
//    sse transport each token's arrival is timed (xk6-sse); 'http' works on any k6 build.
const assistant = new LlmClient({
  url: __ENV.LLM_URL,
  dialect: 'auto', // found from the server's own routes, once per VU
  transport: __ENV.TRANSPORT === 'http' ? 'http' : 'sse',
  timeout: '20s',
  name: 'assistant', // the `variant` tag of its samples, and its label in the report
});

// 2. Your options as usual. llmOptions only adds what the report reads (always-true threshold
//    declarations and trend statistics); the thresholds below are yours.
export const options = llmOptions({
  scenarios: {
    shoppers: { executor: 'constant-vus', vus: Number(__ENV.VUS ?? 2), duration: __ENV.DURATION ?? '30s' },
  },
  thresholds: {
    'http_req_duration{name:products}': ['p(95)<500'],
    llm_success: ['rate>0.99'], // share of LLM calls that completed
    llm_e2e: ['p(95)<5000'], // whole reply, ms
    ...(__ENV.TRANSPORT === 'http' ? {} : { llm_ttft: ['p(95)<2000'] }), // first token, ms (sse only)
    checks: ['rate>0.99'],
  },
});

// 3. Preflight once, before any load: a server that answers /health but generates nothing stops
//    the test here with a diagnosis instead of 30 s timeouts later (see preflight-hung.ts).
export function setup(): { llm: LlmSetup } {
  return { llm: preflight(assistant) };
}

export default function (data: { llm: LlmSetup }) {
  assistant.adopt(data.llm); // reuse what preflight found: no lookups in each VU

  let product = 'the blue kettle';
  group('browse', () => {
    const res = http.get(`${__ENV.SHOP_URL}/products`, { tags: { name: 'products' } });
    check(res, { 'products listed': (r) => r.status === 200 });
    const items = res.json('items') as Array<{ name: string }> | undefined;
    if (items && items.length > 0) product = items[(__ITER + __VU) % items.length].name;
  });
  sleep(0.5); // the shopper reads the page

  group('ask the assistant', () => {
    // 4. The LLM step. The result is normalised whatever the server: text, tokens, timings,
    //    finish reason, or an error class and message. Figures the transport cannot measure are
    //    null (and listed in notMeasured), never estimated.
    const answer = assistant.chat(
      [
        { role: 'system', content: 'You are the shop assistant. Answer in two sentences.' },
        { role: 'user', content: `Is ${product} a good gift for a tea lover?` },
      ],
      { maxTokens: 48 },
    );
    check(answer, {
      'assistant answered': (r) => r.ok && r.text.length > 0,
      'no error': (r) => r.error === null,
    });
  });
  sleep(0.5);
}

// 5. summary.json, report.md and report.html, as the benchmarks write them, for this script.
export function handleSummary(data: SummaryData) {
  return llmSummary(data, { title: 'user journey', dir: __ENV.RESULTS_DIR ?? '.' });
}
