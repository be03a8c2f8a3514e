// Concurrency ramps: the level after which more concurrency stops paying (findKnee, figures/load-limits.ts).
import { findKnee, type Knee } from '../figures/load-limits';
import { esc } from '../render/svg/common';
import type { ReportSection } from './section';

export const knee: ReportSection<Knee> = {
  key: 'knee',
  jsonKey: 'knee',
  slot: 'conclusions',
  build: ({ kind, complete }) => (kind === 'ramp' ? findKnee(complete.runs) : null),
  text: (k) => ['', `Concurrency: ${k.text}`],
  markdown: (k) => [`**Concurrency knee:** ${k.text}`, ''],
  html: (k) => `<div class="box callout"><b>Concurrency knee:</b> ${esc(k.text)}</div>`,
  json: (k) => k,
};
