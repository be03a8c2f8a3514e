// Sync-over-async: k6 APIs are synchronous (http.get returns the response), but the I/O happens
// on the main thread. A VU posts a request on parentPort, then blocks in Atomics.wait on its
// shared Int32Array until main bumps the WAKE slot; the reply is then read synchronously with
// receiveMessageOnPort from a dedicated port that has no listener. Main also bumps WAKE when it
// interrupts the VU, so every blocking call (including sleep) notices an interruption at once.
// Nothing here spins: the thread sleeps in Atomics.wait between wake-ups.

import { receiveMessageOnPort, type MessagePort } from 'node:worker_threads';
import { SIGNAL, type RpcMethod, type RpcReply, type RpcSignatures, type WorkerEvent } from '../shared/protocol';

/**
 * Thrown into the script when the runner interrupts the VU (gracefulStop expired, test aborted)
 * or the script called test.abort(). k6 stops the JS runtime in that case; a script that catches
 * this is stopped again at its next k6 call, and the iteration is reported as interrupted anyway.
 */
export class Interrupted extends Error {
  constructor(readonly reason: 'interrupt' | 'abort', message: string) {
    super(message);
    this.name = 'Interrupted';
  }
}

export class SyncRpc {
  private nextId = 1;
  private readonly signal: Int32Array;
  /** Replies read from the port for calls that are still open but not being waited on. */
  private readonly queued = new Map<number, RpcReply[]>();
  private readonly open = new Set<number>();
  /** Set by test.abort(): every further blocking call throws. */
  abortReason: string | null = null;

  constructor(
    private readonly port: MessagePort,
    sab: SharedArrayBuffer,
    private readonly post: (e: WorkerEvent) => void,
  ) {
    this.signal = new Int32Array(sab);
  }

  /** Throws Interrupted when the runner stopped this VU or the script aborted the test. */
  checkInterrupt(): void {
    if (this.abortReason !== null) throw new Interrupted('abort', this.abortReason);
    if (Atomics.load(this.signal, SIGNAL.INTERRUPT) !== 0) {
      throw new Interrupted('interrupt', 'context canceled');
    }
  }

  get interrupted(): boolean {
    return Atomics.load(this.signal, SIGNAL.INTERRUPT) !== 0;
  }

  /** One request, one reply. */
  call<M extends keyof RpcSignatures>(method: M, args: RpcSignatures[M]['args']): RpcSignatures[M]['result'] {
    const id = this.start(method, args);
    try {
      const reply = this.next(id);
      return (reply as { result: RpcSignatures[M]['result'] }).result;
    } finally {
      this.finish(id);
    }
  }

  /** Starts a call whose replies are read one by one with next(); end it with finish(). */
  start(method: RpcMethod, args: unknown): number {
    this.checkInterrupt();
    const id = this.nextId++;
    this.open.add(id);
    this.post({ type: 'rpc', id, method, args });
    return id;
  }

  finish(id: number): void {
    this.open.delete(id);
    this.queued.delete(id);
  }

  /** Blocks until the next reply for `id` arrives. */
  next(id: number): RpcReply {
    for (;;) {
      const queue = this.queued.get(id);
      if (queue && queue.length > 0) return queue.shift()!;
      this.checkInterrupt();
      const seen = Atomics.load(this.signal, SIGNAL.WAKE);
      // Read the port after sampling WAKE: a reply posted in between bumps WAKE past `seen`, so
      // the wait below returns at once instead of missing it.
      if (this.drain()) continue;
      Atomics.wait(this.signal, SIGNAL.WAKE, seen);
    }
  }

  /** k6's sleep(): blocks for `ms`, returning early (then throwing) if the VU is interrupted. */
  sleep(ms: number): void {
    const deadline = Date.now() + ms;
    for (;;) {
      this.checkInterrupt();
      const remaining = deadline - Date.now();
      if (remaining <= 0) return;
      const seen = Atomics.load(this.signal, SIGNAL.WAKE);
      Atomics.wait(this.signal, SIGNAL.WAKE, seen, remaining);
    }
  }

  /** Moves replies from the port into per-call queues; stale replies (closed calls) are dropped. */
  private drain(): boolean {
    let got = false;
    for (let m = receiveMessageOnPort(this.port); m; m = receiveMessageOnPort(this.port)) {
      const reply = m.message as RpcReply;
      if (!this.open.has(reply.id)) continue;
      let queue = this.queued.get(reply.id);
      if (!queue) this.queued.set(reply.id, (queue = []));
      queue.push(reply);
      got = true;
    }
    return got;
  }
}
