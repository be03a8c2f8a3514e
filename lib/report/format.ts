// Number formatting shared by the text, markdown and html renderers.

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

export function fmtCi(ci: { lo: number; hi: number } | null, digits = 1): string {
  return ci === null ? '' : ` [${fmt(ci.lo, digits)}, ${fmt(ci.hi, digits)}]`;
}

export function loadLabel(load: { kind: 'vus'; vus: number } | { kind: 'rate'; rate: number }): string {
  return load.kind === 'vus' ? `c=${load.vus}` : `${load.rate}/s`;
}

/** Pads a table of strings into aligned columns: the first `textColumns` left, numbers right. */
export function table(head: string[], rows: string[][], textColumns = 2): string {
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) => cells.map((c, i) => (i < textColumns ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
  // Not '─'.repeat(w): k6's JavaScript engine returns one copy too few for non-ASCII strings.
  return [line(head), widths.map((w) => new Array(w + 1).join('─')).join('  '), ...rows.map(line)].join('\n');
}

/** The failures column: requests that failed, then attempts that found nothing listening. */
export function fmtFailed(r: { failed: number; unreachable: number }): string {
  return r.unreachable > 0 ? `${r.failed} +${r.unreachable} unreachable` : String(r.failed);
}
