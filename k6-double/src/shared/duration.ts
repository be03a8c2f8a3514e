// Durations the way k6 reads them (lib/types ParseExtendedDuration, GetDurationValue): a number is
// milliseconds, a numeric string is milliseconds, anything else is a Go duration string ("1m30s",
// "250ms", "1.5h") optionally prefixed by whole days ("2d3h"). Also formats durations like Go's
// time.Duration.String(), which k6 uses in its messages ("10m0s", "500ms").
// Used by both the main thread and the VU workers, so it imports nothing.

const UNIT_MS: Record<string, number> = {
  ns: 1e-6,
  us: 1e-3,
  'µs': 1e-3,
  'μs': 1e-3,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};

/** Go's time.ParseDuration, returning milliseconds; throws with Go's error text. */
export function parseGoDuration(input: string): number {
  const fail = (): never => {
    throw new Error(`time: invalid duration ${JSON.stringify(input)}`);
  };
  let s = input;
  let sign = 1;
  if (s.startsWith('-') || s.startsWith('+')) {
    if (s[0] === '-') sign = -1;
    s = s.slice(1);
  }
  if (s === '0') return 0;
  if (s === '') fail();
  let total = 0;
  while (s !== '') {
    const num = /^(\d*)(\.\d*)?/.exec(s);
    if (!num || (num[1] === '' && (num[2] === undefined || num[2] === '.'))) fail();
    const numText = num![0];
    s = s.slice(numText.length);
    const unit = /^[^\d.]+/.exec(s);
    if (!unit) throw new Error(`time: missing unit in duration ${JSON.stringify(input)}`);
    const factor = UNIT_MS[unit[0]];
    if (factor === undefined) {
      throw new Error(`time: unknown unit ${JSON.stringify(unit[0])} in duration ${JSON.stringify(input)}`);
    }
    total += Number(numText) * factor;
    s = s.slice(unit[0].length);
  }
  return sign * total;
}

/** k6's types.ParseExtendedDuration: numeric text is ms, "Nd<go duration>" adds days. */
export function parseExtendedDuration(input: string): number {
  if (/^\s*[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?\s*$/.test(input)) return Number(input);
  const d = input.indexOf('d');
  if (d < 0) return parseGoDuration(input);
  const daysText = input.slice(0, d);
  if (!/^[-+]?\d+$/.test(daysText)) {
    throw new Error(`strconv.ParseInt: parsing ${JSON.stringify(daysText)}: invalid syntax`);
  }
  const days = Number(daysText);
  let rest = 0;
  if (d + 1 < input.length) {
    rest = parseGoDuration(input.slice(d + 1));
    if (rest < 0) throw new Error(`invalid time format '${input.slice(d + 1)}'`);
  }
  return days * 86_400_000 + (days < 0 ? -rest : rest);
}

/** k6's types.GetDurationValue / NullDuration JSON decoding: number = ms, string = extended duration. */
export function toDurationMs(value: unknown): number {
  if (typeof value === 'number') return value;
  if (typeof value === 'string') return parseExtendedDuration(value);
  throw new Error(`'${JSON.stringify(value)}' is not a valid duration value`);
}

/** Go's time.Duration.String() for a duration given in milliseconds. */
export function formatGoDuration(ms: number): string {
  let ns = Math.round(ms * 1e6);
  if (ns === 0) return '0s';
  const neg = ns < 0;
  if (neg) ns = -ns;
  let out: string;
  if (ns < 1e9) {
    // Sub-second durations use the largest unit that keeps a leading non-zero digit.
    const [unit, div] = ns < 1e3 ? ['ns', 1] : ns < 1e6 ? ['µs', 1e3] : ['ms', 1e6];
    out = trimFraction(ns / div) + unit;
  } else {
    const h = Math.floor(ns / 3.6e12);
    ns -= h * 3.6e12;
    const m = Math.floor(ns / 6e10);
    ns -= m * 6e10;
    const sec = trimFraction(ns / 1e9);
    out = (h > 0 ? `${h}h${m}m` : m > 0 ? `${m}m` : '') + `${sec}s`;
  }
  return neg ? `-${out}` : out;
}

function trimFraction(x: number): string {
  return Number(x.toFixed(9)).toString();
}
