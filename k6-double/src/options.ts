// Script options -> the run configuration, with k6's defaults, shortcut derivation
// (lib/executor/execution_config_shortcuts.go) and validation messages (lib/executor/*.go,
// internal/cmd/config.go). Invalid configuration is a ConfigError (exit code 104).

import { ConfigError } from './metrics/engine';
import { DEFAULT_TREND_STATS, validateTrendStats } from './metrics/summary';
import { formatGoDuration, toDurationMs } from './shared/duration';
import { newExecutionTuple, parseSegment, parseSequence, sequenceString, type ExecutionTuple } from './segments';
import type { HttpDefaults, TagSet } from './shared/protocol';

export type ExecutorType =
  | 'shared-iterations'
  | 'per-vu-iterations'
  | 'constant-vus'
  | 'ramping-vus'
  | 'constant-arrival-rate'
  | 'ramping-arrival-rate';

export interface Stage {
  durationMs: number;
  target: number;
}

interface BaseScenario {
  name: string;
  startTimeMs: number;
  gracefulStopMs: number;
  exec: string;
  env: Record<string, string>;
  tags: TagSet;
  /**
   * Execution segments: false when this instance's share of the scenario is empty (k6's HasWork:
   * the scenario is described but not run); `iterationTuple` stripes iteration numbers
   * (iterationInTest) across instances. Both unset when no segment is given.
   */
  hasWork?: boolean;
  iterationTuple?: ExecutionTuple;
}

export type ScenarioConfig = BaseScenario &
  (
    | { executor: 'shared-iterations' | 'per-vu-iterations'; vus: number; iterations: number; maxDurationMs: number }
    | { executor: 'constant-vus'; vus: number; durationMs: number }
    | { executor: 'ramping-vus'; startVUs: number; stages: Stage[]; gracefulRampDownMs: number }
    | { executor: 'constant-arrival-rate'; rate: number; timeUnitMs: number; durationMs: number; preAllocatedVUs: number; maxVUs: number }
    | { executor: 'ramping-arrival-rate'; startRate: number; timeUnitMs: number; stages: Stage[]; preAllocatedVUs: number; maxVUs: number }
  );

export interface TestOptions {
  scenarios: ScenarioConfig[];
  thresholds: Record<string, unknown>;
  summaryTrendStats: string[];
  summaryTimeUnit: string;
  /** options.tags: added to every sample. */
  runTags: TagSet;
  setupTimeoutMs: number;
  teardownTimeoutMs: number;
  http: HttpDefaults;
  /** What execution.test.options returns (JSON). */
  json: string;
  /** This instance's execution segment within its (filled) sequence. */
  tuple: ExecutionTuple;
}

/** CLI-level options that scripts can also set (the CLI wins, as in k6). */
export interface SegmentFlags {
  executionSegment?: string;
  executionSegmentSequence?: string;
}

/** The k6 version whose behaviour the double follows (user agent, summary data shape). */
export const K6_VERSION = '1.3.0';
export const DEFAULT_HTTP: HttpDefaults = { userAgent: `Grafana k6/${K6_VERSION}`, discardResponseBodies: false, maxRedirects: 10 };
const MIN_DURATION_MS = 1000;
const DEFAULT_GRACEFUL_MS = 30_000;
const DEFAULT_MAX_DURATION_MS = 10 * 60_000;

const SCENARIO_FIELDS: Record<ExecutorType, string[]> = {
  'shared-iterations': ['vus', 'iterations', 'maxDuration'],
  'per-vu-iterations': ['vus', 'iterations', 'maxDuration'],
  'constant-vus': ['vus', 'duration'],
  'ramping-vus': ['startVUs', 'stages', 'gracefulRampDown'],
  'constant-arrival-rate': ['rate', 'timeUnit', 'duration', 'preAllocatedVUs', 'maxVUs'],
  'ramping-arrival-rate': ['startRate', 'timeUnit', 'stages', 'preAllocatedVUs', 'maxVUs'],
};
const BASE_FIELDS = ['executor', 'startTime', 'gracefulStop', 'env', 'exec', 'tags', 'options'];

type Raw = Record<string, unknown>;

