// ADAPTERS in a VU: each request's adapter, drawn from SEED (lib/workload/adapter-draw.ts), and the
// `adapter` tag its samples carry (set only when it changes: k6 copies the tags per sample anyway).
import exec from 'k6/execution';
import type { AdapterChoice } from '../dialects/index';
import type { ResolvedVariant } from '../variants';
import { BASE_ADAPTER, type AdapterPicker } from '../workload/adapter-draw';

let tagged: string | null = null;

/** The next request's adapter for variant `t`, its tag set. */
export function nextAdapter(picker: AdapterPicker, v: ResolvedVariant): AdapterChoice {
  const name = picker.next();
  if (name !== tagged) (exec.vu.metrics.tags as Record<string, string>).adapter = tagged = name;
  return name === BASE_ADAPTER ? { name: null, id: null } : { name, id: v.adapterIds?.[name] ?? null };
}

/** Before work that is not a request (the server-metrics probe, the watch): no stale adapter tag. */
export function clearAdapterTag(): void {
  if (tagged === null) return;
  delete (exec.vu.metrics.tags as Record<string, string>).adapter;
  tagged = null;
}
