// What an instance of a split run says of its clock (its setup data), and what the merged report
// says of each instance (summary.json's `instances`); lib/report/align-instances.ts turns one into the other.
import type { ClockReading } from './offset';

/** What an instance says of itself in its setup data (lib/k6/clock.ts). */
export interface InstanceClock {
  /** INSTANCE_NAME, or the host name, or the segment. */
  name: string;
  /** The server host the clock was measured against (host:port). */
  server: string;
  clock: ClockReading | null;
  /** Why the clock was not measured; null when it was. */
  notMeasured: string | null;
  sliceMs: number;
}

/** One instance as the merged report shows it (summary.json's `instances`). */
export interface InstanceRow {
  host: string;
  segment: string | null;
  server: string | null;
  clock_offset_ms: number | null;
  round_trip_ms: number | null;
  /** How far the true offset may be from the measured one. */
  bound_ms: number | null;
  method: string | null;
  /** Its start after the lead instance's, on the server's clock; null when not known. */
  start_after_lead_ms: number | null;
  /** Slices its per-slice figures were moved by (0: none). */
  shift_slices: number;
  not_measured: string | null;
}
