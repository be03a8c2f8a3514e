// Whether two runs measured the same workload. A difference in what was sent (benchmark, lengths,
// prompts, transport, the variants' engines, dialects and models) makes a ratio meaningless, so the
// comparison refuses it unless forced; a difference in how long or how finely it was measured
// (DURATION, SLICES, the load levels) is only noted: the cells both runs have are still alike.
import type { BenchSummary, SettingValue } from './read-summary';
import { settingsOf } from '../report/run-settings';

export interface Difference {
  /** The setting's name as the user knows it (ISL, SEED, variant mtp model …). */
  what: string;
  baseline: string;
  next: string;
}

export interface WorkloadCheck {
  /** Workload differences: the comparison is refused unless forced. */
  differences: Difference[];
  /** Measurement differences and settings one of the runs did not record. */
  notes: string[];
}

/** Settings that shape the requests sent; compared when both summaries record them. */
export const WORKLOAD_SETTINGS = settingsOf('workload');

/** Settings of the measurement: a difference is reported beside the results, not refused. */
export const MEASUREMENT_SETTINGS = settingsOf('measurement');

const show = (v: SettingValue | undefined): string => (v === null || v === undefined ? '(unset)' : typeof v === 'string' ? `'${v}'` : String(v));

/**
 * A setting's value, or undefined when the summary does not record it. Summaries from before
 * DATASET was a setting still record the dataset's source in their dataset section.
 */
function setting(s: BenchSummary, key: string): SettingValue | undefined {
  if (key in s.settings) return s.settings[key];
  if (key === 'DATASET' && s.dataset !== undefined) return s.dataset === null ? null : (s.dataset.source ?? '').replace(/^DATASET=/, '');
  return undefined;
}

export function checkWorkload(base: BenchSummary, next: BenchSummary): WorkloadCheck {
  const differences: Difference[] = [];
  const notes: string[] = [];
  const differ = (what: string, a: SettingValue | undefined, b: SettingValue | undefined) => {
    if (a !== b) differences.push({ what, baseline: show(a), next: show(b) });
  };
  differ('benchmark', base.benchmark, next.benchmark);
  differ('TRANSPORT', base.transport ?? base.settings.TRANSPORT, next.transport ?? next.settings.TRANSPORT);
  const unrecorded: string[] = [];
  for (const key of WORKLOAD_SETTINGS) {
    const a = setting(base, key);
    const b = setting(next, key);
    if (a === undefined && b === undefined) continue;
    // Only one test records it: an older summary. Unchecked, and said so.
    if (a === undefined || b === undefined) {
      if ((a ?? b) !== null) unrecorded.push(`${key} (${a === undefined ? 'baseline' : 'new run'} does not record it)`);
      continue;
    }
    differ(key, a, b);
  }
  const variants = (s: BenchSummary) => s.variants.map((v) => v.variant);
  differ('variants', variants(base).join(','), variants(next).join(','));
  for (const variant of base.variants) {
    const u = next.variants.find((x) => x.variant === variant.variant);
    if (!u) continue;
    // A new version of the same server is what a baseline comparison is for: the engine's kind must match, its version may not.
    differ(`variant ${variant.variant} engine`, engineKind(variant.engineLabel), engineKind(u.engineLabel));
    if (variant.engineLabel !== u.engineLabel && engineKind(variant.engineLabel) === engineKind(u.engineLabel))
      notes.push(`variant ${variant.variant}: ${show(variant.engineLabel ?? null)} in the baseline, ${show(u.engineLabel ?? null)} in the new run.`);
    for (const field of ['dialect', 'model'] as const) differ(`variant ${variant.variant} ${field}`, variant[field] ?? null, u[field] ?? null);
  }
  for (const key of MEASUREMENT_SETTINGS) {
    const a = base.settings[key];
    const b = next.settings[key];
    if (a === undefined || b === undefined || a === b) continue;
    const why = key === 'CONCURRENCY' || key === 'RATE' ? 'only the cells both runs measured are compared' : 'the same workload, measured differently';
    notes.push(`${key} differs (${show(a)} in the baseline, ${show(b)} in the new run): ${why}.`);
  }
  if (unrecorded.length > 0) notes.push(`not checked, recorded by one test only: ${unrecorded.join(', ')}.`);
  return { differences, notes };
}

/** The server software without its version: "vLLM 0.20.1" → "vLLM", "llama.cpp b4567" → "llama.cpp". */
export function engineKind(engine: string | undefined): string | null {
  if (engine === undefined) return null;
  const words = engine.split(/\s+/).filter((w) => w !== '' && !/^(v|b)?\d[\w.+-]*$/i.test(w) && !/^\(.*\)$/.test(w));
  return words.join(' ');
}

/** "ISL ('64' vs '128'), SEED (1 vs 2)": baseline value first. */
export function describeDifferences(d: Difference[]): string {
  return d.map((x) => `${x.what} (${x.baseline} vs ${x.next})`).join(', ');
}
