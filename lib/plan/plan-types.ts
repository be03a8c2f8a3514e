// The plan's data: what a cell, a run and the plan are. A leaf, so that what reads a plan (the
// saturation watch, the reports) need not import the code that builds one.

/** Closed loop (VUs), open loop at a rate, or a trace replayed on its own clock (open loop, at most `vus` in flight). */
export type Load =
  | { kind: 'vus'; vus: number }
  | { kind: 'rate'; rate: number }
  | { kind: 'trace'; speed: number; requests: number; vus: number; maxLagMs: number; arrivals?: string };

export interface Cell {
  /** e.g. i1024_o256_c8, or i1024_o256_r2.5 for an arrival rate. */
  id: string;
  isl: number;
  osl: number;
  /** IMAGES: the images each request of the cell carries; absent for a cell without images. */
  images?: ImageSpec;
  load: Load;
  /** A pooling benchmark's cell: the items each request carries (BATCH); its osl is 0, a pooling request generates nothing. */
  batch?: number;
}

/** IMAGES: `count` images of `width` × `height` pixels per request. */
export interface ImageSpec {
  count: number;
  width: number;
  height: number;
}

export interface Run {
  /** k6 scenario name: <variant>_<cell id>, letters digits _ - only. */
  scenario: string;
  /** VUs the run starts with: its concurrency, or the pre-allocated VUs of an arrival rate. */
  vus: number;
  cell: Cell;
  variant: string;
  /** REPEATS > 1: which repeat of the comparison (1-based) this run belongs to; absent with one. */
  repeat?: number;
  /** Offset from the start of the test (after setup). */
  startMs: number;
  durationMs: number;
  gracefulStopMs: number;
}

export interface Plan {
  cells: Cell[];
  runs: Run[];
  slices: number;
  sliceMs: number;
  /** Whole planned length of the test, excluding setup and teardown. */
  totalMs: number;
  /** REQUESTS mode: each run sends a fixed count and the window is measured, not planned. */
  requests: number | null;
  /** REPEATS: the whole comparison is run this many times in a row (lib/plan/matrix.ts); absent means 1. */
  repeats?: number;
}
