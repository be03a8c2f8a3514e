// Arrival-rate ramps: the first offered rate the server does not keep up with (findFallBehind, figures/load-limits.ts).
import { findFallBehind, type FallBehind } from '../figures/load-limits';
import { esc } from '../render/svg/common';
import type { ReportSection } from './section';

export const fallBehind: ReportSection<FallBehind> = {
  key: 'fallBehind',
  jsonKey: 'fall_behind',
  slot: 'conclusions',
  build: ({ kind, complete }) => (kind === 'arrival' ? findFallBehind(complete.runs) : null),
  text: (f) => ['', `Arrival rate: ${f.text}`],
  markdown: (f) => [`**Arrival rate:** ${f.text}`, ''],
  html: (f) => `<div class="box callout"><b>Arrival rate:</b> ${esc(f.text)}</div>`,
  json: (f) => f,
};
