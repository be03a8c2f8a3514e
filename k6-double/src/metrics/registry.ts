// The process-wide metric registry (metrics/registry.go, metrics/builtin.go): built-in metrics
// are registered up front, custom ones when a VU's init code constructs them; name validation
// and redefinition errors carry k6's wording.

import type { MetricType } from '../shared/protocol';

export type ValueType = 'default' | 'time' | 'data';

export interface MetricDef {
  name: string;
  type: MetricType;
  contains: ValueType;
}

const NAME = /^[a-zA-Z_][a-zA-Z0-9_]{1,128}$/;

const BUILTINS: Array<[string, MetricType, ValueType]> = [
  ['vus', 'gauge', 'default'],
  ['vus_max', 'gauge', 'default'],
  ['iterations', 'counter', 'default'],
  ['iteration_duration', 'trend', 'time'],
  ['dropped_iterations', 'counter', 'default'],
  ['checks', 'rate', 'default'],
  ['group_duration', 'trend', 'time'],
  ['http_reqs', 'counter', 'default'],
  ['http_req_failed', 'rate', 'default'],
  ['http_req_duration', 'trend', 'time'],
  ['http_req_blocked', 'trend', 'time'],
  ['http_req_connecting', 'trend', 'time'],
  ['http_req_tls_handshaking', 'trend', 'time'],
  ['http_req_sending', 'trend', 'time'],
  ['http_req_waiting', 'trend', 'time'],
  ['http_req_receiving', 'trend', 'time'],
  ['ws_sessions', 'counter', 'default'],
  ['ws_msgs_sent', 'counter', 'default'],
  ['ws_msgs_received', 'counter', 'default'],
  ['ws_ping', 'trend', 'time'],
  ['ws_session_duration', 'trend', 'time'],
  ['ws_connecting', 'trend', 'time'],
  ['grpc_req_duration', 'trend', 'time'],
  ['data_sent', 'counter', 'data'],
  ['data_received', 'counter', 'data'],
];

export class MetricRegistry {
  private readonly metrics = new Map<string, MetricDef>();

  constructor() {
    for (const [name, type, contains] of BUILTINS) this.register(name, type, contains);
  }

  /** k6's Registry.NewMetric: returns the existing metric when the definition matches. */
  register(name: string, type: MetricType, contains: ValueType): MetricDef {
    if (!NAME.test(name)) {
      throw new Error(
        `Invalid metric name: '${name}'. Metric names must only include up to 128 ASCII letters, ` +
          'numbers, or underscores and start with a letter or an underscore.',
      );
    }
    const old = this.metrics.get(name);
    if (!old) {
      const def = { name, type, contains };
      this.metrics.set(name, def);
      return def;
    }
    if (old.type !== type) throw new Error(`metric '${name}' already exists but with type ${old.type}, instead of ${type}`);
    if (old.contains !== contains) {
      throw new Error(`metric '${name}' already exists but with a value type ${old.contains}, instead of ${contains}`);
    }
    return old;
  }

  get(name: string): MetricDef | undefined {
    return this.metrics.get(name);
  }
}
