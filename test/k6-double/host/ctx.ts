// A small analogue of Go's context.Context for the scheduler: k6's executors are written around
// nested contexts (the test run, an executor's maxDuration and regular duration, one VU's
// activation), and mirroring that structure is the simplest way to get the same stop semantics.

export class RunCtx {
  private readonly controller = new AbortController();
  private readonly listeners = new Set<() => void>();
  private timer: NodeJS.Timeout | undefined;
  private detachParent: (() => void) | undefined;
  /** Set when cancel() runs: ms since the epoch. */
  doneAt = 0;

  constructor(parent?: RunCtx, deadline?: number) {
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

  get done(): boolean {
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
    if (this.done) return;
    this.doneAt = Date.now();
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
      resolve(false);
    }, ms);
    const off = ctx.onDone(() => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}
