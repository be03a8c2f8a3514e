// Wires the pieces into an HTTP server: options, scheduler, routes, API key, readiness, crash.
import http from 'node:http';
import type { Socket } from 'node:net';
import { addAdminRoutes } from './api/admin';
import { addCacheResetRoute } from './api/cache';
import { HttpError, type RouteContext, Router, type ErrorStyle, errorBody, sendEmpty, sendJson, sendText } from './api/common';
import { MESSAGES_ROUTE, addMessagesRoutes } from './api/messages';
import { addOpenAiRoutes } from './api/openai';
import { addPoolingRoutes } from './api/pooling';
import { RESPONSES_ROUTE, addResponsesRoutes } from './api/responses';
import { addSglangRoutes } from './api/sglang';
import type { SimContext } from './context';
import { LoopWatch, nowMs } from './scheduler/clock';
import { BatchScheduler } from './scheduler/batch-scheduler';
import { IMITATIONS, type Imitation, authGuards } from './imitations';
import type { Faults } from './faults';
import { Recorder } from './ground-truth';
import { GpuMeter } from './gpu';
import { Metrics } from './metrics';
import { type SimOptions, type SimOptionsInput, applyFaults, resolveOptions } from './options';
import { Tokenizer } from './tokenizer';

/** In-process access to the ground truth (the same data as the /sim/ routes). */
export type GroundTruth = Pick<Recorder, 'requests' | 'steps' | 'summary' | 'since' | 'reset'>;

export interface SimHandle {
  /** http://HOST:PORT */
  url: string;
  port: number;
  options: SimOptions;
  /** Resolves when the startup delay is over (at once without one). */
  ready: Promise<void>;
  setFaults(f: Partial<Faults>): void;
  /** The "server dies mid-run" case: close the listener and reset every connection. */
  crash(): void;
  groundTruth(): GroundTruth;
  stop(): Promise<void>;
}

/** Which error body a path answers with, on this engine. */
function styleFor(path: string, p: Imitation): ErrorStyle {
  if (path === MESSAGES_ROUTE) return 'anthropic';
  if (path.startsWith('/v1/')) return p.errors.openai;
  if (path === '/generate') return p.errors.native;
  return 'detail';
}

const GENERATION_ROUTES = new Set(['/generate', '/v1/completions', '/v1/chat/completions', MESSAGES_ROUTE, RESPONSES_ROUTE]);

/** Routes that answer during startup and while the engine is hung (static or health routes). */
const ALWAYS_OPEN = new Set(['/health', '/health_generate', '/metrics', '/v1/models', '/version', '/get_model_info', '/get_server_info']);

function authorized(path: string, headers: http.IncomingHttpHeaders, o: SimOptions, p: Imitation): boolean {
  if (!o.apiKey || path === '/metrics') return true;
  // vLLM guards /v1/* only; SGLang guards everything but its health routes. The Messages route
  // takes the key as Anthropic's clients send it too.
  if (path === MESSAGES_ROUTE && headers['x-api-key'] === o.apiKey) return true;
  return !authGuards(p, path) || headers.authorization === `Bearer ${o.apiKey}`;
}

