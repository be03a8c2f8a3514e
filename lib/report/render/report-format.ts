// Number formatting shared by the text, markdown and html renderers.
import type { ItlRule } from '../../metrics/timing';
import type { Load } from '../../plan/matrix';
import type { RunFigures } from '../figures/run-figures';

export const NOT_MEASURED = 'not measured';

export function fmt(v: number | null | undefined, digits = 1): string {
  if (v === null || v === undefined || !Number.isFinite(v)) return '–';
  const abs = Math.abs(v);
  if (abs >= 10000) return group(Math.round(v));
  if (abs >= 100) return v.toFixed(0);
  return v.toFixed(digits);
}

/** 12345 → "12,345" (k6 has no Intl, so no toLocaleString). */
function group(n: number): string {
  const s = String(Math.abs(n));
  let out = '';
  for (let i = 0; i < s.length; i++) {
    if (i > 0 && (s.length - i) % 3 === 0) out += ',';
    out += s[i];
  }
  return (n < 0 ? '-' : '') + out;
}

export function fmtMs(v: number | null | undefined): string {
  if (v === null || v === undefined || !Number.isFinite(v)) return '–';
  if (v >= 10000) return `${(v / 1000).toFixed(1)} s`;
  if (v >= 1000) return `${(v / 1000).toFixed(2)} s`;
  return `${v.toFixed(v < 10 ? 2 : 0)} ms`;
}

/** An interval as summary.json writes it: [lo, hi], or null where none was measured. */
export function ciBounds(ci: { lo: number; hi: number } | null | undefined): [number, number] | null {
  return ci ? [ci.lo, ci.hi] : null;
}

export function fmtCi(ci: { lo: number; hi: number } | null, digits = 1): string {
  return ci === null ? '' : ` [${fmt(ci.lo, digits)}, ${fmt(ci.hi, digits)}]`;
}

/** A run's variant as the per-run tables show it: with REPEATS, its repeat too (dflash r2). */
export function runLabel(r: { variant: string; repeat?: number }): string {
  return r.repeat === undefined ? r.variant : `${r.variant} r${r.repeat}`;
}

export function loadLabel(load: Load): string {
  if (load.kind === 'trace') return load.arrivals ?? `trace ×${load.speed}`;
  return load.kind === 'vus' ? `c=${load.vus}` : `${load.rate}/s`;
}

/** The load in words, for a title: c=8, 2 req/s, trace at 4× speed. */
export function loadWords(load: Load): string {
  if (load.kind === 'trace') return load.arrivals ? `${load.arrivals} arrivals` : `trace at ${load.speed}× speed`;
  return load.kind === 'vus' ? `c=${load.vus}` : `${load.rate} req/s`;
}

/** Pads a table of strings into aligned columns: the first `textColumns` left, numbers right. */
export function table(head: string[], rows: string[][], textColumns = 2): string {
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) => cells.map((c, i) => (i < textColumns ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
  // Not '─'.repeat(w): k6's JavaScript engine returns one copy too few for non-ASCII strings.
  return [line(head), widths.map((w) => new Array(w + 1).join('─')).join('  '), ...rows.map(line)].join('\n');
}

/** A report.md table; a | inside a cell is escaped. */
export function mdTable(head: string[], rows: string[][]): string {
  const esc = (s: string) => s.replace(/\|/g, '\\|');
  return [`| ${head.map(esc).join(' | ')} |`, `|${head.map(() => '---').join('|')}|`, ...rows.map((r) => `| ${r.map(esc).join(' | ')} |`)].join('\n');
}

/** The failures column: requests that failed, then attempts that found nothing listening. */
export function fmtFailed(r: { failed: number; unreachable: number }): string {
  return r.unreachable > 0 ? `${r.failed} +${r.unreachable} unreachable` : String(r.failed);
}

const ITL_RULE_TEXT: Record<ItlRule, string> = {
  'server-counts': "per token, from the server's per-event token counts",
  'one-token-per-event': 'per token, one token per event (the final token count equals the token-carrying events)',
  'per-chunk': 'per chunk only (tokens per event unknown): gaps between events in llm_itl_per_chunk (marked †), not per token',
};

/** One line per variant saying how its ITL was measured (the rule of lib/metrics/timing); none without events. */
export function itlRuleLines(runs: readonly RunFigures[]): string[] {
  const byVariant = new Map<string, Partial<Record<ItlRule, number>>>();
  for (const x of runs) {
    const acc = byVariant.get(x.variant) ?? {};
    for (const [rule, n] of Object.entries(x.itlRule.requests) as Array<[ItlRule, number]>) acc[rule] = (acc[rule] ?? 0) + n;
    byVariant.set(x.variant, acc);
  }
  const out: string[] = [];
  for (const [variant, counts] of byVariant) {
    const rules = Object.keys(counts) as ItlRule[];
    if (rules.length === 1) out.push(`${variant}: ITL ${ITL_RULE_TEXT[rules[0]]}`);
    else if (rules.length > 1)
      out.push(`${variant}: ITL by request — ${rules.map((r) => `${counts[r]} ${r}`).join(', ')} (per-chunk gaps are in llm_itl_per_chunk, not in ITL)`);
  }
  return out;
}

/** An ITL percentile: per token when measured, else the per-chunk gap marked †. */
export function itlValue(x: RunFigures, p: 'p50' | 'p99'): { value: number | null; perChunk: boolean } {
  if (x.itl) return { value: x.itl[p], perChunk: false };
  if (x.itlPerChunk) return { value: x.itlPerChunk[p], perChunk: true };
  return { value: null, perChunk: false };
}

export function fmtItl(x: RunFigures, p: 'p50' | 'p99'): string {
  const v = itlValue(x, p);
  return v.value === null ? '–' : `${fmtMs(v.value)}${v.perChunk ? '†' : ''}`;
}

/** Per variant: draft tokens accepted ÷ drafted over all its runs (llama.cpp timings); none when not reported. */
export function draftLines(runs: readonly RunFigures[]): string[] {
  const byVariant = new Map<string, { drafted: number; accepted: number }>();
  for (const x of runs) {
    if (!x.draftAcceptance) continue;
    const acc = byVariant.get(x.variant) ?? { drafted: 0, accepted: 0 };
    acc.drafted += x.draftAcceptance.drafted;
    acc.accepted += x.draftAcceptance.accepted;
    byVariant.set(x.variant, acc);
  }
  return [...byVariant].map(
    ([variant, d]) =>
      `${variant}: ${((d.accepted / d.drafted) * 100).toFixed(1)}% of draft tokens accepted (${d.accepted} ` +
      `of ${d.drafted}, the server's per-request counts; per cell in summary.json; not an acceptance length)`,
  );
}
