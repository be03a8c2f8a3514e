// The server's side of a run: its own figures from /metrics over the steady window (the probe's
// scenario), and whether the watch saw it saturate (SATURATION_STOP).
import { probeScenario, watchScenario, type Run } from '../../plan/matrix';
import { subKey } from '../../plan/summary-keys';
import { SERVER_POSITIONS } from '../../metrics/samples';
import { SATURATION_RULES } from '../../server-metrics/saturation';
import { count, single, type SummaryMetrics } from './summary-metrics';

export interface ServerFigures {
  ttftMeanMs: number | null;
  itlMeanMs: number | null;
  e2eMeanMs: number | null;
  queueMeanMs: number | null;
  acceptanceLength: number | null;
  /** Δ verify steps and Δ accepted drafts at positions 1 … 16 over the window; null when the server has no per-position counter or no step. */
  acceptedByPosition: { steps: number; accepted: number[] } | null;
  outputTokensPerSec: number | null;
  /** llama.cpp: generation time per generated token over the window (llm_server_time_per_token). */
  timePerTokenMs: number | null;
}

/** The server's own figures over the run's steady window, from its /metrics (the probe's scenario); null when it gave none. */
export function serverFigures(m: SummaryMetrics, run: Run): ServerFigures {
  const p = probeScenario(run);
  return {
    ttftMeanMs: single(m, subKey('serverTtft', p)),
    itlMeanMs: single(m, subKey('serverItl', p)),
    e2eMeanMs: single(m, subKey('serverE2e', p)),
    queueMeanMs: single(m, subKey('serverQueue', p)),
    acceptanceLength: single(m, subKey('serverAcceptance', p)),
    acceptedByPosition: serverAccepted(m, p),
    outputTokensPerSec: single(m, subKey('serverThroughput', p)),
    timePerTokenMs: single(m, subKey('serverTimePerToken', p)),
  };
}

function serverAccepted(m: SummaryMetrics, probe: string): ServerFigures['acceptedByPosition'] {
  const steps = count(m, subKey('serverSpecSteps', probe));
  if (steps === 0) return null;
  return {
    steps,
    accepted: Array.from({ length: SERVER_POSITIONS }, (_, i) => count(m, subKey('serverAcceptedByPosition', probe, { position: String(i + 1) }))),
  };
}

export interface SaturationFigures {
  rule: (typeof SATURATION_RULES)[number];
  /** From the run's start to the scrape that showed it. */
  afterMs: number | null;
  /** Requests waiting in the server's queue then. */
  waiting: number | null;
}

export function saturationOf(m: SummaryMetrics, run: Run): SaturationFigures | null {
  const w = watchScenario(run);
  const rule = SATURATION_RULES.find((r) => count(m, subKey('saturated', w, { saturation_rule: r })) > 0);
  if (rule === undefined) return null;
  return { rule, afterMs: single(m, subKey('saturationAfter', w)), waiting: single(m, subKey('saturationWaiting', w)) };
}

const SATURATION_WHY: Record<SaturationFigures['rule'], string> = {
  growing: "the server's queue kept growing",
  full: "at least half the level's requests waited in the server's queue throughout",
};

export function saturationNote(s: SaturationFigures): string {
  const when = s.afterMs === null ? '' : ` ${(s.afterMs / 1000).toFixed(1)} s into this level`;
  const queue = s.waiting === null ? '' : ` (${s.waiting} waiting)`;
  return `saturated${when}: ${SATURATION_WHY[s.rule]}${queue}; the test ended here and later levels were not run (SATURATION_STOP).`;
}
