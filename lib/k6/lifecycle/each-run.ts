// Each run of a VU: what the VU holds for the run it is in, resolved on its first iteration
// there, because k6's execution fields are calls into the runtime, so per-request work reads none
// of them.
import exec from 'k6/execution';
import type { Window } from '../../metrics/samples';
import { startOffsetMs, steadyWindow, type Run } from '../../plan/matrix';
import type { ResolvedVariant, SetupData } from '../../variants';
import { BACKOFF, Reachability } from '../../vu/reachability';
import { runSlot } from '../../vu/slot';
import { AdapterPicker } from '../../workload/adapter-draw';
import { clearAdapterTag } from '../adapter-tag';
import type { Bench } from './vu0-config';

export interface VuRun {
  /** The k6 scenario's name. */
  name: string;
  run: Run;
  index: number;
  variant: ResolvedVariant;
  window: Window;
  /** This VU's place among the run's VUs. */
  slot: number;
  reach: Reachability;
  downNoted: boolean;
  /** Client clock before which this VU sends nothing in this run (START_SPREAD; the run's start for most). */
  firstSendMs: number;
  /** When this VU's last request ended, for the client gap; null after a pause or in open loop. */
  lastEndMs: number | null;
  /** ADAPTERS: this VU's draw of adapters in this run, the same for every variant; null without ADAPTERS. */
  adapters: AdapterPicker | null;
}

/** Per VU and variant: back-off while nothing listens, and whether the variant was declared down. */
const reach = new Map<string, Reachability>();

/** The VU's run for k6's current scenario: the one it had, or a new one on entering the next run. */
export function vuRun(b: Bench, data: SetupData, current: VuRun | null): VuRun {
  const name = exec.scenario.name;
  if (current !== null && current.name === name) return current;
  const entry = b.runs.get(name);
  if (!entry) throw new Error(`no run named ${name}`);
  const { cfg, plan } = b;
  const variant = b.variant(data, entry.run.variant);
  const start = exec.scenario.startTime;
  const steady = cfg.latencyWindow === 'steady' && plan.slices > 1 && plan.requests === null;
  const window: Window = {
    cellStartMs: start,
    sliceMs: plan.sliceMs,
    slices: plan.slices,
    trackLastEnd: plan.requests !== null,
    latencyFromMs: steady ? start + plan.sliceMs : -Infinity,
    itlBuckets: cfg.itlSamples === 'histogram',
  };
  let r = reach.get(variant.variant);
  if (!r) reach.set(variant.variant, (r = new Reachability({ ...BACKOFF, downAfterMs: cfg.variantDownAfterMs })));
  const slot = runSlot(exec.scenario.iterationInTest, exec.vu.idInTest, entry.run.vus);
  const next: VuRun = {
    name,
    run: entry.run,
    index: entry.index,
    variant,
    window,
    slot,
    firstSendMs: start + startOffsetMs(entry.run, cfg.startSpreadMs, slot),
    reach: r,
    downNoted: false,
    lastEndMs: null,
    adapters: cfg.adapters ? new AdapterPicker(cfg.adapters, cfg.seed, slot) : null,
  };
  exec.vu.metrics.tags.dialect = variant.dialect.name;
  // k6 resets a VU's tags when it enters another scenario: the adapter tag is set afresh by the run's first request.
  clearAdapterTag();
  // Instances of one run would otherwise write identical series to Prometheus.
  if (data.segment) exec.vu.metrics.tags.segment = data.segment;
  b.source.start(data, variant, entry.run, next.slot);
  b.add('runVus', 1);
  if (exec.scenario.iterationInTest === 0) {
    // A replay's requests are due at this instant plus their trace offsets: said, so a server's own record can be checked against it.
    const clock = entry.run.cell.load.kind === 'trace' ? ` (replay clock starts at ${start} ms since the epoch)` : '';
    console.log(
      `▶ run ${entry.index + 1}/${plan.runs.length}: ${entry.run.variant} ${entry.run.cell.id}` +
        `${entry.run.repeat ? ` (repeat ${entry.run.repeat})` : ''}${clock}`,
    );
    // Once per run: what Prometheus needs to price its tokens and give them per GPU (the dashboard's cost and frontier panels).
    const cost = cfg.variants.find((v) => v.variant === entry.run.variant)?.cost;
    if (cost?.gpuHourCost != null) b.add('gpuHourCost', cost.gpuHourCost);
    if (plan.requests === null && plan.slices > 1) {
      const w = steadyWindow(plan);
      b.add('steadyGpuHours', ((cost?.gpus ?? 1) * (w.toMs - w.fromMs)) / 3_600_000);
    }
  }
  return next;
}
