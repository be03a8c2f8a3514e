// Thresholds: k6's expression grammar and evaluation (metrics/thresholds_parser.go,
// metrics/thresholds.go), error texts included.
//
//   assertion  -> aggregation whitespace* operator whitespace* float
//   aggregation-> count | rate | value | avg | min | max | med | p(float)
//   operator   -> "<=" | "<" | ">=" | ">" | "===" | "==" | "!="   (first match in this order)

import type { MetricType } from '../shared/protocol';
import { toDurationMs } from '../shared/duration';
import type { Sink } from './sinks';

type Method = 'value' | 'count' | 'rate' | 'avg' | 'min' | 'med' | 'max' | 'p';

const OPERATORS = ['<=', '<', '>=', '>', '===', '==', '!='] as const;
type Operator = (typeof OPERATORS)[number];

const METHODS: Method[] = ['value', 'count', 'rate', 'avg', 'min', 'med', 'max', 'p'];

const SUPPORTED: Record<MetricType, Method[]> = {
  counter: ['count', 'rate'],
  gauge: ['value'],
  rate: ['rate'],
  trend: ['avg', 'min', 'max', 'med', 'p'],
};

export class Threshold {
  lastFailed = false;
  constructor(
    readonly source: string,
    readonly method: Method,
    readonly percentile: number,
    readonly operator: Operator,
    readonly value: number,
    readonly abortOnFail: boolean,
    /** delayAbortEval in ms; undefined when not set. */
    readonly abortGraceMs: number | undefined,
  ) {}
}

/** Go's strconv.ParseFloat for the inputs that matter here (decimal, exponent, inf, nan). */
function parseGoFloat(text: string): number {
  if (/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(text)) return Number(text);
  const special = /^([+-]?)(inf|infinity|nan)$/i.exec(text);
  if (special) return special[2]!.toLowerCase() === 'nan' ? NaN : special[1] === '-' ? -Infinity : Infinity;
  throw new Error(`strconv.ParseFloat: parsing ${JSON.stringify(text)}: invalid syntax`);
}

export function parseThresholdExpression(input: string): { method: Method; percentile: number; operator: Operator; value: number } {
  let left = '';
  let right = '';
  let operator: Operator | undefined;
  for (const op of OPERATORS) {
    const at = input.indexOf(op);
    if (at >= 0 && input.slice(at + op.length) !== '') {
      left = input.slice(0, at).trim();
      right = input.slice(at + op.length).trim();
      operator = op;
      break;
    }
  }
  if (!operator) {
    throw new Error(`failed parsing threshold expression ${JSON.stringify(input)}; reason: malformed threshold expression`);
  }
  let method: Method;
  let percentile = NaN;
  if ((METHODS as string[]).includes(left) && left !== 'p') {
    method = left as Method;
  } else if (left.startsWith('p(') && left.endsWith(')')) {
    method = 'p';
    try {
      percentile = parseGoFloat(left.slice(2, -1));
    } catch (e) {
      throw new Error(
        `failed parsing threshold expression's ${JSON.stringify(input)} left hand side; ` +
          `reason: malformed percentile value; reason: ${(e as Error).message}`,
      );
    }
  } else {
    throw new Error(
      `failed parsing threshold expression's ${JSON.stringify(input)} left hand side; reason: failed parsing method from expression`,
    );
  }
  let value: number;
  try {
    value = parseGoFloat(right);
  } catch (e) {
    throw new Error(
      `failed parsing threshold expresion's ${JSON.stringify(input)} right hand side; reason: ${(e as Error).message}`,
    );
  }
  return { method, percentile, operator, value };
}

/** One entry of options.thresholds[metric]: a string or {threshold, abortOnFail, delayAbortEval}. */
export function parseThresholds(raw: unknown): Threshold[] {
  if (!Array.isArray(raw)) {
    throw new Error(`json: cannot unmarshal ${typeof raw} into Go struct field Options.thresholds of type []metrics.thresholdConfig`);
  }
  return raw.map((entry) => {
    const cfg = typeof entry === 'string' ? { threshold: entry } : (Object(entry) as Record<string, unknown>);
    const source = String(cfg.threshold ?? '');
    const parsed = parseThresholdExpression(source);
    const grace = cfg.delayAbortEval === undefined || cfg.delayAbortEval === null ? undefined : toDurationMs(cfg.delayAbortEval);
    return new Threshold(source, parsed.method, parsed.percentile, parsed.operator, parsed.value, cfg.abortOnFail === true, grace);
  });
}

/** k6's Thresholds.Validate aggregation check, for a metric of `type`. */
export function validateThresholds(metricName: string, type: MetricType, thresholds: Threshold[]): void {
  for (const t of thresholds) {
    if (!SUPPORTED[type].includes(t.method)) {
      throw new Error(
        `invalid threshold ${JSON.stringify(t.source)} applied on metric ${metricName}; reason: ` +
          `unsupported aggregation method ${t.method} on metric of type ${type}. ` +
          `supported aggregation methods for this metric are: ${SUPPORTED[type].join(', ')}`,
      );
    }
  }
}

/** The values a threshold can refer to, computed from a sink like k6's Thresholds.Run. */
function sinkValues(sink: Sink, thresholds: Threshold[], durationMs: number): Map<string, number> {
  const v = new Map<string, number>();
  switch (sink.type) {
    case 'counter':
      v.set('count', sink.value);
      v.set('rate', sink.value / (durationMs / 1000));
      break;
    case 'gauge':
      v.set('value', sink.value);
      break;
    case 'trend':
      v.set('min', sink.min);
      v.set('max', sink.max);
      v.set('avg', sink.avg());
      v.set('med', sink.p(0.5));
      for (const t of thresholds) if (t.method === 'p') v.set(`p(${t.percentile})`, sink.p(t.percentile / 100));
      break;
    case 'rate':
      // No "rate" key for an empty rate, so its thresholds pass (k6 issue #2520).
      if (sink.total > 0) v.set('rate', sink.trues / sink.total);
      break;
  }
  return v;
}

function compare(lhs: number, op: Operator, rhs: number): boolean {
  switch (op) {
    case '>':
      return lhs > rhs;
    case '>=':
      return lhs >= rhs;
    case '<=':
      return lhs <= rhs;
    case '<':
      return lhs < rhs;
    case '==':
    case '===':
      return lhs === rhs;
    case '!=':
      return lhs !== rhs;
  }
}

/**
 * Runs a metric's thresholds, updating each one's lastFailed. Returns whether all passed and
 * whether an abortOnFail threshold (past its delayAbortEval) failed.
 */
export function runThresholds(
  thresholds: Threshold[],
  sink: Sink,
  durationMs: number,
): { passed: boolean; abort: boolean } {
  const values = sinkValues(sink, thresholds, durationMs);
  let passed = true;
  let abort = false;
  for (const t of thresholds) {
    const key = t.method === 'p' ? `p(${t.percentile})` : t.method;
    const lhs = values.get(key);
    const ok = lhs === undefined ? true : compare(lhs, t.operator, t.value);
    t.lastFailed = !ok;
    if (ok) continue;
    passed = false;
    if (abort || !t.abortOnFail) continue;
    abort = t.abortGraceMs === undefined || t.abortGraceMs < durationMs;
  }
  return { passed, abort };
}
