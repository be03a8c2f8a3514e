// The replies that reasoned before answering: their count, times to the first reasoning and the
// first answer token, and their token counts where the server said them.
import { BUCKETS_OF } from '../../metrics/samples';
import { subKey } from '../../plan/summary-keys';
import type { Dist } from './dist';
import { bucketDist, count, dist, type SummaryMetrics } from './summary-metrics';

export interface Reasoning {
  requests: number;
  /** Time to the first reasoning and to the first answer token (sse only; null: not measured). */
  ttftReasoning: Dist | null;
  ttftAnswer: Dist | null;
  /** Summed over the replies whose reasoning count was said; null when none said it. */
  reasoningTokens: number | null;
  answerTokens: number | null;
}

export function reasoningOf(m: SummaryMetrics, s: string): Reasoning | null {
  const requests = count(m, subKey('reasoningRequests', s));
  if (requests === 0) return null;
  // The benchmarks declare every summary key (thresholds keep them), so a counter nothing was added
  // to is there with 0; a reply that reasoned has at least one reasoning token, so 0 is "not said"
  // (Anthropic Messages: no count per event nor in its usage).
  const reasoningTokens = count(m, subKey('reasoningTokens', s));
  const said = reasoningTokens > 0;
  return {
    requests,
    ttftReasoning: dist(m, subKey('ttftReasoning', s)),
    ttftAnswer: dist(m, subKey('ttftAnswer', s)) ?? bucketDist(m, BUCKETS_OF.ttftAnswer, s),
    reasoningTokens: said ? reasoningTokens : null,
    answerTokens: said && m[subKey('answerTokens', s)] !== undefined ? count(m, subKey('answerTokens', s)) : null,
  };
}

/** One sentence on the replies that reasoned: the answer's first token is the one a user waits for. */
export function reasoningNote(r: Reasoning): string {
  const p50 = (d: Dist | null) => (d === null || d.count === 0 ? null : `${d.p50.toFixed(1)} ms`);
  const answer = p50(r.ttftAnswer);
  const first = p50(r.ttftReasoning);
  const times =
    answer === null && first === null
      ? 'time to first answer token not measured (needs TRANSPORT=sse)'
      : `time to first answer token p50 ${answer ?? 'not measured (no reply answered)'} (every reply that answered), ` +
        `to first reasoning token p50 ${first ?? 'not measured'}`;
  const tokens =
    r.reasoningTokens === null
      ? 'reasoning tokens not measured (the server did not count them, nor did the stream per event)'
      : `${r.reasoningTokens} reasoning and ${r.answerTokens ?? 'unknown'} answer tokens`;
  return `${r.requests} replies reasoned before answering: ${times}; ${tokens}.`;
}
