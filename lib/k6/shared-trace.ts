// TRACE in k6: the file is read and parsed once per test inside SharedArray callbacks (only the
// first VU runs them), and each iteration of a replay run sends the trace's next request at its
// instant: k6's shared-iterations executor hands iteration i to a free VU, which sleeps until
// request i is due and then sends it. The lag (sent − due) is measured in measure.ts.
import exec from 'k6/execution';
import { SharedArray } from 'k6/data';
import { TOKEN_ID_FLOOR, type BenchConfig } from '../config/load';
import { ConfigError } from '../config/parse';
import type { Prompt } from '../dialects/types';
import { parseTrace, traceShape, traceUnits, tokenUnit, windowOf, wordUnit, dueMs, type BlockSpec, type TraceEntry, type TraceShape } from '../workload/trace';
import type { PromptSource } from './prompt-source';
import { arrivalTrace } from '../workload/arrivals';

export interface SharedTrace {
  source: string;
  shape: TraceShape;
  entry(index: number): TraceEntry;
}

let parsed: { entries: TraceEntry[]; shape: TraceShape } | { error: string } | null = null;

/** Reads TRACE at init; null when unset. Throws ConfigError (one line naming file and line). */
export function openTrace(cfg: BenchConfig, read: (path: string) => string): SharedTrace | null {
  const t = cfg.trace;
  if (t === null) return null;
  const key = `trace:${t.spec}:${t.window?.fromMs ?? ''}-${t.window?.toMs ?? ''}`;
  const build = () => {
    if (parsed === null) {
      try {
        const trace = t.arrivals ? arrivalTrace(t.arrivals, cfg.seed) : windowOf(parseTrace(readTrace(t.spec, read), t.spec), t.window);
        parsed = { entries: trace.entries, shape: traceShape(trace) };
      } catch (e) {
        if (!(e instanceof ConfigError)) throw e;
        parsed = { error: e.message };
      }
    }
    return parsed;
  };
  const head = new SharedArray(`${key}:meta`, () => {
    const b = build();
    return ['error' in b ? { error: b.error } : b.shape];
  }) as unknown as ArrayLike<TraceShape & { error?: string }>;
  const meta = head[0];
  if (meta.error !== undefined) throw new ConfigError(meta.error);
  const entries = new SharedArray(`${key}:entries`, () => {
    const b = build();
    parsed = null; // the last callback: the parsed copy can go
    return 'error' in b ? [] : b.entries;
  }) as unknown as ArrayLike<TraceEntry>;
  return { source: t.spec, shape: meta, entry: (i) => entries[i] };
}

function readTrace(spec: string, read: (path: string) => string): string {
  try {
    return read(spec);
  } catch (e) {
    throw new ConfigError(
      `TRACE=${spec}: cannot read the file: k6 reads it relative to the bundle (dist/), so give an absolute path or one like ../trace.jsonl (${String(e)}).`,
    );
  }
}

/** Blocks a VU keeps for reuse: enough for the prefixes that repeat close together, bounded so 64 VUs stay small. */
const BLOCK_CACHE = 64;

/** The replay's prompts: request i of the trace, due at the run's start + its offset over TRACE_SPEED. */
export function traceSource(cfg: BenchConfig, trace: SharedTrace): PromptSource {
  const t = cfg.trace as NonNullable<BenchConfig['trace']>;
  const spec: BlockSpec = { seed: cfg.seed, blockSize: t.blockSize, idFloor: TOKEN_ID_FLOOR, vocabSize: cfg.vocabSize };
  const tokenBlocks = bounded<number>();
  const wordBlocks = bounded<string>();
  const token = tokenUnit(spec);
  let startMs = 0;
  return {
    start() {
      startMs = exec.scenario.startTime;
    },
    due() {
      return startMs + dueMs(trace.entry(exec.scenario.iterationInTest), t.speed);
    },
    next(_run, variant) {
      const index = exec.scenario.iterationInTest;
      const e = trace.entry(index);
      const prompt: Prompt =
        variant.promptKind === 'tokens'
          ? { kind: 'tokens', json: '[' + traceUnits(e, index, spec, tokenBlocks, token).join(',') + ']', length: e.input }
          : { kind: 'text', text: traceUnits(e, index, spec, wordBlocks, wordUnit).join(' ') };
      return { prompt, maxTokens: e.output, pauseMs: 0, dueMs: startMs + dueMs(e, t.speed) };
    },
    done() {},
    clearTags() {},
  };
}

/** A Map that forgets its oldest entry past BLOCK_CACHE (insertion order). */
function bounded<T>(): Map<number, T[]> {
  const m = new Map<number, T[]>();
  const set = m.set.bind(m);
  m.set = (k, v) => {
    if (m.size >= BLOCK_CACHE) m.delete(m.keys().next().value as number);
    return set(k, v);
  };
  return m;
}
