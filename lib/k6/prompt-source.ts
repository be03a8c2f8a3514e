// Where a VU's prompts come from, behind one interface: seeded token pools (the default) or a
// dataset (DATASET, with multi-turn conversations). The request loop asks a source for the next
// prompt and tells it how the request went; it never asks which source it has.
import type { BenchConfig } from '../config/config-types';
import type { GenerationResult, Prompt } from '../dialects/types';
import { recordDatasetRequest } from '../metrics/dataset-samples';
import type { AddSample } from '../metrics/samples';
import type { Run } from '../plan/matrix';
import type { ResolvedVariant, SetupData } from '../variants';
import { promptIndex } from '../workload/seeded-prompts';
import type { Structured } from '../dialects/structured';
import type { ImageInput } from '../dialects/types';
import type { DatasetVu } from './shared-dataset';
import type { PromptPools } from './prompt-pools';

export interface NextPrompt {
  prompt: Prompt;
  maxTokens: number;
  /** Pause before sending (a user's think time between turns), ms; 0 for none. */
  pauseMs: number;
  /** A trace replay: the epoch ms the request is due; sent then, and its lateness recorded. */
  dueMs?: number;
  /** A dataset row's own tools and response_format; absent: TOOLS / RESPONSE_FORMAT apply. */
  structured?: Structured;
  /** A dataset row's own images; absent: the cell's (IMAGES), if any. */
  images?: ImageInput[];
}

export interface PromptSource {
  /** A VU's first iteration in a run: its variant, the run and the VU's slot among the run's VUs. */
  start(data: SetupData, variant: ResolvedVariant, run: Run, slot: number): void;
  /**
   * A replay: the epoch ms the next request is due, read before it is built. The VU waits until
   * shortly before then to build it: VUs building prompts due far ahead would otherwise take the
   * CPU from those sending now (at a replay's start, every VU at once).
   */
  due?(): number;
  next(run: Run, variant: ResolvedVariant): NextPrompt;
  /** How the request went (a conversation's next turn may depend on the reply). */
  done(result: GenerationResult, add: AddSample): void;
  /** Before work that is not a request (the server-metrics probe): tags of the last request off. */
  clearTags(): void;
}

/** Seeded token-id (or text) prompts of exact length, cycled in the same order for every variant. */
export function poolSource(cfg: BenchConfig, pools: PromptPools): PromptSource {
  let slot = 0;
  let sent = 0;
  return {
    start(_data, _variant, _run, s) {
      slot = s;
      sent = 0;
    },
    next(run, variant) {
      return {
        prompt: pools.prompt(run.cell.isl, variant.promptKind, promptIndex(slot, sent++, run.vus, cfg.promptPool)),
        maxTokens: run.cell.osl,
        pauseMs: 0,
      };
    },
    done() {},
    clearTags() {},
  };
}

/** DATASET's prompts, bucketed by length into the cell's ISL; conversations turn by turn. */
export function datasetSource(cfg: BenchConfig, vu: DatasetVu): PromptSource {
  const thinkMs = cfg.dataset?.thinkTimeMs ?? 0;
  let intended: number | null = null;
  return {
    start(data, variant, run, slot) {
      if (data.dataset) vu.start(data.dataset, variant, run.cell.isl, slot, run.vus);
    },
    next(run) {
      const item = vu.next(run.cell.osl);
      intended = item.intended;
      // A user reading the reply and typing the next turn: the VU's own pause, not a client gap.
      return { prompt: item.prompt, maxTokens: item.maxTokens, pauseMs: item.turn > 1 ? thinkMs : 0, structured: item.structured, images: item.images };
    },
    done(result, add) {
      recordDatasetRequest(result, intended, add);
      vu.done(result);
    },
    clearTags: () => vu.clearTags(),
  };
}
