// The throughput–interactivity frontier: of a variant's runs, those no other of its runs beats on
// both interactivity (x: output tokens/s per user) and throughput (y: output tokens/s per GPU), and
// which variant's frontier gives the most throughput at each level of interactivity. Pure.

export interface XY {
  x: number;
  y: number;
}

/** The points no other point matches or beats on both x and y (max both), by x ascending (so y descending). */
export function paretoFront<T extends XY>(points: readonly T[]): T[] {
  const sorted = [...points].filter((p) => Number.isFinite(p.x) && Number.isFinite(p.y)).sort((a, b) => b.x - a.x || b.y - a.y);
  const out: T[] = [];
  let best = -Infinity;
  for (const p of sorted) {
    if (p.y > best) {
      out.push(p);
      best = p.y;
    }
  }
  return out.reverse();
}

/** The most y a frontier reaches at interactivity at least x; null when none of its points is that interactive. */
export function reachAt(front: readonly XY[], x: number): number | null {
  let best: number | null = null;
  for (const p of front) if (p.x >= x && (best === null || p.y > best)) best = p.y;
  return best;
}

/** Interactivity up to `upTo` (from the previous segment's upTo): `leaders` give the most throughput there. */
export interface Segment {
  upTo: number;
  /** The variants with the most throughput (several on a tie); one alone when only it reaches that far. */
  leaders: string[];
  /** How many variants reach this interactivity at all. */
  reaching: number;
}

/**
 * Which variant leads where: for each interactivity a user may ask for, the variant whose frontier
 * gives the most throughput at that interactivity or more (no interpolation between runs: a level
 * between two runs is served at the more interactive one's throughput). Neighbouring levels with the
 * same leaders are merged.
 */
export function dominance(fronts: ReadonlyArray<{ variant: string; frontier: readonly XY[] }>): Segment[] {
  const xs = [...new Set(fronts.flatMap((f) => f.frontier.map((p) => p.x)))].sort((a, b) => a - b);
  const out: Segment[] = [];
  for (const x of xs) {
    const reach = fronts.map((f) => ({ variant: f.variant, y: reachAt(f.frontier, x) })).filter((r): r is { variant: string; y: number } => r.y !== null);
    const top = Math.max(...reach.map((r) => r.y));
    const leaders = reach.filter((r) => r.y === top).map((r) => r.variant);
    const last = out[out.length - 1];
    if (last && last.leaders.join() === leaders.join() && last.reaching > 1 === reach.length > 1) last.upTo = x;
    else out.push({ upTo: x, leaders, reaching: reach.length });
  }
  return out;
}

/** "dflash leads above 40 tok/s per user; below it mtp": the segments in words, `unit` after each level. */
export function dominanceSentence(segments: readonly Segment[], unit: string, fmt: (v: number) => string): string {
  const parts = segments.map((s, i) => {
    const who = s.leaders.length > 1 ? `${s.leaders.join(' and ')} tie` : s.reaching === 1 ? `only ${s.leaders[0]} reaches it` : `${s.leaders[0]} leads`;
    const from = i === 0 ? 'up to' : `above ${fmt(segments[i - 1].upTo)} and up to`;
    return `${from} ${fmt(s.upTo)} ${unit}, ${who}`;
  });
  return `${parts.join('; ')}.`;
}
