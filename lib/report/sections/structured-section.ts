// Tool calls and structured output (TOOLS, RESPONSE_FORMAT, a dataset's tools): per run, the share
// of judged replies that kept to the form asked (calls naming a sent tool with arguments that parse
// and match its parameters; JSON content matching the schema), the replies that called tools, the
// calls' tokens and the time to the first tool-call token. A share is given only over replies
// judged; a run that judged none says so.
import { subKey } from '../../plan/summary-keys';
import { display } from '../figures/ab-comparison';
import type { Dist } from '../figures/dist';
import { fmtMs, loadLabel, mdTable, NOT_MEASURED } from '../render/report-format';
import { htmlSection, clientTable, legendNote } from '../render/html-parts';
import type { SummaryMetrics } from '../figures/run-figures';
import type { ReportSection } from './section';

export interface StructuredRow {
  variant: string;
  cellId: string;
  cell: string;
  /** Replies judged, and of them valid (llm_structured_valid). */
  judged: number;
  valid: number;
  /** Successful replies that called tools, and the calls' tokens summed (null: no reply said them). */
  toolReplies: number;
  toolTokens: number | null;
  /** Time to the first tool-call token (sse only; null: not measured). */
  ttftTool: Dist | null;
}

function dist(m: SummaryMetrics, key: string): Dist | null {
  const v = m[key]?.values;
  if (!v || !v.count) return null;
  return { avg: v.avg, p50: v.med, p90: v['p(90)'], p99: v['p(99)'], max: v.max, count: v.count };
}

const share = (r: StructuredRow): string => (r.judged === 0 ? `${NOT_MEASURED} (no reply judged)` : `${((r.valid / r.judged) * 100).toFixed(1)}%`);
const tokens = (r: StructuredRow): string => (r.toolReplies === 0 ? '–' : r.toolTokens === null ? NOT_MEASURED : String(r.toolTokens));
const ttft = (r: StructuredRow): string =>
  r.toolReplies === 0 ? '–' : r.ttftTool === null ? `${NOT_MEASURED} (TRANSPORT=sse times events)` : `${fmtMs(r.ttftTool.p50)} / ${fmtMs(r.ttftTool.p99)}`;

const HEAD = ['cell', 'variant', 'valid / judged', 'valid share', 'replies with calls', 'tool-call tokens', 'first tool-call token p50 / p99'];
const cells = (r: StructuredRow) => [r.cell, r.variant, `${r.valid} / ${r.judged}`, share(r), String(r.toolReplies), tokens(r), ttft(r)];

const LEGEND =
  'A reply is valid when each tool call names a tool sent and its arguments parse as JSON and match the ' +
  'tool’s parameters, or (response_format) its content parses and matches the schema; the schema subset ' +
  'read is in docs/metrics.md. Under TOOL_CHOICE=auto a reply that called nothing is not judged.';

export const structured: ReportSection<StructuredRow[]> = {
  key: 'structured',
  jsonKey: 'structured_output',
  slot: 'details',
  build({ cfg, runs, data }) {
    const m = data.metrics;
    const rows = runs.map((x): StructuredRow => {
      const s = x.scenario;
      const v = m[subKey('structuredValid', s)]?.values;
      const toolReplies = m[subKey('toolCallRequests', s)]?.values.count ?? 0;
      const said = m[subKey('toolCallTokens', s)]?.values.count;
      return {
        variant: x.variant,
        cellId: x.cellId,
        cell: `${x.isl}/${x.osl} ${loadLabel(x.load)}`,
        judged: (v?.passes ?? 0) + (v?.fails ?? 0),
        valid: v?.passes ?? 0,
        toolReplies,
        // A reply with calls has at least one token: 0 (the sub-metric declared, nothing added) is not said.
        toolTokens: said ? said : null,
        ttftTool: dist(m, subKey('ttftTool', s)),
      };
    });
    // TOOLS / RESPONSE_FORMAT, or a dataset whose rows brought their own: the section applies.
    return cfg.structured || rows.some((r) => r.judged > 0 || r.toolReplies > 0) ? rows : null;
  },
  warnings: (rows) =>
    rows
      .filter((r) => r.judged > 0 && r.valid < r.judged)
      .map((r) => `${r.variant} ${r.cellId}: ${r.judged - r.valid} of ${r.judged} replies did not keep to the tools or schema asked (${share(r)} valid).`),
  text: (rows) => [
    '',
    'Tool calls and structured output (valid share; tool-call tokens; first tool-call token p50 / p99):',
    ...rows.map(
      (r) => `  ${r.variant} ${r.cellId}: ${share(r)} valid (${r.valid} / ${r.judged}); ${r.toolReplies} with calls, ${tokens(r)} tool-call tokens; ${ttft(r)}`,
    ),
  ],
  markdown: (rows) => ['## Tool calls and structured output', '', LEGEND, '', mdTable(HEAD, rows.map(cells)), ''],
  html(rows) {
    const table = clientTable({ head: HEAD, rows: rows.map(cells), numeric: (j) => j >= 2, show: (c, j) => (j === 1 ? display(c) : c) });
    return htmlSection('Tool calls and structured output', legendNote(LEGEND) + table);
  },
  json: (rows) =>
    rows.map((r) => ({
      variant: r.variant,
      cell: r.cellId,
      judged: r.judged,
      valid: r.valid,
      valid_share: r.judged > 0 ? r.valid / r.judged : null,
      tool_call_replies: r.toolReplies,
      tool_call_tokens: r.toolTokens,
      ttft_tool_ms: r.ttftTool === null ? null : { p50: r.ttftTool.p50, p99: r.ttftTool.p99, count: r.ttftTool.count },
    })),
};
