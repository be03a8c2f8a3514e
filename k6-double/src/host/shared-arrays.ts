// SharedArray data, once per test run (k6 keeps it once per process). The first VU asking for a
// name computes it; VUs asking meanwhile wait for its answer; if the callback threw, the next
// waiting VU gets to try (k6 releases its lock without storing anything in that case).

type Answer = { data?: string[]; compute?: true };

export class SharedArrays {
  private readonly data = new Map<string, string[]>();
  private readonly computing = new Set<string>();
  private readonly waiting = new Map<string, Array<(a: Answer) => void>>();

  get(name: string, answer: (a: Answer) => void): void {
    const data = this.data.get(name);
    if (data) return answer({ data });
    if (!this.computing.has(name)) {
      this.computing.add(name);
      return answer({ compute: true });
    }
    this.waiting.set(name, [...(this.waiting.get(name) ?? []), answer]);
  }

  set(name: string, data: string[] | null): void {
    this.computing.delete(name);
    const waiters = this.waiting.get(name) ?? [];
    this.waiting.delete(name);
    if (data) {
      this.data.set(name, data);
      for (const w of waiters) w({ data });
      return;
    }
    const next = waiters.shift();
    if (!next) return;
    if (waiters.length > 0) this.waiting.set(name, waiters);
    this.computing.add(name);
    next({ compute: true });
  }
}