/** The API's routes for this engine, and what answers a request: the admin routes, the key, readiness, the API. */
function dispatch(ctx: SimContext, admin: Router): (rc: RouteContext) => void {
  const { o, imitation: profile, recorder, metrics } = ctx;
  const api = new Router();
  addOpenAiRoutes(api, ctx);
  addMessagesRoutes(api, ctx);
  addResponsesRoutes(api, ctx);
  addPoolingRoutes(api, ctx);
  if (profile.routes.native) addSglangRoutes(api, ctx);
  // vLLM: empty-bodied 200 (it would be 503 with a dead engine, which here means a crashed server).
  else api.add('GET', '/health', ({ res }) => sendEmpty(res, 200));
  // vLLM's cache_config_info labels, as vLLM writes a CacheConfig (Python's True/False/None).
  const cacheConfig = {
    block_size: String(o.blockSize),
    cache_dtype: o.kvCacheDtype,
    enable_prefix_caching: o.prefixCaching ? 'True' : 'False',
    gpu_memory_utilization: String(o.memFraction),
    num_gpu_blocks: String(Math.floor(o.kvCapacity / o.blockSize)),
    num_gpu_blocks_override: 'None',
  };
  api.add('GET', '/metrics', ({ res }) => sendText(res, 200, metrics.render(o.kvCapacity, cacheConfig), 'text/plain; version=0.0.4; charset=utf-8'));
  addCacheResetRoute(api, ctx);

  /** Refusals of generation requests are requests too: they go into the ground truth. */
  const reject = (path: string, rc: RouteContext, status: number, body: unknown, errorClass: string): void => {
    if (GENERATION_ROUTES.has(path) && api.has(path)) recorder.addRejected(path, rc.arrivalMs, rc.intakeLagMs, status, errorClass);
    sendJson(rc.res, status, body);
  };
  const onError =
    (path: string) =>
    (rc: RouteContext, e: unknown): void => {
      if (e instanceof HttpError) return reject(path, rc, e.status, errorBody(styleFor(path, profile), e.status, e.message, e.param), e.errorClass);
      console.error('sim: unexpected error', e);
      reject(path, rc, 500, errorBody(styleFor(path, profile), 500, `Internal error: ${(e as Error).message}`), 'internal');
    };

  return (rc: RouteContext): void => {
    const path = rc.url.pathname;
    if (path.startsWith('/sim/')) return void admin.handle(rc, onError(path));
    if (!authorized(path, rc.req.headers, o, profile))
      return reject(path, rc, 401, path === MESSAGES_ROUTE ? errorBody('anthropic', 401, 'invalid x-api-key') : { error: 'Unauthorized' }, 'unauthorized');
    if (!ctx.ready() && !ALWAYS_OPEN.has(path) && api.has(path)) {
      return reject(path, rc, 503, errorBody(styleFor(path, profile), 503, 'The server is starting up; the model is not ready yet.'), 'not_ready');
    }
    void api.handle(rc, onError(path));
  };
}

/**
 * Intake: a request's arrival is the moment its headers are read, before anything else is done
 * with it. Requests read in one poll are all timestamped first; then they are worked on (body,
 * parsing, tokenizing, scheduler) one per loop turn, so the loop polls again between two of them and
 * a burst's later arrivals are timestamped while earlier ones are still being processed.
 */
function intake(scheduler: BatchScheduler, loop: LoopWatch, handle: (rc: RouteContext) => void): (req: http.IncomingMessage, res: http.ServerResponse) => void {
  const queue: RouteContext[] = [];
  let head = 0;
  const drain = (): void => {
    // While a step's writes are under way, arrivals are timestamped but wait to be worked on.
    if (scheduler.sending) return void setImmediate(drain);
    const rc = queue[head++] as RouteContext;
    const from = nowMs();
    handle(rc); // its body and parsing complete in this turn's microtasks, before the next poll
    loop.busy(from);
    if (head < queue.length) setImmediate(drain);
    else queue.length = head = 0;
  };
  return (req, res) => {
    const { arrivalMs, intakeLagMs } = loop.arrival();
    if (head === queue.length) setImmediate(drain);
    queue.push({ req, res, url: new URL(req.url ?? '/', 'http://sim'), arrivalMs, intakeLagMs });
  };
}

/** Listens on `port` (0: any); resolves with the port it got. */
function listenOn(server: http.Server, host: string, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host, port, backlog: 4096 }, () => {
      server.off('error', reject);
      resolve((server.address() as { port: number }).port);
    });
  });
}

/** The server and the port it listens on. */
interface Listener {
  server: http.Server;
  port: number;
}

/**
 * When the server is ready: at once without a startup delay; else once it is over. vLLM binds its
 * port before loading the model but only listens once the engine is up: connections are refused
 * until then (the listener is closed and opened again).
 */
