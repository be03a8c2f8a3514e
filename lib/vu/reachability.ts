// How a VU treats a variant that does not answer connections: it backs off (doubling up to a cap)
// instead of retrying at full speed, and once nothing but refused connections has come back for
// VARIANT_DOWN_AFTER it declares the variant down and sends it nothing more in this run. Pure, so
// the schedule is tested in Node; the k6 layer only sleeps for what it is told.

export interface ReachabilityPolicy {
  /** Wait after the first unreachable attempt of a series. */
  firstBackoffMs: number;
  /** The longest wait between attempts. */
  maxBackoffMs: number;
  /** Unreachable without a break for this long: the variant is down. */
  downAfterMs: number;
}

export const BACKOFF = { firstBackoffMs: 50, maxBackoffMs: 1000 } as const;

export class Reachability {
  private failingSince: number | null = null;
  private waitMs = 0;
  /** Client time at which the variant was declared down; null while it is not. */
  downAtMs: number | null = null;
  /** When the series of failures that brought it down began. */
  downSinceMs: number | null = null;

  constructor(private readonly policy: ReachabilityPolicy) {}

  /**
   * After each request: how long to wait before the next one (0 when the variant answered).
   * A reply of any kind, an error status included, proves the variant reachable.
   */
  after(unreachable: boolean, nowMs: number): { waitMs: number; declaredDown: boolean } {
    if (!unreachable) {
      this.failingSince = null;
      this.waitMs = 0;
      return { waitMs: 0, declaredDown: false };
    }
    this.failingSince ??= nowMs;
    let declaredDown = false;
    if (this.downAtMs === null && nowMs - this.failingSince >= this.policy.downAfterMs) {
      this.downAtMs = nowMs;
      this.downSinceMs = this.failingSince;
      declaredDown = true;
    }
    this.waitMs = this.waitMs === 0 ? this.policy.firstBackoffMs : Math.min(this.policy.maxBackoffMs, this.waitMs * 2);
    return { waitMs: declaredDown ? 0 : this.waitMs, declaredDown };
  }
}
