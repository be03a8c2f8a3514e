// Joining what the client measured of each request with the simulator's record of that request
// (fidelity.test.ts, test-hosts.test.ts). Every VU sends one prompt of its own length (PROMPT_POOL =
// streams, ISL_SPREAD gives each a distinct length, the simulator records the length), and k6's JSON
// output tags each sample with its VU and iteration (K6_OUT, K6_SYSTEM_TAGS below).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { quantileSorted } from '../../lib/stats/bootstrap';
import type { RequestRecord } from '../../sim/index';

/** k6's system tags with vu and iter added: what the join needs in `--out json`. */
export const JOIN_SYSTEM_TAGS = 'proto,subproto,status,method,url,name,group,check,error,error_code,tls_version,scenario,service,expected_response,vu,iter';

/** Linear-interpolated percentile, as k6's trend stats and the simulator's summary compute it. */
export const pct = (values: number[], p: number): number => quantileSorted(Array.from(Float64Array.from(values).sort()), p);

/** Per-token ITL of a record: each event's gap divided over the tokens it carried. */
export function truthItl(r: RequestRecord): number[] {
  const out: number[] = [];
  for (let i = 1; i < r.events.length; i++) {
    const e = r.events[i];
    if (e.tokens <= 0) continue;
    const gap = (e.timeMs - r.events[i - 1].timeMs) / e.tokens;
    for (let k = 0; k < e.tokens; k++) out.push(gap);
  }
  return out;
}

export interface ClientRequest {
  ttft: number | null;
  e2e: number | null;
  itl: number[];
  /** k6's http_req_connecting of the request (ms; 0 on a reused connection); null where k6 gave none (xk6-sse). */
  connecting: number | null;
  /** The prompt's tokens as the server counted them (llm_input_tokens); null for a failed request. */
  promptTokens: number | null;
}

/**
 * The VU that sent prompts of this server-counted length (each VU one length of its own in these
 * tests), or null. Not VU id = slot + 1: k6 lends a run any free VUs.
 */
export function vuOfLength(client: Map<number, ClientRequest[]>, promptTokens: number): number | null {
  for (const [vu, reqs] of client) if (reqs.some((r) => r?.promptTokens === promptTokens)) return vu;
  return null;
}

/** The client's samples per (VU, iteration), from k6's JSON output. */
export function clientRequests(file: string): Map<number, ClientRequest[]> {
  const byVu = new Map<number, ClientRequest[]>();
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (!line.includes('"type":"Point"') || !(line.startsWith('{"metric":"llm_') || line.startsWith('{"metric":"http_req_connecting"'))) continue;
    const p = JSON.parse(line) as { metric: string; data: { value: number; tags?: { url?: string }; metadata?: { vu?: string; iter?: string } } };
    if (!['llm_ttft', 'llm_itl', 'llm_e2e', 'llm_input_tokens', 'http_req_connecting'].includes(p.metric)) continue;
    const vu = Number(p.data.metadata?.vu);
    const iter = Number(p.data.metadata?.iter);
    // setup() (the preflight) runs outside any VU's iterations.
    if (!(vu > 0) || !Number.isInteger(iter)) continue;
    let list = byVu.get(vu);
    if (!list) byVu.set(vu, (list = []));
    const req = (list[iter] ??= { ttft: null, e2e: null, itl: [], connecting: null, promptTokens: null });
    if (p.metric === 'llm_ttft') req.ttft = p.data.value;
    else if (p.metric === 'llm_e2e') req.e2e = p.data.value;
    else if (p.metric === 'http_req_connecting') req.connecting = p.data.value;
    else if (p.metric === 'llm_input_tokens') req.promptTokens = p.data.value;
    else req.itl.push(p.data.value);
  }
  return byVu;
}

/**
 * The prompt length (as the simulator counts it) each VU slot sends. Token-id prompts: the pool's
 * lengths. Text prompts (the chat-style dialects) go through the chat template, so the simulator
 * counts more tokens than words; longer text gives more tokens, so the slots are matched by rank.
 */
export function slotLengths(lengths: number[], records: RequestRecord[], tokenIds: boolean): number[] {
  if (tokenIds) return lengths;
  const seen = [...new Set(records.map((r) => r.promptTokens))].sort((a, b) => a - b);
  assert.equal(seen.length, lengths.length, `${seen.length} distinct prompt lengths recorded for ${lengths.length} VUs`);
  const byRank = lengths.map((l, slot) => ({ l, slot })).sort((a, b) => a.l - b.l);
  const out: number[] = [];
  byRank.forEach(({ slot }, k) => (out[slot] = seen[k]));
  return out;
}
