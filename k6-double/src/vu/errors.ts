// Turns whatever the script threw into a SerializedError for the main thread. Exceptions keep
// k6's stacktrace shape ("Error: boom\n\tat default (file:///x.js:12:9)"), limited to the
// script's own frames; interruptions and test.abort() are reported by kind, not as exceptions.

import type { SerializedError } from '../shared/protocol';
import { Interrupted, type SyncRpc } from './sync-rpc';

export function serializeError(e: unknown, scriptUrl: string, rpc: SyncRpc): SerializedError {
  if (rpc.abortReason !== null) {
    return { kind: 'abort', name: 'Interrupted', message: rpc.abortReason, stack: '' };
  }
  if (e instanceof Interrupted || rpc.interrupted) {
    return { kind: 'interrupt', name: 'Interrupted', message: 'context canceled', stack: '' };
  }
  const errorLike = e !== null && typeof e === 'object' && 'message' in e;
  const name = errorLike ? String((e as Error).name) : '';
  const message = errorLike ? String((e as Error).message) : String(e);
  const head = errorLike ? Error.prototype.toString.call(e) : message;
  const frames = errorLike ? scriptFrames(String((e as Error).stack ?? ''), scriptUrl) : [];
  return { kind: 'exception', name, message, stack: head + frames.map((f) => `\n\tat ${f}`).join('') };
}

function scriptFrames(stack: string, scriptUrl: string): string[] {
  return stack
    .split('\n')
    .filter((line) => /^\s+at /.test(line) && line.includes(scriptUrl))
    .map((line) => line.trim().replace(/^at /, ''));
}
