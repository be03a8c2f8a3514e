// The buffer of initialised VUs shared by all executors (lib.ExecutionState's VU channel):
// planned VUs are created before the test starts; unplanned ones (arrival-rate maxVUs) on demand,
// up to the plan's (max possible - max planned). A VU returned by one scenario is reused by the
// next, oldest first.

import type { VUWorker } from './vu-worker';

/** k6 retries 5 times 400 ms before giving up on a planned VU. */
const PLANNED_VU_WAIT_MS = 2000;

export interface PoolCounters {
  activeVUs: number;
  initializedVUs: number;
}

export class VUPool {
  private readonly free: VUWorker[] = [];
  private readonly waiters: Array<(vu: VUWorker) => void> = [];
  private readonly all = new Map<number, VUWorker>();
  private nextId = 1;

  constructor(
    /** Starts a worker and runs the script's init code in it; rejects on an init error. */
    private readonly create: (id: number) => Promise<VUWorker>,
    private readonly counters: PoolCounters,
    private uninitializedUnplanned: number,
  ) {}

  /** Initialises VUs 1..n concurrently, like k6's init phase, then queues them in id order. */
  async initPlanned(n: number): Promise<void> {
    const vus = await Promise.all(Array.from({ length: n }, () => this.spawn()));
    for (const vu of vus) this.release(vu);
  }

  async getPlannedVU(modifyActive: boolean): Promise<VUWorker> {
    const vu =
      this.free.shift() ??
      (await new Promise<VUWorker>((resolve, reject) => {
        const timer = setTimeout(() => {
          this.waiters.splice(this.waiters.indexOf(take), 1);
          reject(new Error(`could not get a VU from the buffer in ${PLANNED_VU_WAIT_MS / 1000}s`));
        }, PLANNED_VU_WAIT_MS);
        const take = (v: VUWorker) => {
          clearTimeout(timer);
          resolve(v);
        };
        this.waiters.push(take);
      }));
    if (modifyActive) this.counters.activeVUs++;
    return vu;
  }

  /** A new VU while the plan allows it, else a free one (k6's GetUnplannedVU). */
  async getUnplannedVU(): Promise<VUWorker> {
    if (this.uninitializedUnplanned <= 0) return this.getPlannedVU(false);
    this.uninitializedUnplanned--;
    return this.spawn();
  }

  returnVU(vu: VUWorker, modifyActive: boolean): void {
    if (modifyActive) this.counters.activeVUs--;
    if (vu.alive) {
      this.release(vu);
      return;
    }
    // Its thread was terminated (stuck in JS after an interrupt): re-create that VU from scratch.
    void this.respawn(vu.id).then(
      (fresh) => this.release(fresh),
      () => {},
    );
  }

  workers(): VUWorker[] {
    return [...this.all.values()];
  }

  private async spawn(): Promise<VUWorker> {
    const vu = await this.respawn(this.nextId++);
    this.counters.initializedVUs++;
    return vu;
  }

  private async respawn(id: number): Promise<VUWorker> {
    const vu = await this.create(id);
    this.all.set(id, vu);
    return vu;
  }

  private release(vu: VUWorker): void {
    const waiter = this.waiters.shift();
    if (waiter) waiter(vu);
    else this.free.push(vu);
  }
}
