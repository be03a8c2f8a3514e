// Entry point of a VU worker thread. The runner transpiles the vu/ and shared/ sources to plain
// JavaScript before starting workers (see host/compile.ts): loading TypeScript through tsx in
// every worker would cost most of a second per VU.

import { parentPort, workerData } from 'node:worker_threads';
import type { WorkerBoot, WorkerCommand, WorkerEvent } from '../shared/protocol';
import { VURuntime } from './runtime';
import { SyncRpc } from './sync-rpc';

const port = parentPort;
if (!port) throw new Error('k6 double: vu/worker must run in a worker thread');
const boot = workerData as WorkerBoot;
const post = (e: WorkerEvent): void => port.postMessage(e);
const runtime = new VURuntime(boot, new SyncRpc(boot.replyPort, boot.signal, post), post);
port.on('message', (cmd: WorkerCommand) => runtime.handle(cmd));
