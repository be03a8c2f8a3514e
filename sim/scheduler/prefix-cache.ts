// Block-granular prefix cache: full prompt blocks are identified by a hash chained over every token
// before them (as vLLM's block hashes), kept in LRU order up to a capacity in blocks.
import { hashInts } from '../rng';

export class PrefixCache {
  private readonly blocks = new Map<number, true>();

  constructor(
    private readonly blockSize: number,
    private readonly capacityBlocks: number,
  ) {}

  blockHashes(ids: readonly number[]): number[] {
    const out: number[] = [];
    let h = 0x811c9dc5;
    for (let end = this.blockSize; end <= ids.length; end += this.blockSize) {
      h = hashInts(ids, end - this.blockSize, end, h);
      out.push(h);
    }
    return out;
  }

  /** Number of leading blocks already cached; marks them recently used. */
  match(hashes: readonly number[]): number {
    let n = 0;
    for (const h of hashes) {
      if (!this.blocks.has(h)) break;
      this.blocks.delete(h);
      this.blocks.set(h, true);
      n++;
    }
    return n;
  }

  clear(): void {
    this.blocks.clear();
  }

  insert(hashes: readonly number[]): void {
    for (const h of hashes) {
      this.blocks.delete(h);
      this.blocks.set(h, true);
    }
    while (this.blocks.size > this.capacityBlocks) {
      const oldest = this.blocks.keys().next().value as number;
      this.blocks.delete(oldest);
    }
  }
}
