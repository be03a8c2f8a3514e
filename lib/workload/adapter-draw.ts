// ADAPTERS: which LoRA adapter each request runs with, drawn from the seed. A VU's k-th request in a
// run gets the same adapter whichever variant the run measures (the stream depends only on SEED and
// the VU's slot), so an A/B compares the same mix request for request.
import type { AdapterWeight } from '../config/config-types';
import { rngFor, type Rng } from '../stats/rng';

/** The word ADAPTERS uses for the base model (requests with no adapter). */
export const BASE_ADAPTER = 'base';

export class AdapterPicker {
  private readonly rng: Rng;
  /** Cumulative shares, the last exactly 1. */
  private readonly cumulative: number[];

  constructor(
    private readonly adapters: readonly AdapterWeight[],
    seed: number,
    slot: number,
  ) {
    this.rng = rngFor(seed, `adapters:${slot}`);
    const total = adapters.reduce((s, a) => s + a.weight, 0);
    let sum = 0;
    this.cumulative = adapters.map((a) => (sum += a.weight) / total);
    this.cumulative[this.cumulative.length - 1] = 1;
  }

  /** The next request's adapter name (BASE_ADAPTER for the base model). */
  next(): string {
    const u = this.rng();
    const i = this.cumulative.findIndex((c) => u < c);
    return this.adapters[i === -1 ? this.adapters.length - 1 : i].name;
  }
}
