// The network half of k6/x/sse: opens the stream, splits it into events exactly like xk6-sse's
// readEvents, and forwards each event to the blocked VU the moment its terminating blank line
// arrives. Metrics as the extension emits them: http_req_sending (time until the response
// headers, at connect time), then http_reqs, http_req_sending and http_req_duration (whole
// call) when sse.open returns; tags are the VU's tags, the request's `tags`, `url` and, once
// known, `status`. (sse_event is counted by the VU as it hands each event to the script, so
// events still in flight when the script closes the client are not counted, as in the
// extension.) A new connection per call, like the extension's per-call transport.

import * as http from 'node:http';
import * as https from 'node:https';
import type { Socket } from 'node:net';
import { goHeaders, urlErrorOp } from '../shared/http-names';
import type { Sample, SseMessage, SseOpenArgs, TagSet } from '../shared/protocol';
import { describeRequestError } from './http-client';
import type { VUWorker } from './vu-worker';

export interface SseHost {
  emit(vu: VUWorker, samples: Sample[]): void;
  send(vu: VUWorker, id: number, message: SseMessage): void;
}

interface Stream {
  request: http.ClientRequest | null;
  socket: Socket | null;
  tags: TagSet;
  connStart: number;
  connDuration: number;
  ended: boolean;
  cancel: () => void;
}

export class SseService {
  private readonly streams = new Map<VUWorker, Map<number, Stream>>();

  constructor(private readonly host: SseHost) {}

  open(vu: VUWorker, id: number, args: SseOpenArgs): void {
    const stream: Stream = { request: null, socket: null, tags: { ...args.tags }, connStart: Date.now(), connDuration: 0, ended: false, cancel: () => {} };
    const perVU = this.streams.get(vu) ?? new Map<number, Stream>();
    this.streams.set(vu, perVU);
    perVU.set(id, stream);
    const send = (m: SseMessage) => {
      if (!stream.ended) this.host.send(vu, id, m);
    };
    const method = args.method || 'GET';
    let connected = false;
    const connectDone = () => {
      stream.connDuration = Date.now() - stream.connStart;
      this.host.emit(vu, [{ metric: 'http_req_sending', value: stream.connDuration, time: stream.connStart, tags: { ...stream.tags } }]);
    };
    const openFailed = (error: string) => {
      connectDone();
      send({ kind: 'openError', error });
      this.finish(vu, id);
    };

    let url: URL;
    try {
      url = new URL(args.url);
    } catch {
      openFailed(`parse "${args.url}": invalid URI for request`);
      return;
    }
    const headers: Record<string, string> = { Accept: 'text/event-stream', ...args.headers };
    const body = Buffer.from(args.body);
    if (body.length > 0) headers['Content-Length'] = String(body.length);
    const mod = url.protocol === 'https:' ? https : http;
    const req = mod.request(url, { method, headers, agent: false });
    stream.request = req;
    req.on('socket', (s) => (stream.socket = s));
    let timer: NodeJS.Timeout | undefined;
    if (args.timeoutMs > 0) {
      // Go's http.Client.Timeout: covers connecting, the headers and reading the body.
      timer = setTimeout(() => {
        if (!connected) {
          req.destroy();
          openFailed(`${urlErrorOp(method)} "${args.url}": context deadline exceeded (Client.Timeout exceeded while awaiting headers)`);
        } else {
          send({ kind: 'error', error: 'context deadline exceeded (Client.Timeout or context cancellation while reading body)' });
          stream.ended = true;
          req.destroy();
        }
      }, args.timeoutMs);
    }
    stream.cancel = () => {
      clearTimeout(timer);
      stream.ended = true;
      req.destroy();
    };
    vu.inflight.add(stream.cancel);

    req.on('error', (err) => {
      if (stream.ended) return;
      if (!connected) openFailed(describeRequestError(err, { method, url: args.url }, false, false).goError);
      else {
        // Go's readEvents reports the read error; nothing follows until the VU closes the client.
        send({ kind: 'error', error: 'unexpected EOF' });
        stream.ended = true;
      }
    });
    req.on('response', (res) => {
      connected = true;
      stream.tags.status = String(res.statusCode);
      connectDone();
      send({ kind: 'response', status: res.statusCode ?? 0, headers: goHeaders(res.rawHeaders) });
      const parser = new EventParser(
        (event) => send({ kind: 'event', event }),
        (error) => send({ kind: 'error', error }),
      );
      res.on('data', (chunk: Buffer) => {
        if (!stream.ended) parser.push(chunk);
      });
      res.on('end', () => {
        clearTimeout(timer);
        send({ kind: 'end' });
        stream.ended = true;
      });
      res.on('error', () => {
        if (stream.ended) return;
        send({ kind: 'error', error: 'unexpected EOF' });
        stream.ended = true;
      });
    });
    req.end(body.length > 0 ? body : undefined);
  }

