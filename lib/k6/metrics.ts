// The k6 metric objects for the catalog. k6 allows creating metrics only in the init context,
// so this runs once per VU at module load. The definitions are an argument: a VU that sends requests
// takes them from VU 0 (lifecycle/vu0-handoff.ts) rather than evaluate the catalog and its help texts.
import { Counter, Rate, Trend } from 'k6/metrics';
import type { MetricDef, MetricKey } from '../metrics/catalog';
import type { AddSample } from '../metrics/samples';

interface Addable {
  add(value: number, tags?: Record<string, string>): void;
}

export type K6Metrics = Record<MetricKey, Addable>;

/** What creating a k6 metric needs of its catalog entry. */
export type MetricDecls = Record<MetricKey, Pick<MetricDef, 'name' | 'type' | 'time'>>;

export function createMetrics(decls: MetricDecls): K6Metrics {
  const out = {} as K6Metrics;
  for (const key of Object.keys(decls) as MetricKey[]) {
    const def = decls[key];
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