export function normalizeOptions(raw: Raw, callableExports: string[], flags: SegmentFlags = {}): TestOptions {
  raw = { ...raw };
  for (const k of ['executionSegment', 'executionSegmentSequence'] as const) {
    if (flags[k] !== undefined) raw[k] = flags[k];
  }
  const segment = typeof raw.executionSegment === 'string' ? parseSegment(raw.executionSegment) : null;
  const sequence = typeof raw.executionSegmentSequence === 'string' ? parseSequence(raw.executionSegmentSequence) : [];
  const tuple = newExecutionTuple(segment, sequence);
  // As k6 marshals them: "1/2:1", "0,1/2,1"; null when unset.
  raw.executionSegment = segment ? segment.toString() : null;
  raw.executionSegmentSequence = sequence.length > 0 ? sequenceString(sequence) : null;
  const errors: string[] = [];
  const scenarios = deriveScenarios(raw).map((s) => parseScenario(s.name, s.raw, errors));
  for (const s of scenarios) {
    if (!callableExports.includes(s.exec)) errors.push(`executor ${s.name}: function '${s.exec}' not found in exports`);
  }
  const summaryTrendStats = Array.isArray(raw.summaryTrendStats) ? raw.summaryTrendStats.map(String) : DEFAULT_TREND_STATS;
  try {
    validateTrendStats(summaryTrendStats);
  } catch (e) {
    throw new ConfigError((e as Error).message);
  }
  if (errors.length > 0) {
    throw new ConfigError(['There were problems with the specified script configuration:', ...errors.map((e) => `\t- ${e}`)].join('\n'));
  }
  scenarios.sort((a, b) => a.startTimeMs - b.startTimeMs || a.name.localeCompare(b.name));
  const optionalMs = (v: unknown, dflt: number) => (v === undefined || v === null ? dflt : durationOrThrow(v));
  const json = { ...raw, scenarios: Object.fromEntries(scenarios.map((s) => [s.name, scenarioJSON(s)])), consoleOutput: null, localIPs: null };
  for (const k of ['vus', 'iterations', 'duration', 'stages']) delete (json as Raw)[k];
  return {
    scenarios: tuple.wrapper.seq.length === 1 ? scenarios : scenarios.map((s) => scaleScenario(s, tuple)),
    tuple,
    thresholds: (raw.thresholds as Record<string, unknown> | undefined) ?? {},
    summaryTrendStats,
    summaryTimeUnit: typeof raw.summaryTimeUnit === 'string' ? raw.summaryTimeUnit : '',
    runTags: stringMap(raw.tags),
    setupTimeoutMs: optionalMs(raw.setupTimeout, 60_000),
    teardownTimeoutMs: optionalMs(raw.teardownTimeout, 60_000),
    http: {
      userAgent: typeof raw.userAgent === 'string' ? raw.userAgent : DEFAULT_HTTP.userAgent,
      discardResponseBodies: raw.discardResponseBodies === true,
      maxRedirects: typeof raw.maxRedirects === 'number' ? raw.maxRedirects : DEFAULT_HTTP.maxRedirects,
    },
    json: JSON.stringify(json),
  };
}

/** vus/duration/iterations/stages shortcuts -> a "default" scenario, as k6 derives them. */
function deriveScenarios(raw: Raw): Array<{ name: string; raw: Raw }> {
  const has = (k: string) => raw[k] !== undefined && raw[k] !== null;
  const stages = Array.isArray(raw.stages) ? (raw.stages as unknown[]) : undefined;
  const conflict = (a: string, b: string) =>
    new ConfigError(`using \`${a}\` and \`${b}\` options simultaneously is not allowed`);
  const vus = has('vus') ? { vus: raw.vus } : {};
  if (has('iterations')) {
    if (stages && stages.length > 0) throw conflict('iterations', 'stages');
    if (has('scenarios')) throw conflict('iterations', 'scenarios');
    const maxDuration = has('duration') ? { maxDuration: raw.duration } : {};
    return [{ name: 'default', raw: { executor: 'shared-iterations', ...vus, iterations: raw.iterations, ...maxDuration } }];
  }
  if (has('duration')) {
    if (stages && stages.length > 0) throw conflict('duration', 'stages');
    if (has('scenarios')) throw conflict('duration', 'scenarios');
    if (durationOrThrow(raw.duration) <= 0) {
      throw new ConfigError('`duration` option should be more than 0, for infinite duration use the externally-controlled executor');
    }
    return [{ name: 'default', raw: { executor: 'constant-vus', ...vus, duration: raw.duration } }];
  }
  if (stages && stages.length > 0) {
    if (has('scenarios')) throw conflict('stages', 'scenarios');
    const startVUs = has('vus') ? { startVUs: raw.vus } : {};
    return [{ name: 'default', raw: { executor: 'ramping-vus', ...startVUs, stages } }];
  }
  const scenarios = has('scenarios') ? (raw.scenarios as Record<string, Raw>) : {};
  if (Object.keys(scenarios).length > 0) return Object.entries(scenarios).map(([name, s]) => ({ name, raw: Object(s) as Raw }));
  return [{ name: 'default', raw: { executor: 'per-vu-iterations' } }];
}

