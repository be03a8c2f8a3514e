// Dollars per million tokens from what a deployment costs per hour and the tokens/s it measured:
// GPU_HOUR_COST × GPUS / (tokens/s × 3600) × 1e6. Pure. All of the deployment's time is charged to
// the one kind of token priced (output, or input), as a price per token is quoted; never 0: a cost
// nobody set, or a throughput nobody measured, is null.
import type { Interval } from '../../stats/bootstrap';

export interface Price {
  /** Dollars per million tokens. */
  value: number;
  /** Its 95% interval, from the throughput's; null: none (no interval, or one reaching 0 tokens/s). */
  ci: Interval | null;
}

/** Dollars per hour of a deployment: its GPUs (1 when unset) at the GPU-hour cost. */
export const hourly = (gpuHourCost: number, gpus: number | null): number => gpuHourCost * (gpus ?? 1);

/** Dollars per million tokens at `tokensPerSec`; null when that rate is not a positive number. */
export function perMillion(dollarsPerHour: number, tokensPerSec: number | null, ci: Interval | null = null): Price | null {
  if (tokensPerSec === null || !Number.isFinite(tokensPerSec) || tokensPerSec <= 0) return null;
  const at = (tps: number) => (dollarsPerHour / (tps * 3600)) * 1e6;
  // Cost falls as throughput rises: the interval's ends swap.
  return { value: at(tokensPerSec), ci: ci !== null && ci.lo > 0 && Number.isFinite(ci.hi) ? { lo: at(ci.hi), hi: at(ci.lo) } : null };
}
