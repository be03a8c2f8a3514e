// The pooling benchmarks' own configuration (embeddings, rerank): BATCH, the items each request
// carries, one matrix axis in place of OSL (a pooling request generates nothing), and the checks
// that its variants' dialects have the benchmark's route.
import type { PoolingTask } from '../dialects/pooling';
import { DIALECT_NAMES, poolingRoute } from '../dialects/index';
import { ConfigError, intList } from './parse';
import type { BenchConfig, PoolingConfig } from './config-types';

/** Items per request at most: a batch is one JSON body built in each VU. */
export const MAX_BATCH = 4096;

export function poolingConfig(task: PoolingTask, raw: string, cfg: Pick<BenchConfig, 'variants'>): PoolingConfig {
  const batch = intList('BATCH', raw, { min: 1, max: MAX_BATCH });
  for (const v of cfg.variants) {
    if (v.dialect === 'auto' || poolingRoute(v.dialect, task) !== null) continue;
    const have = DIALECT_NAMES.filter((d) => poolingRoute(d, task) !== null);
    throw new ConfigError(`${v.vars.dialect}=${v.dialect}: the servers that speak it have no ${task} route; use one of ${have.join(', ')} (or auto).`);
  }
  return { task, batch };
}
