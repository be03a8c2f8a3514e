// Runs inside a real k6, bundled by bench/sse-path.ts: what the suite's own JavaScript costs per
// streamed event on k6's engine. A simulator stream, recorded once, is replayed through the sse
// transport by a stand-in for xk6-sse, so neither the network nor the extension is in the figure
// and the runs vary far less than a whole load test does (bench/sse-cost.ts measures that).
import { createDialect, type DialectName } from '../../lib/dialects/index';
import { METRICS } from '../../lib/metrics/catalog';
import { adder, createMetrics } from '../../lib/k6/metrics';
import { SENDERS } from '../../lib/k6/transport';
import { recordRequest, type AddSample, type Outcome, type SloLimits, type Window } from '../../lib/metrics/samples';
import { arrivals, restart } from '../../lib/reading';
import type { ResolvedVariant } from '../../lib/variants';

const events = JSON.parse(open(__ENV.EVENTS_FILE)) as string[];
const dialectName = __ENV.DIALECT as DialectName;
const requests = Number(__ENV.REQUESTS);
const add = adder(createMetrics(METRICS));

interface Client {
  on(event: string, fn: (e: { data: string }) => void): void;
  close(): void;
}

/** Replays the stream to the handlers, as xk6-sse hands events over, until the client closes. */
const replaySse = {
  open(_url: string, _params: unknown, setup: (client: Client) => void): { status: number; error: string } {
    let handler: ((e: { data: string }) => void) | null = null;
    let closed = false;
    setup({
      on: (event, fn) => {
        if (event === 'event') handler = fn;
      },
      close: () => {
        closed = true;
      },
    });
    const h = handler as ((e: { data: string }) => void) | null;
    if (h !== null) for (let i = 0; i < events.length && !closed; i++) h({ data: events[i] });
    return { status: 200, error: '' };
  },
};
(globalThis as Record<string, unknown>).__non_webpack_require__ = () => replaySse;

const dialect = createDialect(dialectName, { dialectVar: 'DIALECT', modelVar: 'MODEL', model: 'm' });
const variant = {
  variant: 'A',
  url: 'http://replay',
  dialect,
  model: 'm',
  promptKind: dialect.acceptsTokenIds ? 'tokens' : 'text',
  headers: {},
  params: { headers: {}, timeout: 60_000 },
  probeHeaders: {},
  metrics: null,
} as ResolvedVariant;
const send = SENDERS.sse();
const wire = dialect.build({
  prompt: dialect.acceptsTokenIds ? { kind: 'tokens', json: '[1000,1001,1002]', length: 3 } : { kind: 'text', text: 'hi' },
  maxTokens: 256,
  ignoreEos: true,
  temperature: 0,
  stream: true,
  model: 'm',
});
const window: Window = {
  cellStartMs: Date.now(),
  sliceMs: 60_000,
  slices: 5,
  trackLastEnd: false,
  latencyFromMs: -Infinity,
  itlBuckets: __ENV.ITL_SAMPLES === 'histogram',
};
const slo: SloLimits = { ttftP99Ms: null, ttftOf: 'first', itlP99Ms: null, e2eP99Ms: null };

/** What the stand-in itself costs: the same replay to a handler that only reads each event's data. */
function replayOnly(): void {
  let n = 0;
  replaySse.open('', null, (client) => client.on('event', (e) => (n += e.data.length)));
}

let last: Outcome | null = null;
function request(): void {
  const o = send(variant, wire, 60_000);
  if (!o.result.ok) throw new Error(`the replayed stream did not read as a success: ${o.result.error?.message}`);
  recordRequest(o, window, slo, add);
  last = o;
}

// The parts of a request, each alone: the reader over events already kept (as the transport keeps
// them, in batches), and the request's samples handed to k6 or to a function that drops them.
const kept = arrivals();
const BATCH = 64;
function keep(): void {
  restart(kept);
  for (let i = 0; i < events.length; i++) {
    kept.at[i % BATCH] = i;
    kept.data[i % BATCH] = events[i];
  }
}
function keepAndRead(): void {
  restart(kept);
  const reader = dialect.streamReader();
  let m = 0;
  for (let i = 0; i < events.length; i++) {
    kept.at[m] = i;
    kept.data[m++] = events[i];
    if (m === BATCH) {
      reader.readKept(kept, m);
      m = 0;
    }
  }
  reader.readKept(kept, m);
  if (!reader.finish().ok) throw new Error('the kept stream did not read as a success');
}
const drop = ((_metric: string, _value: number) => undefined) as AddSample;
drop.sink = () => ({ add: (_value: number) => undefined });
// The last request's outcome again: its event columns are the transport's buffers, untouched until its next request.
const samplesTo = (a: AddSample) => (): void => recordRequest(last as Outcome, window, slo, a);

export const options = { vus: 1, iterations: 1, summaryTrendStats: ['avg'] };

export default function (): void {
  const time = (f: () => void): number => {
    const t0 = Date.now();
    for (let i = 0; i < requests; i++) f();
    return ((Date.now() - t0) * 1000) / (requests * events.length);
  };
  time(request); // warm-up: the dialect's template cache, the engine's inline caches
  const rounds: Array<Record<string, number>> = [];
  for (let r = 0; r < 3; r++) {
    rounds.push({
      replay: time(replayOnly),
      request: time(request),
      keep: time(keep),
      read: time(keepAndRead),
      samplesJs: time(samplesTo(drop)),
      samples: time(samplesTo(add)),
    });
  }
  console.log(`RESULT ${JSON.stringify({ events: events.length, rounds })}`);
}
