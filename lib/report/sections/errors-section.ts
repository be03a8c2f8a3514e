// Failed requests by error class (lib/dialects/types.ts ERROR_CLASSES), over the whole test and,
// in report.html, per run.
import type { ErrorClass } from '../../dialects/types';
import { ERROR_CLASSES } from '../../dialects/types';
import { METRICS } from '../../metrics/catalog';
import { display } from '../figures/ab-comparison';
import { mdTable } from '../render/report-format';
import { htmlSection } from '../render/html-parts';
import { esc } from '../render/svg/common';
import { cellLabel } from '../render/svg/report-charts';
import type { ReportSection } from './section';

type ByClass = Partial<Record<ErrorClass, number>>;

export const errors: ReportSection<ByClass> = {
  key: 'errorsByClass',
  jsonKey: 'errors_by_class',
  slot: 'outcomes',
  build({ data }) {
    const out: ByClass = {};
    for (const cls of ERROR_CLASSES) {
      const n = data.metrics[`${METRICS.errors.name}{error_class:${cls}}`]?.values.count ?? 0;
      if (n > 0) out[cls] = n;
    }
    return out;
  },
  text(e) {
    const errs = Object.entries(e);
    return errs.length > 0 ? ['', `Errors: ${errs.map(([k, v]) => `${k} ${v}`).join(', ')} (details in the log lines above)`] : [];
  },
  markdown(e) {
    const errs = Object.entries(e);
    return errs.length
      ? [
          '## Errors',
          '',
          mdTable(
            ['class', 'count'],
            errs.map(([k, v]) => [k, String(v)]),
          ),
          '',
        ]
      : [];
  },
  html(e, r) {
    const total = Object.entries(e);
    if (total.length === 0) return '';
    const perRun = r.runs.filter((x) => Object.keys(x.requests.errors).length > 0);
    const byRun = perRun.length
      ? `<table><thead><tr><th>variant</th><th>cell</th><th>errors</th></tr></thead><tbody>${perRun
          .map(
            (x) =>
              `<tr><td>${esc(display(x.variant))}</td><td>${esc(cellLabel(r, x.cellId))}</td><td>${Object.entries(x.requests.errors)
                .map(([k, v]) => `${esc(k)} ${v}`)
                .join(', ')}</td></tr>`,
          )
          .join('')}</tbody></table>`
      : '';
    return htmlSection(
      'Errors',
      `<table><thead><tr><th>class</th><th class="n">requests</th></tr></thead><tbody>` +
        `${total.map(([k, v]) => `<tr><td>${esc(k)}</td><td class="n">${v}</td></tr>`).join('')}</tbody></table>` +
        (byRun ? `<p class="legend-note">By run:</p>${byRun}` : ''),
    );
  },
  json: (e) => e,
};