/**
 * A scenario's share for this instance (GetVUs / GetIterations / HasWork in lib/executor/*.go):
 * VUs are scaled with the tuple's striped ScaleInt64; shared-iterations' iterations with the
 * tuple re-segmented by the VU count (GetNewExecutionTupleFromValue); per-vu-iterations keeps its
 * iterations per VU. The executors whose segmented plans the double does not reproduce are refused.
 */
function scaleScenario(s: ScenarioConfig, tuple: ExecutionTuple): ScenarioConfig {
  switch (s.executor) {
    case 'constant-vus':
    case 'per-vu-iterations': {
      const vus = tuple.scaleInt64(s.vus);
      return { ...s, vus, hasWork: vus > 0 && (s.executor === 'constant-vus' || s.iterations > 0), iterationTuple: tuple };
    }
    case 'shared-iterations': {
      const vus = tuple.scaleInt64(s.vus);
      const iterTuple = tuple.fromValue(s.vus);
      const iterations = iterTuple ? iterTuple.scaleInt64(s.iterations) : 0;
      return { ...s, vus, iterations, hasWork: vus > 0 && iterations > 0, iterationTuple: iterTuple ?? tuple };
    }
    default:
      throw new ConfigError(`k6 double: execution segments are not supported for ${s.executor}`);
  }
}

function durationOrThrow(v: unknown): number {
  try {
    return toDurationMs(v);
  } catch (e) {
    throw new ConfigError((e as Error).message);
  }
}

function parseScenario(name: string, raw: Raw, errors: string[]): ScenarioConfig {
  const executor = raw.executor;
  if (executor === undefined || executor === '') throw new ConfigError(`scenario '${name}' doesn't have a specified executor type`);
  if (typeof executor !== 'string' || !(executor in SCENARIO_FIELDS)) {
    throw new ConfigError(`unknown executor type '${String(executor)}'`);
  }
  const type = executor as ExecutorType;
  for (const key of Object.keys(raw)) {
    if (!BASE_FIELDS.includes(key) && !SCENARIO_FIELDS[type].includes(key)) throw new ConfigError(`json: unknown field "${key}"`);
  }
  const problems: string[] = [];
  const int = (key: string, dflt: number): number => (raw[key] === undefined || raw[key] === null ? dflt : Math.trunc(Number(raw[key])));
  const ms = (key: string, dflt: number): number => (raw[key] === undefined || raw[key] === null ? dflt : durationOrThrow(raw[key]));
  const isSet = (key: string) => raw[key] !== undefined && raw[key] !== null;
  const base: BaseScenario = {
    name,
    startTimeMs: ms('startTime', 0),
    gracefulStopMs: ms('gracefulStop', DEFAULT_GRACEFUL_MS),
    exec: typeof raw.exec === 'string' && raw.exec !== '' ? raw.exec : 'default',
    env: stringMap(raw.env),
    tags: stringMap(raw.tags),
  };
  if (!/^[0-9a-zA-Z_-]+$/.test(name)) problems.push('the scenario name should contain only numbers, latin letters, underscores, and dashes');
  if (raw.exec === '') problems.push('exec value cannot be empty');
  if (base.startTimeMs < 0) problems.push("the startTime can't be negative");
  if (base.gracefulStopMs < 0) problems.push("the gracefulStop timeout can't be negative");
  const minDuration = (what: string, value: number) => {
    if (value < MIN_DURATION_MS) problems.push(`the ${what} must be at least 1s, but is ${formatGoDuration(value)}`);
  };

  let config: ScenarioConfig;
  switch (type) {
    case 'shared-iterations':
    case 'per-vu-iterations': {
      const vus = int('vus', 1);
      const iterations = int('iterations', 1);
      const maxDurationMs = ms('maxDuration', DEFAULT_MAX_DURATION_MS);
      if (vus <= 0) problems.push('the number of VUs must be more than 0');
      if (type === 'shared-iterations' && iterations < vus) {
        problems.push(`the number of iterations (${iterations}) can't be less than the number of VUs (${vus})`);
      }
      if (type === 'per-vu-iterations' && iterations <= 0) problems.push('the number of iterations must be more than 0');
      minDuration('maxDuration', maxDurationMs);
      config = { ...base, executor: type, vus, iterations, maxDurationMs };
      break;
    }
    case 'constant-vus': {
      const vus = int('vus', 1);
      const durationMs = ms('duration', 0);
      if (vus <= 0) problems.push('the number of VUs must be more than 0');
      if (!isSet('duration')) problems.push('the duration is unspecified');
      else minDuration('duration', durationMs);
      config = { ...base, executor: type, vus, durationMs };
      break;
    }
    case 'ramping-vus': {
      const startVUs = int('startVUs', 1);
      const stages = parseStages(raw.stages, problems);
      if (startVUs < 0) problems.push("the number of start VUs can't be negative");
      if (Math.max(startVUs, ...stages.map((s) => s.target)) <= 0) {
        problems.push("either startVUs or one of the stages' target values must be greater than 0");
      }
      config = { ...base, executor: type, startVUs, stages, gracefulRampDownMs: ms('gracefulRampDown', DEFAULT_GRACEFUL_MS) };
      break;
    }
    case 'constant-arrival-rate':
    case 'ramping-arrival-rate': {
      const timeUnitMs = ms('timeUnit', 1000);
      const preAllocatedVUs = int('preAllocatedVUs', 0);
      const maxVUs = isSet('maxVUs') ? int('maxVUs', 0) : preAllocatedVUs;
      if (timeUnitMs <= 0) problems.push('the timeUnit must be more than 0');
      if (!isSet('preAllocatedVUs')) problems.push("the number of preAllocatedVUs isn't specified");
      else if (preAllocatedVUs < 0) problems.push("the number of preAllocatedVUs can't be negative");
      if (maxVUs < preAllocatedVUs) problems.push("maxVUs can't be less than preAllocatedVUs");
      if (type === 'constant-arrival-rate') {
        const rate = int('rate', 0);
        const durationMs = ms('duration', 0);
        if (!isSet('rate')) problems.push("the iteration rate isn't specified");
        else if (rate <= 0) problems.push('the iteration rate must be more than 0');
        if (!isSet('duration')) problems.push('the duration is unspecified');
        else minDuration('duration', durationMs);
        config = { ...base, executor: type, rate, timeUnitMs, durationMs, preAllocatedVUs, maxVUs };
      } else {
        const startRate = int('startRate', 0);
        if (startRate < 0) problems.push("the startRate value can't be negative");
        const stages = parseStages(raw.stages, problems);
        config = { ...base, executor: type, startRate, timeUnitMs, stages, preAllocatedVUs, maxVUs };
      }
      break;
    }
  }
  if (problems.length > 0) errors.push(`scenario ${name} has configuration errors: ${problems.join(', ')}`);
  return config;
}

