// Is an A/B fair? Each variant's serving configuration (read before any load) against the
// baseline's: a setting that differs, other than the speculative method and its draft settings
// (the intended difference), confounds the verdict, unless AB_DIFFERS declares it. A setting one
// side does not expose is not compared, never assumed equal.
import { SERVING_SETTINGS, SERVING_SETTING_NAMES, showSetting, type ReadSetting, type ServingConfig, type ServingSetting } from '../../engines/serving-config';

/** A row's standing: equal everywhere, a confounder, a declared difference, the intended difference, or not compared. */
export type RowMark = 'same' | 'differs' | 'declared' | 'intended' | 'not_compared';

export interface ServingRow {
  setting: ServingSetting;
  /** Per variant, in the variants' order: what it serves with; null: not exposed. */
  values: Array<ReadSetting | null>;
  mark: RowMark;
}

/** One setting that differs between a variant and the baseline. */
export interface Difference {
  setting: ServingSetting;
  baseline: string;
  variant: string;
  /** The baseline's value, then the variant's, as shown. */
  values: [string, string];
  /** The flag that sets it, where the profile names one. */
  flag?: string;
}

export interface PairCheck {
  variant: string;
  baseline: string;
  /** Differences that confound the verdict. */
  confounders: Difference[];
  /** Differences AB_DIFFERS declared. */
  declared: Difference[];
  /** Settings one of the two exposes and the other does not. */
  notCompared: ServingSetting[];
}

export interface ServingComparison {
  variants: string[];
  baseline: string;
  rows: ServingRow[];
  /** Each variant against the baseline. */
  pairs: PairCheck[];
  /** AB_DIFFERS, as given. */
  declared: ServingSetting[];
  /** Settings no variant exposes (the speculative ones aside). */
  exposedByNone: ServingSetting[];
  /** Per variant: the routes asked and their outcome. */
  read: Record<string, string[]>;
}

const intended = (s: ServingSetting) => SERVING_SETTINGS[s].group === 'speculative';

function same(a: ReadSetting, b: ReadSetting): boolean {
  return a.value === b.value;
}

function pairCheck(rows: ServingRow[], names: string[], i: number, b: number, declared: readonly ServingSetting[]): PairCheck {
  const out: PairCheck = { variant: names[i], baseline: names[b], confounders: [], declared: [], notCompared: [] };
  for (const row of rows) {
    if (intended(row.setting)) continue;
    const [base, mine] = [row.values[b], row.values[i]];
    if (base === null && mine === null) continue;
    if (base === null || mine === null) {
      out.notCompared.push(row.setting);
      continue;
    }
    if (same(base, mine)) continue;
    const d: Difference = { setting: row.setting, baseline: names[b], variant: names[i], values: [showSetting(base.value), showSetting(mine.value)] };
    const flag = mine.flag ?? base.flag;
    if (flag) d.flag = flag;
    (declared.includes(row.setting) ? out.declared : out.confounders).push(d);
  }
  return out;
}

function markOf(setting: ServingSetting, values: Array<ReadSetting | null>, declared: readonly ServingSetting[]): RowMark {
  if (intended(setting)) return 'intended';
  if (values.some((v) => v === null)) return 'not_compared';
  const first = values[0] as ReadSetting;
  if (values.every((v) => same(first, v as ReadSetting))) return 'same';
  return declared.includes(setting) ? 'declared' : 'differs';
}

/** The variants' configurations side by side and each against the baseline; null when no variant's was read (a record of an older release). */
export function compareServing(
  variants: ReadonlyArray<{ variant: string; serving?: ServingConfig }>,
  baseline: string,
  declared: readonly ServingSetting[],
): ServingComparison | null {
  if (!variants.some((v) => v.serving !== undefined)) return null;
  const names = variants.map((v) => v.variant);
  const rows: ServingRow[] = [];
  const exposedByNone: ServingSetting[] = [];
  for (const setting of SERVING_SETTING_NAMES) {
    const values = variants.map((v) => v.serving?.settings[setting] ?? null);
    // The speculative settings are never compared: one no server shows is simply left out.
    if (values.every((v) => v === null)) {
      if (!intended(setting)) exposedByNone.push(setting);
    } else rows.push({ setting, values, mark: markOf(setting, values, declared) });
  }
  const b = Math.max(0, names.indexOf(baseline));
  const pairs = names.flatMap((_, i) => (i === b ? [] : [pairCheck(rows, names, i, b, declared)]));
  const read: Record<string, string[]> = {};
  for (const v of variants) read[v.variant] = v.serving?.read ?? ['not read (a record of an older release)'];
  return { variants: names, baseline: names[b], rows, pairs, declared: [...declared], exposedByNone, read };
}

/** "max_running_requests differs (none: 48, dflash: 32; set by --max-running-requests)". */
export function differenceText(d: Difference, display: (v: string) => string = (v) => v): string {
  return `${d.setting} differs (${display(d.baseline)}: ${d.values[0]}, ${display(d.variant)}: ${d.values[1]}${d.flag ? `; ${d.flag}` : ''})`;
}

/** What a verdict of `variant` against `baseline` adds: "; confounded: …" or "". */
export function confoundedNote(c: ServingComparison | null, variant: string, baseline: string, display?: (v: string) => string): string {
  const p = c?.pairs.find((x) => (x.variant === variant && x.baseline === baseline) || (x.variant === baseline && x.baseline === variant));
  if (!p || p.confounders.length === 0) return '';
  return `; confounded: ${p.confounders.map((d) => differenceText(d, display)).join('; ')}`;
}
