// The measuring iteration: one request from the prompt source to the run's variant, its samples,
// its first error of each class logged, and the back-off and variant-down rules.
import { sleep } from 'k6';
import { recordGap, type Outcome } from '../metrics/samples';
import type { SetupData } from '../variants';
import type { Bench } from './lifecycle/each-vu-bench';
import { llmRequest } from './request';
import { poolingIteration } from './pooling-iteration';
import { nextAdapter } from './adapter-tag';
import { abortIfPreflightFailed } from './preflight-gate';
import { vuRun, type VuRun } from './lifecycle/each-run';

/**
 * A replayed request is built this long before it is due. Built at once, the 64 VUs of a replay's
 * start each built a prompt of thousands of tokens while the first requests were due: on 2 cores
 * the requests due in the first ~300 ms left late by the server's record, after the client had
 * stamped them on time (test/scenarios/trace.test.ts).
 */
const PREPARE_MS = 100;

export function makeMeasure(b: Bench): (data: SetupData) => void {
  const { cfg, add } = b;
  // Each VU logs the first error of each class it meets; the summary has the counts.
  const logged = new Set<string>();
  let current: VuRun | null = null;
  return function measure(data: SetupData): void {
    abortIfPreflightFailed(data);
    const prev = current;
    const cur = (current = vuRun(b, data, current));
    if (cur !== prev) {
      const wait = cur.firstSendMs - Date.now();
      if (wait > 0) sleep(wait / 1000);
    }
    if (idleIfDown(b, cur)) return;
    // embeddings, rerank: a request of BATCH items to the pooling route, then the same gap, log and back-off.
    if (cfg.pooling) return settle(cur, poolingIteration(b, cur));
    const { run, variant } = cur;
    const due = b.source.due?.();
    if (due !== undefined) {
      const early = due - PREPARE_MS - Date.now();
      if (early > 0) sleep(early / 1000);
    }
    const p = b.source.next(run, variant);
    if (p.pauseMs > 0) {
      sleep(p.pauseMs / 1000);
      cur.lastEndMs = null;
    }
    if (p.dueMs !== undefined) {
      // Until the first whole ms at or after the instant: k6's clock reads whole ms, so the lag is never read below 0.
      const wait = Math.ceil(p.dueMs) - Date.now();
      if (wait > 0) sleep(wait / 1000);
    }
    const req = {
      prompt: p.prompt,
      maxTokens: p.maxTokens,
      ignoreEos: cfg.ignoreEos,
      temperature: cfg.temperature,
      stream: b.stream,
      model: variant.model || undefined,
      adapter: cur.adapters ? nextAdapter(cur.adapters, variant) : undefined,
      images: p.images ?? b.images?.images(run.cell.images),
      structured: p.structured ?? cfg.structured ?? undefined,
    };
    const outcome = llmRequest(b.send, variant, req, cfg.requestTimeoutMs, { window: cur.window, slo: b.slo, add });
    // The VU's own time between requests: a closed loop's load is only as high as this lets it be.
    if (cur.lastEndMs !== null) recordGap(outcome.startMs - cur.lastEndMs, cur.window, add);
    if (p.dueMs !== undefined) add('scheduleLag', outcome.startMs - p.dueMs);
    // IMAGES: each request's prompt count, in cells with images and without, for the report's difference.
    if (b.images !== null && outcome.result.ok && outcome.result.promptTokens !== null) add('promptLength', outcome.result.promptTokens);
    b.source.done(outcome.result, add);
    settle(cur, outcome);
  };

  /** After a request: its first error of each class logged, then the back-off rules. */
  function settle(cur: VuRun, outcome: Outcome): void {
    if (cfg.pooling && cur.lastEndMs !== null) recordGap(outcome.startMs - cur.lastEndMs, cur.window, add);
    const err = outcome.result.error;
    if (err && !logged.has(err.class)) {
      logged.add(err.class);
      console.warn(`${cur.run.variant} ${cur.run.cell.id}: ${err.class}: ${err.message}`);
    }
    backOff(cur, outcome);
  }
}

/** Nothing more is sent to a variant declared down; a closed-loop VU idles instead of spinning. */
function idleIfDown(b: Bench, cur: VuRun): boolean {
  if (cur.reach.downAtMs === null) return false;
  if (!cur.downNoted) {
    cur.downNoted = true;
    b.add('variantDown', 1);
    // The old name too, until the next release (catalog.ts).
    b.add('variantDownOldName', 1);
  }
  if (cur.run.cell.load.kind === 'vus') sleep(1);
  return true;
}

/** While nothing listens: wait (50 ms doubling to 1 s), and after VARIANT_DOWN_AFTER declare the variant down. */
function backOff(cur: VuRun, outcome: Outcome): void {
  const r = cur.reach;
  const next = r.after(outcome.result.error?.class === 'unreachable', outcome.endMs);
  if (next.declaredDown) {
    console.warn(
      `${cur.run.variant}: nothing has listened at ${cur.variant.url} for ${Math.round((outcome.endMs - (r.downSinceMs ?? outcome.endMs)) / 1000)} ` +
        `s (VARIANT_DOWN_AFTER): ` +
        'declared down; this VU sends it nothing more and the report marks its remaining runs as not fully measured.',
    );
  }
  if (next.waitMs > 0) sleep(next.waitMs / 1000);
  cur.lastEndMs = next.waitMs > 0 || cur.run.cell.load.kind !== 'vus' ? null : outcome.endMs;
}
