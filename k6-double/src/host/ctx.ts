// A small analogue of Go's context.Context for the scheduler: k6's executors are written around
// nested contexts (the test run, an executor's maxDuration and regular duration, one VU's
// activation), and mirroring that structure is the simplest way to get the same stop semantics.

export class RunCtx {
  private readonly controller = new AbortController();
  private readonly listeners = new Set<() => void>();
  private timer: NodeJS.Timeout | undefined;
  private detachParent: (() => void) | undefined;

  constructor(
    private readonly parent?: RunCtx,
    private readonly deadline?: number,
  ) {
    if (parent) {
      if (parent.done) {
        this.cancel();
        return;
      }
      this.detachParent = parent.onDone(() => this.cancel());
    }
    if (deadline !== undefined) {
      const ms = deadline - Date.now();
      if (ms <= 0) this.cancel();
      else this.timer = setTimeout(() => this.cancel(), ms);
    }
  }

  /**
   * Also true once the deadline has passed even if the timer has not fired yet: under load a
   * timer callback can run late, and a scheduler loop must not start work past its deadline.
   */
  get done(): boolean {
    if (!this.controller.signal.aborted && ((this.deadline !== undefined && Date.now() >= this.deadline) || this.parent?.done)) {
      this.cancel();
    }
    return this.controller.signal.aborted;
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** A child that ends with this context or at `deadline` (ms since the epoch). */
  child(deadline?: number): RunCtx {
    return new RunCtx(this, deadline);
  }

  cancel(): void {
    if (this.controller.signal.aborted) return;
    clearTimeout(this.timer);
    this.detachParent?.();
    this.controller.abort();
    const listeners = [...this.listeners];
    this.listeners.clear();
    for (const l of listeners) l();
  }

  /** Runs `fn` once when the context ends (at once if it already has); returns an unsubscriber. */
  onDone(fn: () => void): () => void {
    if (this.done) {
      fn();
      return () => {};
    }
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  wait(): Promise<void> {
    return new Promise((resolve) => this.onDone(resolve));
  }
}

/** Resolves at `at` (ms since the epoch) or when `ctx` ends; true if the context ended first. */
export function sleepUntil(at: number, ctx: RunCtx): Promise<boolean> {
  if (ctx.done) return Promise.resolve(true);
  const ms = at - Date.now();
  if (ms <= 0) return Promise.resolve(false);
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      off();
      resolve(ctx.done);
    }, ms);
    const off = ctx.onDone(() => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}