function parseStages(raw: unknown, problems: string[]): Stage[] {
  const list = Array.isArray(raw) ? raw : [];
  if (list.length === 0) {
    problems.push('at least one stage has to be specified');
    return [];
  }
  return list.map((entry, i) => {
    const s = Object(entry) as Raw;
    const n = i + 1;
    let durationMs = 0;
    let target = 0;
    if (s.duration === undefined || s.duration === null) problems.push(`stage ${n} doesn't have a duration`);
    else if ((durationMs = durationOrThrow(s.duration)) < 0) problems.push(`the duration for stage ${n} can't be negative`);
    if (s.target === undefined || s.target === null) problems.push(`stage ${n} doesn't have a target`);
    else if ((target = Math.trunc(Number(s.target))) < 0) problems.push(`the target for stage ${n} can't be negative`);
    return { durationMs, target };
  });
}

function stringMap(v: unknown): Record<string, string> {
  if (v === null || typeof v !== 'object') return {};
  return Object.fromEntries(Object.entries(v as Raw).map(([k, x]) => [k, String(x)]));
}

/** A scenario as k6 serialises it in execution.test.options. */
function scenarioJSON(s: ScenarioConfig): Raw {
  const d = formatGoDuration;
  const common = { executor: s.executor, startTime: d(s.startTimeMs), gracefulStop: d(s.gracefulStopMs), env: s.env, exec: s.exec, tags: s.tags };
  const stages = (list: Stage[]) => list.map((st) => ({ duration: d(st.durationMs), target: st.target }));
  switch (s.executor) {
    case 'shared-iterations':
    case 'per-vu-iterations':
      return { ...common, vus: s.vus, iterations: s.iterations, maxDuration: d(s.maxDurationMs) };
    case 'constant-vus':
      return { ...common, vus: s.vus, duration: d(s.durationMs) };
    case 'ramping-vus':
      return { ...common, startVUs: s.startVUs, stages: stages(s.stages), gracefulRampDown: d(s.gracefulRampDownMs) };
    case 'constant-arrival-rate':
      return { ...common, rate: s.rate, timeUnit: d(s.timeUnitMs), duration: d(s.durationMs), preAllocatedVUs: s.preAllocatedVUs, maxVUs: s.maxVUs };
    case 'ramping-arrival-rate':
      return {
        ...common,
        startRate: s.startRate,
        timeUnit: d(s.timeUnitMs),
        stages: stages(s.stages),
        preAllocatedVUs: s.preAllocatedVUs,
        maxVUs: s.maxVUs,
      };
  }
}
