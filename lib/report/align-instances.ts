// The instances of one split run on one clock. Each instance counts its per-slice figures (the
// throughput's time slices) from its own start on its own clock; instances on several hosts start
// at slightly different moments and their clocks disagree. Each measured its clock against the
// server host's before its load (lib/clock/offset.ts), so its start on the server's clock is its
// own start plus its offset; an instance that started whole slices after the lead instance (the
// one with the first segment) has its slices moved by as many before they are added up. What is
// less than half a slice stays, and is reported, as is every instance's offset.
import type { ClockReading } from '../clock/offset';
import type { InstanceClock, InstanceRow } from '../clock/instance';

export type { InstanceClock, InstanceRow } from '../clock/instance';
import type { SummaryMetrics } from './figures/run-figures';

export interface AlignInput {
  segment: string | null;
  instance: InstanceClock | null;
  runsStartMs: number | null;
  metrics: SummaryMetrics;
}

const SLICE_TAG = /([{,]slice:)(\d+)([,}])/;

/** Moves every per-slice key by `by` slices; a slice moved past the window is left out and named. */
export function shiftSlices(metrics: SummaryMetrics, by: number): { metrics: SummaryMetrics; dropped: string[] } {
  if (by === 0) return { metrics, dropped: [] };
  const out: SummaryMetrics = {};
  const dropped: string[] = [];
  for (const [k, v] of Object.entries(metrics)) {
    const m = SLICE_TAG.exec(k);
    if (!m) {
      out[k] = v;
      continue;
    }
    const to = k.replace(SLICE_TAG, `$1${Number(m[2]) + by}$3`);
    if (to in metrics) out[to] = v;
    else if ((v.values.count ?? 0) !== 0) dropped.push(k);
  }
  return { metrics: out, dropped };
}

const pick = <T>(c: ClockReading | null, f: (c: ClockReading) => T): T | null => (c === null ? null : f(c));

/** Each part's metrics on the lead instance's slices, one row per instance, and what could not be aligned. */
export function alignInstances(parts: AlignInput[], lead: number): { metrics: SummaryMetrics[]; rows: InstanceRow[]; warnings: string[] } {
  const onServer = (p: AlignInput) => (p.instance?.clock && p.runsStartMs != null ? p.runsStartMs + p.instance.clock.offsetMs : null);
  const ref = onServer(parts[lead]);
  const warnings: string[] = [];
  const metrics: SummaryMetrics[] = [];
  const rows = parts.map((p, i): InstanceRow => {
    const name = p.instance?.name ?? (p.segment ? `segment ${p.segment}` : `instance ${i + 1}`);
    const at = onServer(p);
    const after = at !== null && ref !== null ? at - ref : null;
    const sliceMs = p.instance?.sliceMs ?? 0;
    const by = after !== null && sliceMs > 0 ? Math.round(after / sliceMs) : 0;
    const s = shiftSlices(p.metrics, by);
    metrics.push(s.metrics);
    if (s.dropped.length)
      warnings.push(
        `${name} started ${(after! / 1000).toFixed(2)} s after the lead instance (server clock): its per-slice ` +
          `figures moved ${by} slice(s), and ${s.dropped.length} of them fell outside the window and are left out ` +
          `of the throughput intervals (its requests still count).`,
      );
    const hasSlices = Object.keys(p.metrics).some((k) => SLICE_TAG.test(k));
    if (after === null && i !== lead && hasSlices)
      warnings.push(
        `${name}: its slices are added as they are, not aligned to the lead instance's (${p.instance?.notMeasured ?? 'its clock or start was not recorded'}).`,
      );
    const c = p.instance?.clock ?? null;
    return {
      host: name,
      segment: p.segment,
      server: p.instance?.server ?? null,
      clock_offset_ms: pick(c, (x) => x.offsetMs),
      round_trip_ms: pick(c, (x) => x.roundTripMs),
      bound_ms: pick(c, (x) => x.boundMs),
      method: pick(c, (x) => x.method),
      start_after_lead_ms: after,
      shift_slices: by,
      not_measured: c === null ? (p.instance?.notMeasured ?? 'the instance did not measure its clock (a partial of an older release)') : null,
    };
  });
  return { metrics, rows, warnings };
}
