// The report's sections, in the order every format shows them within a slot (section.ts). A new
// section is a file beside these and one entry here; buildReport builds each once and the four
// renderers (render/: text-report.ts, markdown-report.ts, html-report.ts, summary-json.ts) loop over this list.
import type { Report } from '../report-types';
import { acceptance } from './acceptance-section';
import { adapters } from './adapters-section';
import { clientSelfCheck } from './client-check-section';
import { comparisons } from './comparisons-section';
import { cost } from './cost-section';
import { dataset } from './dataset-section';
import { energy } from './energy-section';
import { errors } from './errors-section';
import { fallBehind } from './fall-behind-section';
import { figures } from './figures-section';
import { frontier } from './frontier-section';
import { images } from './images-section';
import { instances } from './instances-section';
import { knee } from './knee-section';
import { pooling } from './pooling-section';
import { prefixCache } from './prefix-cache-section';
import { serving } from './serving-section';
import { shortReplies } from './short-replies-section';
import { structured } from './structured-section';
import { slos } from './slos-section';
import { valueOf, store, type AnySection, type SectionInputs, type Slot } from './section';
import { versus } from './versus-section';

export type { ReportSection, SectionInputs, Slot } from './section';

// figures between versus and knee: report.html draws the charts after the verdicts and before the knee they mark.
// serving before the verdicts: the configurations a verdict's "confounded" names.
export const SECTIONS: AnySection[] = [
  clientSelfCheck,
  instances,
  serving,
  comparisons,
  versus,
  pooling,
  figures,
  knee,
  fallBehind,
  dataset,
  adapters,
  acceptance,
  images,
  cost,
  energy,
  frontier,
  prefixCache,
  errors,
  shortReplies,
  structured,
  slos,
];

/** Adds a section at the end of the list (or in place of the one with its jsonKey), as an entry above would. */
export function registerSection(s: AnySection): void {
  const at = SECTIONS.findIndex((x) => x.jsonKey === s.jsonKey);
  if (at >= 0) SECTIONS.splice(at, 1, s);
  else SECTIONS.push(s);
}

export function buildSections(r: Report, i: SectionInputs): void {
  for (const s of SECTIONS) {
    const v = s.build(i);
    store(r, s, v);
    if (v !== null && s.warnings) r.warnings.push(...s.warnings(v));
  }
}

/** The sections of a slot that apply to this report, each with what it built. */
function built(r: Report, slot: Slot): Array<[AnySection, unknown]> {
  const out: Array<[AnySection, unknown]> = [];
  for (const s of SECTIONS) {
    const v = valueOf(r, s);
    if (s.slot === slot && v !== null && v !== undefined) out.push([s, v]);
  }
  return out;
}

export const sectionsText = (r: Report, slot: Slot): string[] => built(r, slot).flatMap(([s, v]) => s.text(v, r));
export const sectionsMarkdown = (r: Report, slot: Slot): string[] => built(r, slot).flatMap(([s, v]) => s.markdown(v, r));
export const sectionsHtml = (r: Report, slot: Slot): string[] => built(r, slot).map(([s, v]) => s.html(v, r));

/** summary.json's keys of a slot: null for a section that does not apply, none for one that says nothing there. */
export function sectionsJson(r: Report, slot: Slot): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const s of SECTIONS) {
    if (s.slot !== slot) continue;
    const v = valueOf(r, s);
    out[s.jsonKey] = v === null || v === undefined ? null : s.json(v, r);
  }
  return out;
}

/** summary.json's note on renamed keys: old path → the new name, and that the old one goes in the next release. */
export function renamedKeys(others: Record<string, string> = {}): Record<string, string> {
  const out: Record<string, string> = {};
  for (const renamed of [others, ...SECTIONS.map((s) => s.renamed ?? {})])
    for (const [old, now] of Object.entries(renamed)) out[old] = `renamed ${now}; the old key is written until the next release`;
  return out;
}
