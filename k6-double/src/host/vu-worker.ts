// Main-thread handle of one VU worker thread: sends commands, routes the worker's events, answers
// its blocking calls, and interrupts it. A worker runs one command at a time and answers each with
// exactly one "done" event, so pending commands are a FIFO of promises.

import { MessageChannel, Worker, type MessagePort } from 'node:worker_threads';
import {
  SIGNAL,
  type Activation,
  type HttpDefaults,
  type LifecycleName,
  type RpcReply,
  type TagSet,
  type WorkerBoot,
  type WorkerCommand,
  type WorkerEvent,
} from '../shared/protocol';

export type DoneEvent = Extract<WorkerEvent, { type: 'initDone' | 'initError' | 'iterDone' | 'lifecycleDone' }>;
export type ServiceEvent = Exclude<WorkerEvent, DoneEvent>;

export interface WorkerSpec {
  entry: string;
  boot: Omit<WorkerBoot, 'signal' | 'replyPort'>;
  /** Receives every event that is not the answer to a command (RPCs, samples, logs...). */
  onEvent: (vu: VUWorker, event: ServiceEvent) => void;
}

/**
 * How long an interrupted VU may keep running before its thread is terminated (CPU-bound JS).
 * Generous: on a loaded machine a healthy VU can take a while to notice, and terminating it
 * resets its state.
 */
const HARD_KILL_MS = 5000;

export class VUWorker {
  readonly signal: Int32Array;
  /** Samples produced by this VU after this time (ms since the epoch) are dropped, like k6's PushIfNotDone. */
  acceptSamplesUntil = Infinity;
  /** Bytes moved by this VU's HTTP requests since the last data_sent/data_received flush. */
  bytesSent = 0;
  bytesReceived = 0;
  /** Whether this VU already holds the setup data (k6 hands it to each VU once). */
  hasSetupData = false;
  /** Cleanup hooks of in-flight requests, run when the VU is interrupted. */
  readonly inflight = new Set<() => void>();

  private readonly worker: Worker;
  private readonly replyPort: MessagePort;
  private readonly pending: Array<{ resolve: (e: DoneEvent) => void; reject: (e: Error) => void }> = [];
  private exited = false;
  private killTimer: NodeJS.Timeout | undefined;

  constructor(
    readonly id: number,
    private readonly spec: WorkerSpec,
  ) {
    const sab = new SharedArrayBuffer(SIGNAL.SIZE * Int32Array.BYTES_PER_ELEMENT);
    this.signal = new Int32Array(sab);
    const { port1, port2 } = new MessageChannel();
    this.replyPort = port1;
    const boot: WorkerBoot = { ...spec.boot, signal: sab, replyPort: port2 };
    // execArgv: [] keeps the parent's `--import tsx` out of the worker (see host/compile.ts).
    this.worker = new Worker(spec.entry, { workerData: boot, transferList: [port2], execArgv: [], stdout: false });
    this.worker.on('message', (e: WorkerEvent) => this.route(e));
    this.worker.on('error', (err) => this.fail(err));
    this.worker.on('exit', (code) => {
      this.exited = true;
      this.fail(new Error(`k6 double: VU ${id} worker exited with code ${code}`));
    });
  }

  init(vuIdGlobal: number, withOptions: boolean, http: HttpDefaults): Promise<DoneEvent> {
    return this.command({ type: 'init', vuId: this.id, vuIdGlobal, withOptions, http });
  }

  iterate(activation: Activation, setupData: string | null | undefined): Promise<DoneEvent> {
    Atomics.store(this.signal, SIGNAL.INTERRUPT, 0);
    this.acceptSamplesUntil = Infinity;
    return this.command({ type: 'iterate', activation, setupData });
  }

  lifecycle(name: LifecycleName, arg: string | null, tags: TagSet, optionsJSON: string): Promise<DoneEvent> {
    Atomics.store(this.signal, SIGNAL.INTERRUPT, 0);
    this.acceptSamplesUntil = Infinity;
    return this.command({ type: 'lifecycle', name, arg, tags, optionsJSON });
  }

  /** Answers a blocking call; the worker wakes up and reads it from its reply port. */
  reply(message: RpcReply): void {
    if (this.exited) return;
    this.replyPort.postMessage(message);
    this.wake();
  }

  /**
   * Stops the running iteration: k6 interrupts the JS runtime when the VU's context ends. Blocking
   * calls see the flag at once; JS that never calls into k6 is stopped by terminating the thread.
   */
  interrupt(): void {
    this.acceptSamplesUntil = Math.min(this.acceptSamplesUntil, Date.now());
    Atomics.store(this.signal, SIGNAL.INTERRUPT, 1);
    this.wake();
    for (const cancel of [...this.inflight]) cancel();
    if (this.pending.length > 0 && !this.killTimer) {
      this.killTimer = setTimeout(() => {
        // Pending commands then fail through the 'exit' handler.
        if (this.pending.length > 0) void this.worker.terminate();
      }, HARD_KILL_MS);
    }
  }

  get alive(): boolean {
    return !this.exited;
  }

  async terminate(): Promise<void> {
    clearTimeout(this.killTimer);
    for (const cancel of [...this.inflight]) cancel();
    this.replyPort.close();
    if (!this.exited) await this.worker.terminate();
  }

  private wake(): void {
    Atomics.add(this.signal, SIGNAL.WAKE, 1);
    Atomics.notify(this.signal, SIGNAL.WAKE);
  }

  private command(cmd: WorkerCommand): Promise<DoneEvent> {
    if (this.exited) return Promise.reject(new Error(`k6 double: VU ${this.id} worker is gone`));
    return new Promise((resolve, reject) => {
      this.pending.push({ resolve, reject });
      this.worker.postMessage(cmd);
    });
  }

  private route(e: WorkerEvent): void {
    if (e.type === 'initDone' || e.type === 'initError' || e.type === 'iterDone' || e.type === 'lifecycleDone') {
      clearTimeout(this.killTimer);
      this.killTimer = undefined;
      this.pending.shift()?.resolve(e);
      return;
    }
    this.spec.onEvent(this, e);
  }

  private fail(err: Error): void {
    clearTimeout(this.killTimer);
    for (const p of this.pending.splice(0)) p.reject(err);
  }
}
