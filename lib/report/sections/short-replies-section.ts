// Replies shorter than asked. A server that stops at EOS although asked not to (ignore_eos,
// min_tokens), or whose context limit comes first, serves more requests per second for less work:
// its throughput is not comparable with one that wrote every token asked for. Per run, the
// replies the server counted short, why each ended (its finish reason), and the share of the asked
// tokens that were written; a run past SHORT_FLAG_SHARE is flagged in every report.
import type { ShortCause } from '../../metrics/samples';
import { display } from '../figures/ab-comparison';
import { loadLabel, mdTable } from '../render/report-format';
import { htmlSection, clientTable } from '../render/html-parts';
import type { RunFigures } from '../figures/run-figures';
import type { ReportSection } from './section';

/** A run with more than this share of its counted replies short is flagged. */
export const SHORT_FLAG_SHARE = 0.01;

export interface ShortRow {
  variant: string;
  cellId: string;
  cell: string;
  osl: number;
  /** Successful requests whose completion the server counted. */
  counted: number;
  short: number;
  byCause: Partial<Record<ShortCause, number>>;
  /** Output tokens written over output tokens asked for, by the counted replies. */
  delivered: number;
  /** Output tokens per second as measured (the run's throughput). */
  throughput: number | null;
  flagged: boolean;
}

const CAUSES: Record<ShortCause, string> = {
  stop: 'the server stopped at EOS or a stop sequence: it does not honour ignore_eos (IGNORE_EOS=true asks for every token) or IGNORE_EOS=false let it stop',
  length: "a limit came before max tokens: the prompt plus OSL passes the model's context (max_model_len / -c), or the server caps max tokens",
  other: 'the server ended them for another reason (its finish reason is in the raw record)',
  unknown: 'the server did not say why',
};

function rowOf(x: RunFigures): ShortRow | null {
  if (x.short === null) return null;
  const counted = x.short.counted;
  return {
    variant: x.variant,
    cellId: x.cellId,
    cell: `${x.isl}/${x.osl} ${loadLabel(x.load)}`,
    osl: x.osl,
    counted,
    short: x.short.replies,
    byCause: x.short.byCause,
    delivered: x.tokens.output / x.short.requested,
    throughput: x.throughput,
    flagged: counted > 0 && x.short.replies / counted > SHORT_FLAG_SHARE,
  };
}

const pct = (v: number) => `${(v * 100).toFixed(v < 0.1 ? 1 : 0)}%`;
const causes = (r: ShortRow) =>
  Object.entries(r.byCause)
    .map(([c, n]) => `${c} ${n}`)
    .join(', ');

/** The warning for a flagged run: the share, what it does to the throughput, the likely cause. */
function flagLine(r: ShortRow): string {
  const top = (Object.entries(r.byCause) as Array<[ShortCause, number]>).sort((a, b) => b[1] - a[1])[0]?.[0] ?? 'unknown';
  return (
    `${r.variant} ${r.cellId}: ${r.short} of ${r.counted} replies (${pct(r.short / r.counted)}) were shorter than the ${r.osl} tokens asked (${causes(r)}), ` +
    `so the replies wrote ${pct(r.delivered)} of the tokens asked for and the run did less work per request than its cell says: ` +
    (`its throughput${r.throughput === null ? '' : ` (${r.throughput.toFixed(1)} tok/s)`} is not comparable with a server that wrote them all. ` +
      `Likely cause: ${CAUSES[top]}.`)
  );
}

const HEAD = ['cell', 'variant', 'short / counted', 'why they ended', 'tokens written / asked', 'flag'];
const cells = (r: ShortRow) => [
  r.cell,
  r.variant,
  `${r.short} / ${r.counted}`,
  causes(r) || '–',
  pct(r.delivered),
  r.flagged ? `over ${pct(SHORT_FLAG_SHARE)}` : '',
];

export const shortReplies: ReportSection<ShortRow[]> = {
  key: 'shortReplies',
  jsonKey: 'short_replies',
  slot: 'outcomes',
  build({ runs }) {
    const rows = runs.map(rowOf).filter((r): r is ShortRow => r !== null);
    return rows.length > 0 ? rows : null;
  },
  warnings: (rows) => rows.filter((r) => r.flagged).map(flagLine),
  text(rows) {
    const short = rows.filter((r) => r.short > 0);
    return short.length > 0
      ? [
          '',
          'Replies shorter than asked:',
          ...short.map((r) => `  ${r.variant} ${r.cellId}: ${r.short} of ${r.counted} (${causes(r)}); ${pct(r.delivered)} of the tokens asked written`),
        ]
      : [];
  },
  markdown(rows) {
    if (!rows.some((r) => r.short > 0)) return [];
    return [
      '## Replies shorter than asked',
      '',
      `By the server's own count. A run with more than ${pct(SHORT_FLAG_SHARE)} short is flagged: its throughput is over less work than its cell asks.`,
      '',
      mdTable(HEAD, rows.map(cells)),
      '',
    ];
  },
  html(rows) {
    if (!rows.some((r) => r.short > 0)) return '';
    const table = clientTable({
      head: HEAD,
      rows: rows.map(cells),
      numeric: (j) => j === 2 || j === 4,
      show: (c, j) => (j === 1 ? display(c) : c),
      rowClass: (i) => (rows[i].flagged ? 'limited' : ''),
    });
    return htmlSection(
      'Replies shorter than asked',
      `<p class="legend-note">By the server's own count. A run with more than ${pct(SHORT_FLAG_SHARE)} short ` +
        `is flagged: its throughput is over less work than its cell asks.</p>` +
        table,
    );
  },
  json: (rows) =>
    rows.map((r) => ({
      variant: r.variant,
      cell: r.cellId,
      counted: r.counted,
      short: r.short,
      share: r.counted > 0 ? r.short / r.counted : null,
      by_finish_reason: r.byCause,
      tokens_written_over_asked: r.delivered,
      flagged: r.flagged,
    })),
};
