// Which metric samples one finished request produces. Pure, so the arithmetic is tested in Node;
// the k6 layer only calls .add() on each.
import type { GenerationResult } from '../dialects/types';
import type { MetricKey } from './catalog';
import { requestTiming, sliceOf, sliceTokens, type TimedEvent } from './timing';

export interface Sample {
  metric: MetricKey;
  value: number;
  tags?: Record<string, string>;
}

export interface Outcome {
  result: GenerationResult;
  startMs: number;
  endMs: number;
  /** Token-carrying events with arrival times; null when the transport cannot see events. */
  events: TimedEvent[] | null;
}

export interface Window {
  /** Client clock when the cell (k6 scenario) started. */
  cellStartMs: number;
  sliceMs: number;
  slices: number;
  /** REQUESTS mode: also report when the last request ended. */
  trackLastEnd: boolean;
}

export interface SloLimits {
  ttftP99Ms: number | null;
  itlP99Ms: number | null;
  e2eP99Ms: number | null;
}

/**
 * Goodput's rule (as in DistServe): a request is good when it succeeded and its own e2e, TTFT and
 * TPOT are within the SLO values set; its TPOT stands for its inter-token latency.
 */
function meetsSlo(e2eMs: number, ttftMs: number | null, tpotMs: number | null, slo: SloLimits): boolean {
  if (slo.e2eP99Ms !== null && e2eMs > slo.e2eP99Ms) return false;
  if (slo.ttftP99Ms !== null && (ttftMs === null || ttftMs > slo.ttftP99Ms)) return false;
  if (slo.itlP99Ms !== null && (tpotMs === null || tpotMs > slo.itlP99Ms)) return false;
  return true;
}

// Tag objects are shared, not built per sample: k6 reads them, it does not keep them.
const SLICE_TAGS: Array<Record<string, string>> = [];
const sliceTags = (k: number) => (SLICE_TAGS[k] ??= { slice: String(k) });
const ERROR_TAGS: Record<string, Record<string, string>> = {};
const errorTags = (cls: string) => (ERROR_TAGS[cls] ??= { error_class: cls });

export function requestSamples(o: Outcome, w: Window, slo: SloLimits): Sample[] {
  const r = o.result;
  if (!r.ok) {
    return [
      { metric: 'success', value: 0 },
      { metric: 'errors', value: 1, tags: errorTags(r.error?.class ?? 'invalid_reply') },
    ];
  }
  const t = requestTiming(o.startMs, o.endMs, o.events, r.completionTokens);
  const out: Sample[] = [
    { metric: 'success', value: 1 },
    { metric: 'e2e', value: t.e2eMs },
  ];
  if (t.ttftMs !== null) out.push({ metric: 'ttft', value: t.ttftMs });
  if (t.itlMs !== null) for (const v of t.itlMs) out.push({ metric: 'itl', value: v });
  if (t.tpotMs !== null) out.push({ metric: 'tpot', value: t.tpotMs });
  if (r.promptTokens !== null) out.push({ metric: 'inputTokens', value: r.promptTokens });
  if (r.cachedTokens !== null) out.push({ metric: 'cachedTokens', value: r.cachedTokens });
  const tokens = r.completionTokens;
  if (tokens !== null) {
    out.push({ metric: 'outputTokens', value: tokens });
    if (t.e2eMs > 0) out.push({ metric: 'requestTps', value: tokens / (t.e2eMs / 1000) });
    for (const [slice, n] of sliceTokens(o.startMs, o.endMs, tokens, w.cellStartMs, w.sliceMs, w.slices, o.events)) {
      out.push({ metric: 'windowTokens', value: n, tags: sliceTags(slice) });
    }
  }
  if (r.specVerifySteps !== null && r.specVerifySteps > 0 && tokens !== null) {
    out.push({ metric: 'specVerifySteps', value: r.specVerifySteps });
    out.push({ metric: 'specTokens', value: tokens });
  }
  if (r.acceptanceLength !== null) out.push({ metric: 'acceptance', value: r.acceptanceLength });
  const endSlice = sliceOf(o.endMs, w.cellStartMs, w.sliceMs, w.slices);
  if (endSlice >= 0) {
    const tags = sliceTags(endSlice);
    out.push({ metric: 'windowRequests', value: 1, tags });
    out.push({ metric: 'windowE2e', value: t.e2eMs, tags });
  }
  if (w.trackLastEnd) out.push({ metric: 'windowLastEnd', value: o.endMs - w.cellStartMs });
  if (meetsSlo(t.e2eMs, t.ttftMs, t.tpotMs, slo)) out.push({ metric: 'good', value: 1 });
  return out;
}
