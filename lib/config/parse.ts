// Parsers for environment values. Each failure names the variable, the value and what is allowed,
// so a bad value stops the run with one message a person can act on.

export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

/** Quotes a value in messages: single quotes read cleanly in k6's log lines (which escape "). */
export function quote(raw: string): string {
  return `'${raw}'`;
}

export function invalid(name: string, raw: string, expected: string): ConfigError {
  return new ConfigError(`${name}=${quote(raw)} is not valid: expected ${expected}.`);
}

const INT_RE = /^\d+$/;

export function positiveInt(name: string, raw: string, opts: { min?: number; max?: number } = {}): number {
  const min = opts.min ?? 1;
  const max = opts.max ?? Number.MAX_SAFE_INTEGER;
  const s = raw.trim().replace(/_/g, '');
  const expected = `a whole number from ${min}${max === Number.MAX_SAFE_INTEGER ? ' up' : ` to ${max}`}`;
  if (!INT_RE.test(s)) throw invalid(name, raw, expected);
  const n = Number(s);
  if (!Number.isSafeInteger(n) || n < min || n > max) throw invalid(name, raw, expected);
  return n;
}

export function intList(name: string, raw: string, opts: { min?: number; max?: number } = {}): number[] {
  const parts = raw
    .split(',')
    .map((p) => p.trim())
    .filter((p) => p !== '');
  if (parts.length === 0) throw invalid(name, raw, 'a comma-separated list of whole numbers, e.g. 128,1024');
  const out: number[] = [];
  for (const p of parts) {
    try {
      out.push(positiveInt(name, p, opts));
    } catch {
      const range = `${opts.min ?? 1}${opts.max ? `–${opts.max}` : '+'}`;
      throw invalid(name, raw, `a comma-separated list of whole numbers (${range}), e.g. 128,1024; '${p}' is not one`);
    }
  }
  if (new Set(out).size !== out.length) throw invalid(name, raw, 'a list without repeated values');
  return out;
}

export function number(name: string, raw: string, min: number, max: number): number {
  const s = raw.trim();
  const n = Number(s);
  if (s === '' || !Number.isFinite(n) || n < min || n > max) throw invalid(name, raw, `a number from ${min} to ${max}`);
  return n;
}

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** k6-style durations: "30s", "1m30s", "500ms", "2h"; a bare number means seconds. Returns ms. */
export function duration(name: string, raw: string, opts: { minMs?: number; maxMs?: number } = {}): number {
  const s = raw.trim();
  const expected = 'a duration such as 500ms, 30s, 2m or 1m30s';
  let ms: number;
  if (/^\d+(\.\d+)?$/.test(s)) {
    ms = Number(s) * 1000;
  } else {
    const re = /(\d+(?:\.\d+)?)(ms|s|m|h)/g;
    let consumed = 0;
    ms = 0;
    let m: RegExpExecArray | null;
    while ((m = re.exec(s)) !== null) {
      if (m.index !== consumed) throw invalid(name, raw, expected);
      ms += Number(m[1]) * UNIT_MS[m[2]];
      consumed = m.index + m[0].length;
    }
    if (consumed === 0 || consumed !== s.length) throw invalid(name, raw, expected);
  }
  ms = Math.round(ms);
  if (opts.minMs !== undefined && ms < opts.minMs) throw invalid(name, raw, `${expected}, at least ${formatMs(opts.minMs)}`);
  if (opts.maxMs !== undefined && ms > opts.maxMs) throw invalid(name, raw, `${expected}, at most ${formatMs(opts.maxMs)}`);
  return ms;
}

export function bool(name: string, raw: string): boolean {
  const s = raw.trim().toLowerCase();
  if (['1', 'true', 'yes', 'on'].includes(s)) return true;
  if (['0', 'false', 'no', 'off'].includes(s)) return false;
  throw invalid(name, raw, 'true or false');
}

export function oneOf<T extends string>(name: string, raw: string, allowed: readonly T[]): T {
  const s = raw.trim();
  if ((allowed as readonly string[]).includes(s)) return s as T;
  throw invalid(name, raw, `one of ${allowed.join(', ')}`);
}

/** An http(s) base URL; a trailing slash is dropped so paths can be appended. */
export function baseUrl(name: string, raw: string): string {
  const s = raw.trim();
  const m = /^(https?):\/\/([^/?#\s]+)(\/[^?#\s]*)?$/.exec(s);
  if (!m) throw invalid(name, raw, 'an http:// or https:// base URL such as http://127.0.0.1:30000');
  if (/@/.test(m[2])) throw invalid(name, '<redacted>', 'a URL without credentials: put the key in API_KEY');
  return s.replace(/\/+$/, '');
}

/** A page's full http(s) URL (path and query kept), without credentials. */
export function pageUrl(name: string, raw: string): string {
  const s = raw.trim();
  const m = /^(https?):\/\/([^/?#\s]+)([/?][^#\s]*)?$/.exec(s);
  if (!m) throw invalid(name, raw, 'an http:// or https:// URL of the page, such as http://127.0.0.1:9400/metrics');
  if (/@/.test(m[2])) throw invalid(name, '<redacted>', 'a URL without credentials');
  return s;
}

/** A label safe as a tag value and scenario-name part. */
export function label(name: string, raw: string): string {
  const s = raw.trim();
  if (!/^[A-Za-z][A-Za-z0-9_-]{0,31}$/.test(s)) throw invalid(name, raw, 'a name of letters, digits, _ or -, starting with a letter (at most 32)');
  return s;
}

export function formatMs(ms: number): string {
  if (ms < 1000) return `${ms}ms`;
  if (ms % 60_000 === 0) return `${ms / 60_000}m`;
  if (ms % 1000 === 0) return `${ms / 1000}s`;
  return `${(ms / 1000).toFixed(1)}s`;
}
