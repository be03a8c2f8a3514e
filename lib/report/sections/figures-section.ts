// report.html's charts of every run: throughput against the load, and latency. They are drawn from
// the runs themselves (with the knee or fall-behind marked), so the section's value is the runs and
// it has nothing to say in the terminal, report.md or summary.json (the records carry the numbers).
import type { RunFigures } from '../figures/run-figures';
import { figureGrid, htmlSection } from '../render/html-parts';
import { latencyFigures, throughputFigures } from '../render/svg/report-charts';
import type { ReportSection } from './section';

export const figures: ReportSection<RunFigures[]> = {
  key: 'runs',
  jsonKey: 'figures',
  slot: 'conclusions',
  build: ({ runs }) => runs,
  text: () => [],
  markdown: () => [],
  html: (runs, r) =>
    htmlSection(runs.some((x) => x.load.kind === 'rate') ? 'Throughput vs offered rate' : 'Throughput vs concurrency', figureGrid(throughputFigures(r))) +
    '\n' +
    htmlSection('Latency', figureGrid(latencyFigures(r))),
  json: () => undefined,
};
