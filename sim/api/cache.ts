// The route that empties the prefix cache (SGLang /flush_cache; vLLM /reset_prefix_cache, present
// only in dev mode), from the engine's imitation: done when no request runs or waits, refused else.
import type { SimContext } from '../context';
import { type Router, sendText } from './common';

export function addCacheResetRoute(router: Router, ctx: SimContext): void {
  const r = ctx.imitation.cacheReset;
  if (r.devModeOnly && !ctx.o.devMode) return;
  for (const method of r.methods)
    router.add(method, r.path, ({ res }) => {
      const e = ctx.scheduler;
      const waiting = e.numWaiting;
      const running = e.numRunning;
      if (!e.resetPrefixCache()) {
        const busy = r.busy(waiting, running);
        return sendText(res, busy.status, busy.body, busy.json ? 'application/json' : 'text/plain; charset=utf-8');
      }
      e.counters.prefixResets++;
      sendText(res, r.done.status, r.done.text, 'text/plain; charset=utf-8');
    });
}
