// What each scenario is: its report, its load model and the defaults that differ from the shared
// ones. Pure, so the README's tables and the tests read the same definitions k6 runs.
import type { BenchConfig } from './config/load';
import { ConfigError } from './config/parse';
import type { ReportKind } from './report/report';

export interface ScenarioSpec {
  /** The file name in scenarios/ and dist/. */
  name: string;
  /** The question the scenario answers, for the README. */
  question: string;
  report: ReportKind;
  /** Closed loop over CONCURRENCY (vus) or open loop over RATE. */
  load: 'vus' | 'rate';
  /** Defaults that differ from the shared ones for this scenario (variable → value). */
  defaults?: Record<string, string>;
  /** Extra checks of the configuration, throwing ConfigError. */
  validate?: (cfg: BenchConfig) => void;
}

export const SCENARIOS: Record<string, ScenarioSpec> = {
  'dflash-vs-mtp': {
    name: 'dflash-vs-mtp',
    question: 'Is deployment A (DFLASH_URL) faster than deployment B (MTP_URL), by how much, and at which context length and concurrency?',
    report: 'ab',
    load: 'vus',
  },
  'concurrency-ramp': {
    name: 'concurrency-ramp',
    question: 'Where is the knee: the concurrency after which throughput stops growing while latency climbs?',
    report: 'ramp',
    load: 'vus',
    defaults: { CONCURRENCY: '1,2,4,8,16,32,64' },
    validate(cfg) {
      if (cfg.concurrency.length < 2) throw new ConfigError('CONCURRENCY needs at least two levels for a ramp, e.g. CONCURRENCY=1,4,16,64.');
    },
  },
  'context-matrix': {
    name: 'context-matrix',
    question: 'How do latency and throughput move with input and output length at a fixed concurrency?',
    report: 'context',
    load: 'vus',
    defaults: { ISL: '128,1024,4096', OSL: '128,512', CONCURRENCY: '4' },
    validate(cfg) {
      if (cfg.concurrency.length !== 1) {
        throw new ConfigError(
          `CONCURRENCY=${cfg.concurrency.join(',')}: context-matrix runs at one concurrency; give one value (dflash-vs-mtp and concurrency-ramp take several).`,
        );
      }
    },
  },
  'arrival-rate': {
    name: 'arrival-rate',
    question: 'At which request rate does the server fall behind (open model: dropped iterations, completions below the offered rate, queueing)?',
    report: 'arrival',
    load: 'rate',
  },
  smoke: {
    name: 'smoke',
    question: 'Can this server be benchmarked at all? A 30-second preflight: reachable, which API, which model, does a generation return a token, then three requests.',
    report: 'smoke',
    load: 'vus',
    defaults: { ISL: '128', OSL: '16', CONCURRENCY: '1', REQUESTS: '3', DURATION: '20s', WARMUP_REQUESTS: '1' },
  },
};
