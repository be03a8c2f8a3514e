// The `k6/metrics` module: Counter, Gauge, Rate, Trend (internal/js/modules/k6/metrics).
// Declaration is checked against the process-wide registry on the main thread, so a name clash
// between VUs or with a built-in metric fails exactly where k6 fails it.

import type { MetricType } from '../../shared/protocol';
import { applyUserTags, type VUState } from '../state';

export function createMetricsModule(vu: VUState): Record<string, unknown> {
  const { realm } = vu;

  function declare(type: MetricType) {
    // A plain function so the script can call it with `new`; returning an object from a
    // constructor makes that object the result, as k6's Go constructors do.
    return function metricConstructor(name?: unknown, isTime?: unknown): Record<string, unknown> {
      if (!vu.inInit) throw realm.goError('metrics must be declared in the init context');
      const metricName = String(name);
      const { error } = vu.rpc.call('metric.register', { name: metricName, type, isTime: Boolean(isTime) });
      if (error) throw realm.goError(error);
      const metric = realm.object();
      Object.defineProperty(metric, 'name', { value: metricName, writable: false, configurable: false, enumerable: true });
      metric.add = function add(...args: unknown[]): boolean {
        return addSample(vu, metricName, args);
      };
      return metric;
    };
  }

  const exports = realm.object();
  exports.Counter = declare('counter');
  exports.Gauge = declare('gauge');
  exports.Rate = declare('rate');
  exports.Trend = declare('trend');
  return exports;
}

/** k6's Metric.add: invalid values are logged as warnings and return false (throw option off). */
function addSample(vu: VUState, name: string, args: unknown[]): boolean {
  const { realm } = vu;
  if (vu.inInit) throw realm.goError('Adding to metrics in the init context is not supported');
  vu.rpc.checkInterrupt();
  const warn = (msg: string): boolean => {
    vu.log('warning', msg);
    return false;
  };
  if (args.length === 0) {
    return warn(`no value was provided for metric '${name}', a number or a boolean value is expected`);
  }
  const [value, tags] = args;
  const invalid = () =>
    warn(`'${limitValue(String(value))}' is an invalid value for metric '${name}', a number or a boolean value is expected`);
  if (value === null) return invalid();
  let v = Number(value);
  // sobek's ToFloat plus k6's "0 but truthy means 1" rule: add("0") and add(true) both record 1.
  if (v === 0 && Boolean(value)) v = 1;
  if (Number.isNaN(v)) return invalid();
  const sampleTags = { ...vu.tags };
  try {
    applyUserTags(sampleTags, tags);
  } catch (e) {
    throw realm.goError(`cannot add tags for the '${name}' custom metric: ${(e as Error).message}`);
  }
  vu.emitOne(name, v, sampleTags);
  return true;
}

function limitValue(v: string): string {
  const chars = [...v];
  if (chars.length < 100) return v;
  return `${chars.slice(0, 50).join('')}... omitting ${chars.length - 100} characters ...${chars.slice(-50).join('')}`;
}
