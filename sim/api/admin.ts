// The simulator's own routes under /sim/: ground truth and runtime faults. They bypass the API key,
// readiness and fault injection, and are never recorded as requests.
import type { SimContext } from '../context';
import { nowMs } from '../scheduler/clock';
import { dcgmPage, nvidiaSmiPage } from '../gpu';
import { OptionError } from '../option-spec';
import { type Json, type Router, readJsonObject, sendJson, sendText } from './common';

export interface AdminActions {
  setFaults(update: Json): void;
  crash(): void;
}

function num(url: URL, key: string): number | undefined {
  const v = url.searchParams.get(key);
  if (v === null || v === '') return undefined;
  const n = Number(v);
  return Number.isFinite(n) ? n : undefined;
}

export function addAdminRoutes(router: Router, ctx: SimContext, actions: AdminActions): void {
  const gpuPage = (res: Parameters<typeof sendText>[0], page: 'dcgm' | 'nvidia-smi'): void => {
    const x = nowMs();
    const kv = ctx.scheduler.kvUsedTokens;
    const body = page === 'dcgm' ? dcgmPage(ctx.gpu, ctx.o.seed, kv, x) : nvidiaSmiPage(ctx.gpu, ctx.o.seed, kv, x);
    ctx.gpu.noteScrape(page, x);
    sendText(res, 200, body, 'text/plain; version=0.0.4; charset=utf-8');
  };
  router
    .add('GET', '/sim/requests', ({ res, url }) => {
      const since = num(url, 'since');
      sendJson(res, 200, since === undefined ? ctx.recorder.requests : ctx.recorder.since(since));
    })
    .add('GET', '/sim/summary', ({ res, url }) => sendJson(res, 200, ctx.recorder.summary(num(url, 'from'), num(url, 'to'))))
    // Its clock (epoch ms, to the microsecond): what a load generator on another host measures its clock offset against (lib/clock/offset.ts).
    .add('GET', '/sim/clock', ({ res }) => sendJson(res, 200, { epoch_ms: performance.timeOrigin + performance.now() }))
    .add('POST', '/sim/reset', ({ res }) => {
      ctx.recorder.reset();
      sendJson(res, 200, { ok: true });
    })
    // The GPU exporters' pages (no key, as the exporters ask none) and the meter's ground truth:
    // all GPUs' exact joules at the times asked (?at=ms,ms…, epoch ms) and the pages served.
    .add('GET', '/sim/dcgm/metrics', ({ res }) => gpuPage(res, 'dcgm'))
    .add('GET', '/sim/nvidia-smi/metrics', ({ res }) => gpuPage(res, 'nvidia-smi'))
    .add('GET', '/sim/gpu', ({ res, url }) => {
      const at = (url.searchParams.get('at') ?? '')
        .split(',')
        .filter((x) => x !== '')
        .map(Number);
      const now = nowMs();
      sendJson(res, 200, {
        gpus: ctx.o.gpus,
        nowMs: now,
        joulesNow: ctx.gpu.totalJoules(now),
        at: at.map((t) => ({ atMs: t, joules: Number.isFinite(t) && t <= now ? ctx.gpu.totalJoules(t) : null })),
        scrapes: ctx.gpu.scrapes,
      });
    })
    // The prefix cache's own record: prompt tokens looked up and found, and resets (lifetime).
    .add('GET', '/sim/prefix-cache', ({ res }) => {
      const c = ctx.scheduler.counters;
      sendJson(res, 200, { queryTokens: c.prefixQueries, hitTokens: c.prefixHits, resets: c.prefixResets });
    })
    .add('GET', '/sim/faults', ({ res }) => sendJson(res, 200, ctx.o.faults))
    .add('POST', '/sim/faults', async ({ req, res }) => {
      let body: Json;
      try {
        body = await readJsonObject(req);
      } catch (e) {
        return sendJson(res, 400, { error: (e as Error).message });
      }
      const { crash, ...update } = body;
      try {
        actions.setFaults(update);
      } catch (e) {
        if (e instanceof OptionError) return sendJson(res, 400, { error: e.message });
        throw e;
      }
      sendJson(res, 200, ctx.o.faults);
      // Crash after the reply has gone out, so the caller learns the action was taken.
      if (crash === true) res.on('finish', () => setImmediate(() => actions.crash()));
    });
}
