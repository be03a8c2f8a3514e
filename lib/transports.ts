// What each transport can and cannot do, said once. Everything that differs between `http` and
// `sse` (what is measured, whether replies are streamed, what the request asks for, what the
// report says is missing) reads this table instead of comparing the transport's name.

export type TransportName = 'http' | 'sse';

export interface TransportSpec {
  name: TransportName;
  /** Timestamps each SSE event as it arrives: TTFT, ITL and TPOT are measured. */
  timesEvents: boolean;
  /** Always asks the server for a streamed reply. */
  streams: boolean;
  /** The Accept header of generation requests, when the transport needs one. */
  accept: string | null;
  /** What k6 needs to run it; null for stock k6. */
  needs: string | null;
  /** For setup's first line: what this test measures. */
  measures: string;
  /** What this transport cannot measure and why; null when nothing is missing. */
  notMeasured: string | null;
  /** Where its bundles are: dist/sse/ names the xk6-sse extension so that k6 provisions it. */
  bundleDir: string;
}

export const TRANSPORTS: Record<TransportName, TransportSpec> = {
  http: {
    name: 'http',
    timesEvents: false,
    streams: false,
    accept: null,
    needs: null,
    measures: 'TTFT/ITL not measured (http transport)',
    notMeasured:
      'TTFT, ITL and TPOT: the http transport receives each reply whole, so no token has a time of its own, ' +
      'the second (TTST) included (TRANSPORT=sse measures them)',
    bundleDir: 'dist',
  },
  sse: {
    name: 'sse',
    timesEvents: true,
    streams: true,
    accept: 'text/event-stream',
    needs: 'the xk6-sse extension',
    measures: 'TTFT, ITL, TPOT measured per event',
    notMeasured: null,
    bundleDir: 'dist/sse',
  },
};

export const TRANSPORT_NAMES = Object.keys(TRANSPORTS) as TransportName[];
