// A run's prefix-cache reset (CACHE_RESET), from setup() for the first run and from the run's
// reset scenario for a later one: the decision is lib/server-metrics/cache-reset.ts; this records
// its outcome per run (llm_cache_reset) and says it in the log.
import type { HttpPort } from '../http-port';
import type { Run } from '../plan/matrix';
import { resetCache } from '../server-metrics/cache-reset';
import type { SetupData } from '../variants';
import type { Bench } from './lifecycle/each-vu-bench';

export function resetBeforeRun(b: Bench, data: SetupData, run: Run, port: HttpPort, budgetMs: number): void {
  const variant = b.variant(data, run.variant);
  const engine = data.variants.find((v) => v.variant === run.variant)?.engine ?? null;
  const r = resetCache(port, { url: variant.url, engine, headers: variant.probeHeaders }, budgetMs);
  b.metrics.cacheReset.add(1, { cache_run: run.scenario, outcome: r.outcome });
  if (r.outcome === 'reset') console.log(`${run.scenario}: prefix cache reset (${r.detail})`);
  else console.warn(`${run.scenario}: prefix cache not reset (${r.outcome}): ${r.detail}`);
}
