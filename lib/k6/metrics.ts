// The k6 metric objects for the catalog. k6 allows creating metrics only in the init context,
// so this runs once per VU at module load.
import { Counter, Rate, Trend } from 'k6/metrics';
import { METRICS, type MetricKey } from '../metrics/catalog';
import type { AddSample } from '../metrics/samples';

interface Addable {
  add(value: number, tags?: Record<string, string>): void;
}

export type K6Metrics = Record<MetricKey, Addable>;

export function createMetrics(): K6Metrics {
  const out = {} as K6Metrics;
  for (const key of Object.keys(METRICS) as MetricKey[]) {
    const def = METRICS[key];
    switch (def.type) {
      case 'counter':
        out[key] = new Counter(def.name);
        break;
      case 'rate':
        out[key] = new Rate(def.name);
        break;
      case 'trend':
        out[key] = new Trend(def.name, def.time);
        break;
    }
  }
  return out;
}

/** The AddSample that records into k6; its sink is the k6 metric itself (ITL: one add per token, no wrapper). */
export function adder(metrics: K6Metrics): AddSample {
  const add: AddSample = (metric, value, tags) => metrics[metric].add(value, tags);
  add.sink = (metric) => metrics[metric];
  return add;
}
