// GPU telemetry: the exporter profiles read from their pages (units, sums over GPUs), and the GPU
// probe's window maths with a fake exporter whose power is a known function of a simulated clock.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { HttpPort, HttpReply } from '../../../lib/http-port';
import { gpuWindow, GPU_PROFILES, probeGpu, readGpu, recognise, type GpuReading } from '../../../lib/server-metrics/gpu';
import { parsePromText } from '../../../lib/server-metrics/promtext';

const dcgm = (gpus: Array<{ w: number; mj: number; util: number; mib: number }>) =>
  [
    '# TYPE DCGM_FI_DEV_POWER_USAGE gauge',
    ...gpus.map((g, i) => `DCGM_FI_DEV_POWER_USAGE{gpu="${i}",UUID="GPU-${i}",modelName="NVIDIA H100 80GB HBM3",Hostname="h"} ${g.w}`),
    '# TYPE DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION counter',
    ...gpus.map((g, i) => `DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION{gpu="${i}",UUID="GPU-${i}",modelName="NVIDIA H100 80GB HBM3",Hostname="h"} ${g.mj}`),
    ...gpus.map((g, i) => `DCGM_FI_DEV_GPU_UTIL{gpu="${i}",UUID="GPU-${i}"} ${g.util}`),
    ...gpus.map((g, i) => `DCGM_FI_DEV_FB_USED{gpu="${i}",UUID="GPU-${i}"} ${g.mib}`),
    '',
  ].join('\n');
const smi = (gpus: Array<{ w: number; ratio: number; bytes: number }>) =>
  [
    ...gpus.map((g, i) => `nvidia_smi_power_draw_watts{uuid="u${i}"} ${g.w}`),
    ...gpus.map((g, i) => `nvidia_smi_utilization_gpu_ratio{uuid="u${i}"} ${g.ratio}`),
    ...gpus.map((g, i) => `nvidia_smi_memory_used_bytes{uuid="u${i}"} ${g.bytes}`),
    '',
  ].join('\n');

test('each exporter is recognised from its page and read in W, J, % and MiB, summed over its GPUs', () => {
  const d = parsePromText(
    dcgm([
      { w: 300, mj: 5_000_000, util: 80, mib: 40_000 },
      { w: 250, mj: 4_000_000, util: 60, mib: 30_000 },
    ]),
  );
  assert.equal(recognise(d)?.name, 'dcgm');
  assert.deepEqual(readGpu(GPU_PROFILES.dcgm, d, 7), { atMs: 7, gpus: 2, powerW: 550, energyJ: 9000, utilizationPct: 70, memoryUsedMiB: 70_000 });
  const s = parsePromText(smi([{ w: 200.5, ratio: 0.5, bytes: 2 * 1_048_576 }]));
  assert.equal(recognise(s)?.name, 'nvidia_smi');
  assert.deepEqual(readGpu(GPU_PROFILES.nvidia_smi, s, 1), { atMs: 1, gpus: 1, powerW: 200.5, energyJ: null, utilizationPct: 50, memoryUsedMiB: 2 });
  assert.equal(recognise(parsePromText('vllm:generation_tokens_total 5\n')), null, 'a server page is no exporter');
  // A GPU without its counter: no energy from the counter (power × time instead), never a partial sum.
  const partial = parsePromText(dcgm([{ w: 1, mj: 1, util: 1, mib: 1 }]) + 'DCGM_FI_DEV_POWER_USAGE{gpu="9",UUID="GPU-9"} 5\n');
  assert.equal((readGpu(GPU_PROFILES.dcgm, partial, 0) as GpuReading).energyJ, null);
});

