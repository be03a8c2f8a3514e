// The messages exchanged between the main thread (orchestrator, metrics engine, network I/O) and
// the VU workers. Kept in one place so both sides agree on shapes; type-only apart from the SIGNAL indices.
//
// Directions:
//   main -> worker commands: worker.postMessage(WorkerCommand), handled by the worker's event loop
//     while it is idle (between iterations).
//   worker -> main events: parentPort.postMessage(WorkerEvent).
//   main -> worker replies to blocking calls: the reply MessagePort (RpcReply), read synchronously
//     by the blocked worker with receiveMessageOnPort after an Atomics.notify on the shared buffer.

import type { MessagePort as WorkerMessagePort } from 'node:worker_threads';

export type TagSet = Record<string, string>;

export type MetricType = 'counter' | 'gauge' | 'rate' | 'trend';

/** One metric sample. `time` is ms since the epoch. */
export interface Sample {
  metric: string;
  value: number;
  time: number;
  tags: TagSet;
}

/** An error crossing the thread boundary. `kind` decides how the runner treats it. */
export interface SerializedError {
  /** exception: the script threw; interrupt: the VU was stopped by the runner; abort: test.abort(). */
  kind: 'exception' | 'interrupt' | 'abort';
  name: string;
  message: string;
  /** Script stack in k6's "Error: msg\n\tat fn (file:///path:line:col)" shape. */
  stack: string;
}

/** Indices into the per-VU Int32Array over a SharedArrayBuffer. */
export const SIGNAL = {
  /** Bumped by main on every reply (and on interrupt); the blocked worker waits on it. */
  WAKE: 0,
  /** 1 while the current activation of the VU is interrupted. */
  INTERRUPT: 1,
  SIZE: 2,
} as const;

export interface WorkerBoot {
  scriptPath: string;
  source: string;
  env: Record<string, string>;
  extensions: { sse: boolean };
  signal: SharedArrayBuffer;
  replyPort: WorkerMessagePort;
}

/** Options that change k6/http's defaults (userAgent, discardResponseBodies, maxRedirects). */
export interface HttpDefaults {
  userAgent: string;
  discardResponseBodies: boolean;
  maxRedirects: number;
}

/** What a VU needs to know about the scenario it runs an iteration for. */
export interface Activation {
  /** Changes whenever the VU is (re)activated for a scenario; tag edits live for one activation. */
  activationId: number;
  scenario: string;
  executor: string;
  exec: string;
  env: Record<string, string>;
  tags: TagSet;
  /** Scenario start, ms since the epoch. */
  startTime: number;
  iterationInInstance: number;
  iterationInTest: number;
  /** Test options as k6's execution.test.options returns them (JSON). */
  optionsJSON: string;
}

export type LifecycleName = 'setup' | 'teardown' | 'handleSummary';

export type WorkerCommand =
  | { type: 'init'; vuId: number; vuIdGlobal: number; withOptions: boolean; http: HttpDefaults }
  | { type: 'iterate'; activation: Activation; setupData?: string | null }
  | { type: 'lifecycle'; name: LifecycleName; arg: string | null; tags: TagSet; optionsJSON: string };

/** handleSummary's result, one entry per key of the returned object. */
export type SummaryOutput = Record<string, string | Uint8Array>;

export type WorkerEvent =
  | { type: 'rpc'; id: number; method: RpcMethod; args: unknown }
  | { type: 'sse.close'; id: number }
  | { type: 'samples'; samples: Sample[] }
  | { type: 'log'; level: LogLevel; msg: string; fields?: Record<string, string> }
  | { type: 'abort'; reason: string }
  | { type: 'testFailed' }
  | { type: 'initDone'; exports: string[]; optionsJSON?: string }
  | { type: 'initError'; error: SerializedError }
  | { type: 'iterDone'; error?: SerializedError; startMs: number; endMs: number; tags: TagSet }
  | {
      type: 'lifecycleDone';
      name: LifecycleName;
      /** setup()'s return value as JSON; null when it returned undefined. */
      json?: string | null;
      summary?: SummaryOutput;
      /** The function threw. */
      error?: SerializedError;
      /** handleSummary() returned something k6 cannot write. */
      resultError?: string;
    };

export type LogLevel = 'debug' | 'info' | 'warning' | 'error';

// ---- blocking calls -------------------------------------------------------------------------

export interface HttpRequestArgs {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: string | Uint8Array | null;
  timeoutMs: number;
  responseType: 'text' | 'binary' | 'none';
  /** Max redirects to follow; `redirectsExplicit` false means k6's default (10) with a warning. */
  redirects: number;
  redirectsExplicit: boolean;
  /** Tags of the VU at the time of the call merged with the request's `tags` param. */
  tags: TagSet;
  /** null: no response callback (no http_req_failed, no expected_response tag). */
  expected: ExpectedStatuses | null;
}

export interface ExpectedStatuses {
  exact: number[];
  ranges: Array<[number, number]>;
}

export interface HttpTimings {
  duration: number;
  blocked: number;
  looking_up: number;
  connecting: number;
  tls_handshaking: number;
  sending: number;
  waiting: number;
  receiving: number;
}

export interface HttpResponseData {
  url: string;
  status: number;
  status_text: string;
  proto: string;
  headers: Record<string, string>;
  /** text: string; binary: bytes; none, no body, or error before the body: null. */
  body: string | Uint8Array | null;
  timings: HttpTimings;
  error: string;
  error_code: number;
  remote_ip: string;
  remote_port: number;
  request: { method: string; url: string; headers: Record<string, string[]>; body: string };
}

export interface InstanceInfo {
  currentTestRunDuration: number;
  iterationsCompleted: number;
  iterationsInterrupted: number;
  vusActive: number;
  vusInitialized: number;
}

export interface SseOpenArgs {
  url: string;
  method: string;
  body: string;
  headers: Record<string, string>;
  tags: TagSet;
  /** 0 = no timeout (xk6-sse default). */
  timeoutMs: number;
}

export interface RpcSignatures {
  'metric.register': { args: { name: string; type: MetricType; isTime: boolean }; result: { error?: string } };
  /** `compute: true` makes the caller the one VU that runs the SharedArray callback. */
  'sharedArray.get': { args: { name: string }; result: { data?: string[]; compute?: true } };
  'sharedArray.set': { args: { name: string; data: string[] | null }; result: Record<string, never> };
  'http.request': { args: HttpRequestArgs; result: { response: HttpResponseData } };
  'execution.instance': { args: Record<string, never>; result: InstanceInfo };
  'execution.progress': { args: { scenario: string }; result: { progress: number } };
}

export type RpcMethod = keyof RpcSignatures | 'sse.open';

/** Messages main sends back for one `sse.open` call, in order: response|openError, then events. */
export type SseMessage =
  | { kind: 'response'; status: number; headers: Record<string, string> }
  | { kind: 'openError'; error: string }
  | { kind: 'event'; event: { id: string; name: string; data: string; comment: string } }
  | { kind: 'error'; error: string }
  | { kind: 'end' };

export type RpcReply = { id: number; result: unknown } | ({ id: number } & SseMessage);
