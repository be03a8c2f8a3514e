// Precise one-shot timer. setTimeout only has millisecond resolution and fires late by up to a
// millisecond or more; so sleep with setTimeout until `spinMs` before the target, then poll with
// setImmediate (which still lets socket I/O run between polls) until the target is reached.
// Targets are absolute, so lateness of one step never shifts the next one (no accumulated drift).

/** Epoch milliseconds with sub-millisecond precision. */
export function nowMs(): number {
  return performance.timeOrigin + performance.now();
}

export class PreciseTimer {
  private timeout: NodeJS.Timeout | null = null;
  private immediate: NodeJS.Immediate | null = null;
  private target = 0;
  private fn: (() => void) | null = null;

  constructor(private readonly spinMs: number) {}

  /** Calls fn at absolute epoch ms `at` (or as soon as possible if already past). Replaces any pending call. */
  at(at: number, fn: () => void): void {
    this.cancel();
    this.target = at;
    this.fn = fn;
    // Never call back synchronously: the caller may be in the middle of a request handler.
    this.immediate = setImmediate(() => {
      this.immediate = null;
      this.arm();
    });
  }

  get pending(): boolean {
    return this.fn !== null;
  }

  cancel(): void {
    if (this.timeout) clearTimeout(this.timeout);
    if (this.immediate) clearImmediate(this.immediate);
    this.timeout = null;
    this.immediate = null;
    this.fn = null;
  }

  private arm(): void {
    const remaining = this.target - nowMs();
    if (remaining <= 0) {
      const fn = this.fn;
      this.fn = null;
      fn?.();
    } else if (remaining > this.spinMs + 1) {
      // setTimeout rounds down to whole ms and may fire up to ~1 ms late: wake a little early.
      this.timeout = setTimeout(() => {
        this.timeout = null;
        this.arm();
      }, Math.floor(remaining - this.spinMs));
    } else if (this.spinMs > 0) {
      this.immediate = setImmediate(() => {
        this.immediate = null;
        this.arm();
      });
    } else {
      this.timeout = setTimeout(() => {
        this.timeout = null;
        this.arm();
      }, Math.max(1, Math.ceil(remaining)));
    }
  }
}