/** A fake exporter on a simulated clock: 2 GPUs whose power is P(t) = 200 + 0.05 t W each (t ms), and the exact energy counter. */
function exporter(kind: 'dcgm' | 'nvidia_smi', opts: { counterResetAtMs?: number; lateMs?: number; down?: boolean } = {}): HttpPort & { clock: number } {
  const P = (t: number) => 200 + 0.05 * t;
  const E = (t: number) => (200 * t + 0.025 * t * t) / 1000; // ∫0..t P dt, J
  const p = {
    clock: 0,
    now: () => p.clock,
    sleep: (ms: number) => void (p.clock += ms + (opts.lateMs ?? 0)),
    get: (): HttpReply => {
      p.clock += 3; // a scrape takes 3 ms; the page is read at its end
      if (opts.down) return { status: 0, body: '', contentType: '', error: 'connection refused', errorCode: 1212 };
      const t = p.clock;
      const mj = (E(t) - (opts.counterResetAtMs !== undefined && t > opts.counterResetAtMs ? E(opts.counterResetAtMs) : 0)) * 1000;
      const gpus = [0, 1];
      const body =
        kind === 'dcgm'
          ? dcgm(gpus.map(() => ({ w: P(t), mj, util: 50, mib: 1000 })))
          : smi(gpus.map(() => ({ w: P(t), ratio: 0.5, bytes: 1000 * 1_048_576 })));
      return { status: 200, body, contentType: 'text/plain', error: '', errorCode: 0 };
    },
    post: () => {
      throw new Error('read only');
    },
  };
  return p;
}

for (const kind of ['dcgm', 'nvidia_smi'] as const) {
  test(`${kind}: each slice's joules are its mean power × its length, summed over the GPUs`, () => {
    const io = exporter(kind);
    const out = probeGpu(io, 'http://gpu:9400/metrics', 0, 3, 4000);
    assert.ok('window' in out, JSON.stringify(out));
    const w = out.window;
    assert.equal(w.source, kind === 'dcgm' ? 'energy-counter' : 'power-integral');
    assert.equal(w.gpus, 2);
    assert.equal(w.sliceJoules.length, 3);
    // Linear power: the mean over a slice is the power at its middle (the scrapes run a few ms late).
    w.sliceJoules.forEach((j, k) => {
      const exact = 2 * (200 + 0.05 * (k * 4000 + 2000)) * 4;
      assert.ok(Math.abs(j / exact - 1) < 0.002, `slice ${k}: ${j} J vs ${exact} J`);
    });
    assert.ok(Math.abs(w.meanPowerW - 2 * (200 + 0.05 * 6000)) < 2, `${w.meanPowerW} W`);
    assert.equal(w.meanUtilizationPct, 50);
    assert.equal(w.meanMemoryUsedMiB, 2000);
    assert.ok(io.clock >= 12_000, 'scraped to the end of the window');
  });
}

test('a counter that went back (an exporter restart) falls back to power × time', () => {
  const out = probeGpu(exporter('dcgm', { counterResetAtMs: 7000 }), 'http://gpu/metrics', 0, 3, 4000);
  assert.ok('window' in out, JSON.stringify(out));
  assert.equal(out.window.source, 'power-integral');
  assert.ok(Math.abs(out.window.sliceJoules[1] / (2 * (200 + 0.05 * 6000) * 4) - 1) < 0.002);
});

test('why there are no GPU figures: exporter down, a page of no known exporter, a probe that fell behind', () => {
  assert.equal((probeGpu(exporter('dcgm', { down: true }), 'u', 0, 2, 2000) as { notMeasured: string }).notMeasured, 'unreachable');
  const other = exporter('dcgm');
  other.get = () => ({ status: 200, body: 'vllm:num_requests_running 1\n', contentType: '', error: '', errorCode: 0 });
  assert.equal((probeGpu(other, 'u', 0, 2, 2000) as { notMeasured: string }).notMeasured, 'unknown_exporter');
  assert.equal((probeGpu(exporter('dcgm', { lateMs: 900 }), 'u', 0, 2, 2000) as { notMeasured: string }).notMeasured, 'short_window');
  const r = (atMs: number, gpus: number): GpuReading => ({ atMs, gpus, powerW: 1, energyJ: null, utilizationPct: null, memoryUsedMiB: null });
  assert.match(gpuWindow(GPU_PROFILES.dcgm, [r(0, 1), r(1000, 2)], [0, 1], 1000) as string, /number of GPUs .* changed/);
});
