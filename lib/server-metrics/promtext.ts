// A parser for the Prometheus text exposition format, enough for the servers' /metrics pages:
// samples with labels, comments skipped. Values are summed over label sets by the caller.

/** One sample as a /metrics page shows it (no timestamp: the scrape's time is the caller's). */
export interface ScrapedSample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export function parsePromText(text: string): ScrapedSample[] {
  const out: ScrapedSample[] = [];
  let pos = 0;
  while (pos < text.length) {
    let end = text.indexOf('\n', pos);
    if (end === -1) end = text.length;
    const line = text.slice(pos, end).trim();
    pos = end + 1;
    if (line === '' || line.startsWith('#')) continue;
    const s = parseLine(line);
    if (s) out.push(s);
  }
  return out;
}

function parseLine(line: string): ScrapedSample | null {
  const brace = line.indexOf('{');
  const space = line.indexOf(' ');
  let name: string;
  let labels: Record<string, string> = {};
  let rest: string;
  if (brace !== -1 && (space === -1 || brace < space)) {
    name = line.slice(0, brace);
    const close = findClose(line, brace);
    if (close === -1) return null;
    labels = parseLabels(line.slice(brace + 1, close));
    rest = line.slice(close + 1).trim();
  } else {
    if (space === -1) return null;
    name = line.slice(0, space);
    rest = line.slice(space + 1).trim();
  }
  const valueText = rest.split(/\s+/)[0];
  const value = parseValue(valueText);
  if (value === null) return null;
  return { name, labels, value };
}

function findClose(line: string, open: number): number {
  let inQuote = false;
  for (let i = open + 1; i < line.length; i++) {
    const c = line[i];
    if (inQuote) {
      if (c === '\\') i++;
      else if (c === '"') inQuote = false;
    } else if (c === '"') inQuote = true;
    else if (c === '}') return i;
  }
  return -1;
}

function parseLabels(s: string): Record<string, string> {
  const labels: Record<string, string> = {};
  const re = /\s*([A-Za-z_][A-Za-z0-9_]*)\s*=\s*"((?:[^"\\]|\\.)*)"\s*,?/g;
  let m: RegExpExecArray | null;
  while ((m = re.exec(s)) !== null) labels[m[1]] = m[2].replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
  return labels;
}

function parseValue(s: string): number | null {
  if (s === '+Inf' || s === 'Inf') return Infinity;
  if (s === '-Inf') return -Infinity;
  if (s === 'NaN') return NaN;
  const n = Number(s);
  return s !== '' && !Number.isNaN(n) ? n : null;
}

/** Sum of a metric's samples over all label sets (optionally filtered). */
export function total(samples: ScrapedSample[], name: string, filter?: (labels: Record<string, string>) => boolean): number | null {
  let sum = 0;
  let seen = false;
  for (const s of samples) {
    if (s.name !== name || (filter && !filter(s.labels))) continue;
    sum += s.value;
    seen = true;
  }
  return seen ? sum : null;
}