async function readiness(
  { server, port }: Listener,
  o: SimOptions,
  profile: Imitation,
  readyAt: number,
  crashed: () => boolean,
): Promise<{ ready: Promise<void> }> {
  // setTimeout counts whole milliseconds and may fire up to one early on this clock: wait until
  // ready() really holds, so `ready` never resolves while a request would still get the 503.
  const whenReady = (fn: () => void): void => {
    const left = readyAt - nowMs();
    if (left <= 0) fn();
    else setTimeout(() => whenReady(fn), Math.ceil(left));
  };
  if (o.startupDelayMs <= 0) return { ready: Promise.resolve() };
  if (profile.readiness !== 'listen-when-ready') return { ready: new Promise<void>((resolve) => whenReady(resolve)) };
  await new Promise<void>((r) => server.close(() => r()));
  const ready = new Promise<void>((resolve) => {
    whenReady(() => {
      if (!crashed())
        void listenOn(server, o.host, port).then(
          () => resolve(),
          () => resolve(),
        );
      else resolve();
    });
  });
  return { ready };
}

export async function startSim(partial: SimOptionsInput = {}): Promise<SimHandle> {
  const o = resolveOptions(partial);
  const profile = IMITATIONS[o.engine];
  const tokenizer = new Tokenizer(o.vocabSize);
  const loop = new LoopWatch();
  loop.start();
  const scheduler = new BatchScheduler(o, tokenizer, loop);
  const recorder = new Recorder(o.recordLimit, o.lagThresholdMs);
  const metrics = new Metrics(profile.metrics, o.model, scheduler);
  const gpu = new GpuMeter(o);
  scheduler.onStepStart = (load) => gpu.set(load);
  scheduler.onStepRecord = (r) => {
    recorder.addStep(r);
    metrics.onStep(r);
  };
  const startedAt = nowMs();
  const readyAt = startedAt + o.startupDelayMs / o.timeScale;
  let ordinal = 0;
  const ctx: SimContext = {
    o,
    imitation: profile,
    scheduler,
    tokenizer,
    recorder,
    metrics,
    gpu,
    ready: () => nowMs() >= readyAt,
    nextOrdinal: () => ordinal++,
  };

  const sockets = new Set<Socket>();
  let crashed = false;
  let crashTimer: NodeJS.Timeout | null = null;
  const server = http.createServer();

  const crash = (): void => {
    if (crashed) return;
    crashed = true;
    scheduler.stop();
    loop.stop();
    server.close();
    for (const s of sockets) s.resetAndDestroy();
  };
  const scheduleCrash = (): void => {
    if (crashTimer) clearTimeout(crashTimer);
    crashTimer = null;
    if (o.faults.crashAfterMs > 0) crashTimer = setTimeout(crash, Math.max(0, startedAt + o.faults.crashAfterMs / o.timeScale - nowMs()));
  };
  const setFaults = (update: Partial<Faults> | Record<string, unknown>): void => {
    o.faults = applyFaults(o.faults, update as Record<string, unknown>);
    scheduler.setStalled(o.faults.stall);
    scheduleCrash();
  };

  const admin = new Router();
  addAdminRoutes(admin, ctx, { setFaults, crash });
  const handle = dispatch(ctx, admin);
  server.on('request', intake(scheduler, loop, handle));
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.setNoDelay(true);
    s.on('close', () => sockets.delete(s));
  });
  server.keepAliveTimeout = 5000; // uvicorn's default
  server.requestTimeout = 0;

  const port = await listenOn(server, o.host, o.port);
  o.port = port;
  const { ready } = await readiness({ server, port }, o, profile, readyAt, () => crashed);
  if (o.faults.stall) scheduler.setStalled(true);
  scheduleCrash();

  const host = o.host.includes(':') ? `[${o.host}]` : o.host;
  return {
    url: `http://${host}:${port}`,
    port,
    options: o,
    ready,
    setFaults,
    crash,
    groundTruth: () => recorder,
    async stop() {
      if (crashTimer) clearTimeout(crashTimer);
      scheduler.stop();
      loop.stop();
      await new Promise<void>((resolve) => {
        if (!server.listening) return resolve();
        server.close(() => resolve());
        for (const s of sockets) s.destroy();
      });
      for (const s of sockets) s.destroy();
    },
  };
}
