// Precise one-shot timer. setTimeout only has millisecond resolution and fires late by up to a
// millisecond or more; so sleep with setTimeout until `spinMs` before the due time, then poll with
// setImmediate (which still lets socket I/O run between polls) until it is reached.
// Due times are absolute, so lateness of one step never shifts the next one (no accumulated drift).

/** Epoch milliseconds with sub-millisecond precision. */
export function nowMs(): number {
  return performance.timeOrigin + performance.now();
}

export class PreciseTimer {
  private timeout: NodeJS.Timeout | null = null;
  private immediate: NodeJS.Immediate | null = null;
  private dueAt = 0;
  private fn: (() => void) | null = null;

  constructor(private readonly spinMs: number) {}

  /** Calls fn at absolute epoch ms `at` (or as soon as possible if already past). Replaces any pending call. */
  at(at: number, fn: () => void): void {
    this.cancel();
    this.dueAt = at;
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
    const remaining = this.dueAt - nowMs();
    if (remaining <= 0) {
      const fn = this.fn;
      this.fn = null;
      fn?.();
    } else if (remaining > this.spinMs + 1) {
      // setTimeout rounds down to whole ms and may fire up to ~1 ms late: wake a little early.
      this.timeout = setTimeout(
        () => {
          this.timeout = null;
          this.arm();
        },
        Math.floor(remaining - this.spinMs),
      );
    } else if (this.spinMs > 0) {
      this.immediate = setImmediate(() => {
        this.immediate = null;
        this.arm();
      });
    } else {
      this.timeout = setTimeout(
        () => {
          this.timeout = null;
          this.arm();
        },
        Math.max(1, Math.ceil(remaining)),
      );
    }
  }
}

/**
 * How late the simulator may have noticed an arrival. Bytes that arrive while the event loop runs
 * JavaScript wait in the kernel until the loop next polls for I/O, so a request read right after a
 * long synchronous stretch may have arrived at any moment of that stretch; and requests read in one
 * poll arrived at any moment since the first of them was read. `arrival()` returns the read time and
 * that bound. Stretches are known two ways: the simulator's own long tasks report themselves (a
 * step's writes, its preparation, a batch of requests), and a heartbeat timer that fires late
 * reveals any other block (garbage collection, other code in the process, a starved CPU).
 */
export class LoopWatch {
  /** Start of the latest busy stretch that no I/O poll has followed yet. */
  private busyFrom: number | null = null;
  private busyEnd = 0;
  /** When the first request of the current poll's batch was read. */
  private batchFrom: number | null = null;
  private clearing = false;
  private heartbeat: NodeJS.Timeout | null = null;
  private intervalMs = 0;
  private lastBeat = 0;
  private lastActivity = 0;

  /**
   * Enables the heartbeat: while the simulator is active (an arrival or a busy stretch in the last
   * second), a timer beats every `intervalMs`; a beat later than `2 × intervalMs + 1` marks the
   * loop as blocked since the previous beat, and so does an arrival read when the last beat is over
   * `intervalMs + 1` old (the process was blocked or not scheduled, and the beat has not had its
   * turn yet). Idle, it stops, so an idle simulator costs nothing.
   */
  start(intervalMs = 2): void {
    this.stop();
    this.intervalMs = intervalMs;
  }

  stop(): void {
    if (this.heartbeat) clearInterval(this.heartbeat);
    this.heartbeat = null;
    this.intervalMs = 0;
  }

  private active(t: number): void {
    this.lastActivity = t;
    if (this.heartbeat || this.intervalMs === 0) return;
    this.lastBeat = t;
    const slack = 2 * this.intervalMs + 1;
    this.heartbeat = setInterval(() => {
      const now = nowMs();
      if (now - this.lastBeat > slack) this.busy(this.lastBeat);
      this.lastBeat = now;
      if (now - this.lastActivity > 1000 && this.heartbeat) {
        clearInterval(this.heartbeat);
        this.heartbeat = null;
      }
    }, this.intervalMs);
    this.heartbeat.unref();
  }

  /** A synchronous stretch that began at `from` has just ended. */
  busy(from: number): void {
    this.busyFrom = this.busyFrom === null ? from : Math.min(this.busyFrom, from);
    this.busyEnd = nowMs();
    this.active(this.busyEnd);
    this.clearAfterPoll();
  }

  /** A request's headers were just read: its arrival time and how late that may be (ms). */
  arrival(): { arrivalMs: number; intakeLagMs: number } {
    const t = nowMs();
    if (this.batchFrom === null) {
      this.batchFrom = t;
      this.clearAfterPoll();
    }
    let from = this.busyFrom === null ? this.batchFrom : Math.min(this.busyFrom, this.batchFrom);
    // A beat is due every intervalMs: one more than a millisecond overdue means the loop (or the
    // process) has not had its turn, and the data may have waited since the last beat.
    if (this.heartbeat && t - this.lastBeat > this.intervalMs + 1) from = Math.min(from, this.lastBeat);
    this.active(t);
    return { arrivalMs: t, intakeLagMs: t - from };
  }

  // A setImmediate callback runs in the check phase, after the poll phase that follows the moment
  // it was queued (in the same loop turn if queued before the poll, in the next one if queued from
  // the check phase itself). Once it has run, the loop has polled, and later reads owe the marks
  // nothing — unless a busy stretch ended after it was queued (then wait for the next poll).
  private clearAfterPoll(): void {
    if (this.clearing) return;
    this.clearing = true;
    const queuedAt = nowMs();
    setImmediate(() => {
      this.clearing = false;
      this.batchFrom = null;
      if (this.busyEnd > queuedAt) this.clearAfterPoll();
      else this.busyFrom = null;
    });
  }
}
