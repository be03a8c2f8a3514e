// The simulated GPUs: a power model that follows what a step does, an energy meter that integrates
// it exactly, and exporter pages that the client's profiles (lib/server-metrics/gpu.ts) read back
// to the meter's own joules, power and GPU count.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { GpuMeter, gpuFactor, stepWatts } from '../../sim/gpu';
import { GPU_PROFILES, readGpu, recognise, type GpuReading } from '../../lib/server-metrics/gpu';
import { parsePromText } from '../../lib/server-metrics/promtext';
import { json, request, sim } from './helpers';

const O = { gpus: 2, gpuIdleWatts: 70, gpuMaxWatts: 700 };

test('power follows the step: idle, decode rising with the batch, prefill near full, a big prefill at full', () => {
  const idle = O.gpuIdleWatts;
  const d1 = stepWatts(O, { prefillTokens: 0, decodingSeqs: 1 });
  const d64 = stepWatts(O, { prefillTokens: 0, decodingSeqs: 64 });
  const p = stepWatts(O, { prefillTokens: 256, decodingSeqs: 0 });
  assert.equal(stepWatts(O, { prefillTokens: 0, decodingSeqs: 0 }), idle);
  assert.ok(idle < d1 && d1 < d64 && d64 < p, `${idle} < ${d1} < ${d64} < ${p}`);
  assert.equal(stepWatts(O, { prefillTokens: 4096, decodingSeqs: 8 }), O.gpuMaxWatts);
  // A mixed step draws what its heavier part does.
  assert.equal(stepWatts(O, { prefillTokens: 256, decodingSeqs: 1 }), p);
});

test('the meter integrates the power over the clock exactly, per GPU and in all', () => {
  const m = new GpuMeter(O, 0);
  m.set({ prefillTokens: 2048, decodingSeqs: 0 }, 1000); // idle 0..1 s
  m.set({ prefillTokens: 0, decodingSeqs: 16 }, 1500); // full 1..1.5 s
  m.set(null, 3500); // decode of 16 for 2 s, then idle
  const decode = 70 + 630 * (0.3 + 0.2);
  const one = 70 * 1 + 700 * 0.5 + decode * 2 + 70 * 0.5;
  assert.ok(Math.abs((m.joules(4000, 0) as number) - one) < 1e-9, `${m.joules(4000, 0)} vs ${one}`);
  assert.ok(Math.abs((m.totalJoules(4000) as number) - one * (gpuFactor(0) + gpuFactor(1))) < 1e-9);
  assert.ok(Math.abs((m.joules(2500, 1) as number) - (70 + 350 + decode) * gpuFactor(1)) < 1e-9, 'mid-segment');
  assert.equal(m.joules(-1, 0), null, 'before the record');
  assert.equal(m.utilization(2000), 100);
  assert.equal(m.utilization(4500), 0);
  assert.ok(Math.abs(m.watts(3000, 0) - decode) < 1e-9, 'the gauge: mean power over the last second');
});

test('the exporter pages, read by the client profiles, give the meter’s joules, power and GPUs', async () => {
  const s = await sim({ gpus: 3 });
  const body = { model: 'm', prompt: 'a b c d e f g h', max_tokens: 16, ignore_eos: true };
  await Promise.all([0, 1].map(() => request(s.url, '/v1/completions', { body })));
  const dcgm = parsePromText((await request(s.url, '/sim/dcgm/metrics')).body);
  const smi = parsePromText((await request(s.url, '/sim/nvidia-smi/metrics')).body);
  assert.equal(recognise(dcgm)?.name, 'dcgm');
  assert.equal(recognise(smi)?.name, 'nvidia_smi');
  const d = readGpu(GPU_PROFILES.dcgm, dcgm, 0) as GpuReading;
  const n = readGpu(GPU_PROFILES.nvidia_smi, smi, 0) as GpuReading;
  assert.equal(d.gpus, 3);
  assert.equal(n.gpus, 3);
  assert.equal(n.energyJ, null, 'nvidia_gpu_exporter has no energy counter');
  const truth = json<{ gpus: number; scrapes: Array<{ page: string; joules: number }> }>(await request(s.url, '/sim/gpu'));
  assert.equal(truth.gpus, 3);
  const served = truth.scrapes.find((x) => x.page === 'dcgm') as { joules: number };
  // The counter is whole millijoules per GPU.
  assert.ok(Math.abs((d.energyJ as number) - served.joules) < 0.002, `${d.energyJ} J vs ${served.joules} J`);
  assert.ok(d.energyJ! > 0 && d.powerW > 3 * 70, `${d.powerW} W after a burst of work`);
  assert.ok((d.memoryUsedMiB as number) >= 16_384 - 3, `${d.memoryUsedMiB} MiB`);
});