  /** The VU's sse.open() returned (or client.close() was called): stop reading, emit end metrics. */
  close(vu: VUWorker, id: number): void {
    this.finish(vu, id);
  }

  private finish(vu: VUWorker, id: number): void {
    const stream = this.streams.get(vu)?.get(id);
    if (!stream) return;
    this.streams.get(vu)!.delete(id);
    vu.inflight.delete(stream.cancel);
    stream.cancel();
    // The extension dials through the VU's dialer, so its bytes count in data_sent/data_received.
    if (stream.socket) {
      vu.bytesSent += stream.socket.bytesWritten;
      vu.bytesReceived += stream.socket.bytesRead;
    }
    const time = Date.now();
    const tags = stream.tags;
    this.host.emit(vu, [
      { metric: 'http_reqs', value: 1, time, tags },
      { metric: 'http_req_sending', value: stream.connDuration, time, tags },
      { metric: 'http_req_duration', value: time - stream.connStart, time, tags },
    ]);
  }
}

/**
 * xk6-sse's readEvents: lines up to "\n"; id:, event:, data:, retry: and comments fill the
 * event, a blank line dispatches it (data lines joined, trailing newlines trimmed), anything else
 * is an "unknown event" error. A last line without "\n" at the end of the stream is dropped.
 */
export class EventParser {
  private readonly decoder = new TextDecoder();
  private pending = '';
  private event = { id: '', name: '', data: '', comment: '' };
  private data = '';

  constructor(
    private readonly onEvent: (e: { id: string; name: string; data: string; comment: string }) => void,
    private readonly onError: (message: string) => void,
  ) {}

  push(chunk: Uint8Array): void {
    this.pending += this.decoder.decode(chunk, { stream: true });
    for (let nl = this.pending.indexOf('\n'); nl >= 0; nl = this.pending.indexOf('\n')) {
      const line = this.pending.slice(0, nl + 1);
      this.pending = this.pending.slice(nl + 1);
      this.line(line);
    }
  }

  private line(line: string): void {
    // stripPrefix drops only the final "\n", so a "\r" before it stays in the value.
    const value = (prefix: string) => line.slice(prefix.length, -1);
    const field = (...prefixes: string[]) => prefixes.find((p) => line.startsWith(p));
    let p: string | undefined;
    if ((p = field('id: ', 'id:'))) this.event.id = value(p);
    else if ((p = field(': ', ':'))) this.event.comment = value(p);
    else if ((p = field('event: ', 'event:'))) this.event.name = value(p);
    else if ((p = field('data: ', 'data:'))) this.data += line.slice(p.length);
    else if (line.startsWith('retry:')) return;
    else if (line === '\n' || line === '\r\n') {
      this.onEvent({ ...this.event, data: this.data.replace(/[\r\n]+$/, '') });
      this.event = { id: '', name: '', data: '', comment: '' };
      this.data = '';
    } else this.onError(`unknown event: ${line}`);
  }
}
