// A TCP proxy that puts a bad network between k6 and a server, as gateways and load balancers do:
// what the server sends is delayed, throttled, split into small writes, held and flushed at once,
// cut (FIN) or reset after so many bytes. Only the server → client direction is touched; requests
// pass as they are. The faults can be changed while connections are open (`set`): a run's
// preflight can pass on a good network and its load meet the bad one.
import net from 'node:net';

export interface NetFaults {
  /** Each piece the server sends is forwarded this much later (ms), in order. */
  delayMs?: number;
  /** Forward at most this many bytes per second per connection. */
  bytesPerSec?: number;
  /** Forward in writes of at most this many bytes, one per event-loop turn (separate TCP segments). */
  splitBytes?: number;
  /** Keep what the server sends and forward it in one write every holdMs (a buffering proxy). */
  holdMs?: number;
  /** After this many bytes of a connection counted from when the fault was set: close it (FIN) mid-reply. */
  cutAfterBytes?: number;
  /** After this many bytes of a connection counted from when the fault was set: reset it (RST). */
  resetAfterBytes?: number;
}

export interface FaultProxy {
  url: string;
  port: number;
  /** Replaces the faults; connections open now follow the new ones from their next byte. */
  set(faults: NetFaults): void;
  /** Connections cut or reset so far. */
  stats(): { connections: number; cut: number; reset: number };
  close(): Promise<void>;
}

export async function startFaultProxy(upstreamPort: number, initial: NetFaults = {}, host = '127.0.0.1'): Promise<FaultProxy> {
  let faults: NetFaults = { ...initial };
  let generation = 0;
  const counts = { connections: 0, cut: 0, reset: 0 };
  const open = new Set<net.Socket>();

  const server = net.createServer((client) => {
    counts.connections++;
    client.setNoDelay(true);
    const upstream = net.connect({ host, port: upstreamPort });
    upstream.setNoDelay(true);
    open.add(client);
    open.add(upstream);
    let seenGeneration = generation;
    let sent = 0;
    let done = false;
    // Pieces due to the client, in order: each is written when its time comes.
    const queue: Array<{ at: number; data: Buffer }> = [];
    let pumping = false;
    let held: Buffer[] = [];
    let holdTimer: NodeJS.Timeout | null = null;
    let rateFrom = Date.now();
    let rateBytes = 0;
    let upstreamEnded = false;

    let finished = false;
    const finish = (how: 'end' | 'cut' | 'reset'): void => {
      if (finished) return;
      finished = done = true;
      if (holdTimer) clearTimeout(holdTimer);
      if (how === 'reset') {
        counts.reset++;
        client.resetAndDestroy();
      } else {
        if (how === 'cut') counts.cut++;
        client.end();
      }
      upstream.destroy();
    };

    /** Writes one piece, or the part of it before a cut or reset is due. */
    const deliver = (data: Buffer): void => {
      if (done) return;
      if (seenGeneration !== generation) {
        seenGeneration = generation;
        sent = 0;
      }
      const limit = faults.resetAfterBytes ?? faults.cutAfterBytes;
      if (limit !== undefined && sent + data.length >= limit) {
        if (faults.resetAfterBytes !== undefined) {
          // The piece that would cross the limit is dropped: in Node 20 a reset right after a write
          // goes out as a FIN, and a reset's point is that the bytes in flight are lost anyway.
          finish('reset');
          return;
        }
        const head = data.subarray(0, Math.max(0, limit - sent));
        sent += head.length;
        done = true;
        if (head.length > 0) client.write(head, () => finish('cut'));
        else finish('cut');
        return;
      }
      sent += data.length;
      client.write(data);
    };

    const pump = (): void => {
      if (pumping) return;
      pumping = true;
      const next = (): void => {
        if (done || queue.length === 0) {
          pumping = false;
          if (upstreamEnded && queue.length === 0 && held.length === 0) finish('end');
          return;
        }
        const wait = queue[0].at - Date.now();
        if (wait > 0) return void setTimeout(next, wait);
        const piece = queue.shift() as { at: number; data: Buffer };
        deliver(piece.data);
        setImmediate(next);
      };
      next();
    };

    /** Puts a piece on the queue, split and paced as the faults say. */
    const enqueue = (data: Buffer): void => {
      const now = Date.now();
      let at = now + (faults.delayMs ?? 0);
      const size = faults.splitBytes ?? data.length;
      for (let i = 0; i < data.length; i += size) {
        const part = data.subarray(i, Math.min(data.length, i + size));
        if (faults.bytesPerSec) {
          if (now - rateFrom > 1000) {
            rateFrom = now;
            rateBytes = 0;
          }
          rateBytes += part.length;
          at = Math.max(at, rateFrom + (rateBytes / faults.bytesPerSec) * 1000);
        }
        queue.push({ at, data: part });
      }
      pump();
    };

    const flushHeld = (): void => {
      holdTimer = null;
      if (held.length === 0) return;
      const all = Buffer.concat(held);
      held = [];
      enqueue(all);
    };

    upstream.on('data', (data: Buffer) => {
      if (faults.holdMs) {
        held.push(data);
        holdTimer ??= setTimeout(flushHeld, faults.holdMs);
      } else enqueue(data);
    });
    upstream.on('end', () => {
      upstreamEnded = true;
      if (holdTimer) {
        clearTimeout(holdTimer);
        flushHeld();
      }
      pump();
    });
    upstream.on('error', () => finish('reset'));
    upstream.on('close', () => {
      open.delete(upstream);
      if (!upstreamEnded) finish('reset');
    });
    client.on('data', (data: Buffer) => upstream.write(data));
    client.on('end', () => upstream.end());
    client.on('error', () => finish('end'));
    client.on('close', () => {
      open.delete(client);
      finish('end');
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host, port: 0 }, () => resolve());
  });
  const port = (server.address() as net.AddressInfo).port;
  return {
    url: `http://${host}:${port}`,
    port,
    set(next) {
      faults = { ...next };
      generation++;
    },
    stats: () => ({ ...counts }),
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of open) s.destroy();
        server.close(() => resolve());
      }),
  };
}
