// Dispatches what VU workers ask of the main thread: blocking calls (metric registration,
// SharedArray, HTTP, SSE, execution info) and fire-and-forget events (samples, logs, abort).

import type { MetricRegistry } from '../metrics/registry';
import type { InstanceInfo, LogLevel, RpcSignatures, Sample, SseOpenArgs } from '../shared/protocol';
import { HttpService } from './http-service';
import { SharedArrays } from './shared-arrays';
import { SseService } from './sse-service';
import type { ServiceEvent, VUWorker } from './vu-worker';

export interface ServiceHost {
  readonly registry: MetricRegistry;
  ingest(vu: VUWorker | null, samples: Sample[]): void;
  log(level: LogLevel, msg: string, fields?: Record<string, string>): void;
  abortTest(reason: string): void;
  markFailed(): void;
  instanceInfo(): InstanceInfo;
  scenarioProgress(scenario: string): number;
}

export class VUServices {
  private readonly http: HttpService;
  private readonly sse: SseService;
  private readonly shared = new SharedArrays();

  constructor(private readonly host: ServiceHost) {
    this.http = new HttpService({
      emit: (vu, samples) => host.ingest(vu, samples),
      warn: (msg, fields) => host.log('warning', msg, fields),
    });
    this.sse = new SseService({
      emit: (vu, samples) => host.ingest(vu, samples),
      send: (vu, id, message) => vu.reply({ id, ...message }),
    });
  }

  handle(vu: VUWorker, event: ServiceEvent): void {
    switch (event.type) {
      case 'rpc':
        return this.rpc(vu, event.id, event.method, event.args);
      case 'sse.close':
        return this.sse.close(vu, event.id);
      case 'samples':
        return this.host.ingest(vu, event.samples);
      case 'log':
        return this.host.log(event.level, event.msg, event.fields);
      case 'abort':
        return this.host.abortTest(event.reason);
      case 'testFailed':
        return this.host.markFailed();
    }
  }

  close(): void {
    this.http.close();
  }

  private rpc(vu: VUWorker, id: number, method: string, args: unknown): void {
    const reply = <M extends keyof RpcSignatures>(_m: M, result: RpcSignatures[M]['result']) => vu.reply({ id, result });
    switch (method) {
      case 'metric.register': {
        const a = args as RpcSignatures['metric.register']['args'];
        try {
          this.host.registry.register(a.name, a.type, a.isTime ? 'time' : 'default');
          return reply('metric.register', {});
        } catch (e) {
          return reply('metric.register', { error: (e as Error).message });
        }
      }
      case 'sharedArray.get':
        return this.shared.get((args as { name: string }).name, (answer) => reply('sharedArray.get', answer));
      case 'sharedArray.set': {
        const a = args as RpcSignatures['sharedArray.set']['args'];
        this.shared.set(a.name, a.data);
        return reply('sharedArray.set', {});
      }
      case 'http.request':
        void this.http.request(vu, args as RpcSignatures['http.request']['args']).then(
          (response) => reply('http.request', { response }),
          (e: Error) => this.host.log('error', `k6 double: http.request failed internally: ${e.stack ?? e.message}`),
        );
        return;
      case 'execution.instance':
        return reply('execution.instance', this.host.instanceInfo());
      case 'execution.progress':
        return reply('execution.progress', { progress: this.host.scenarioProgress((args as { scenario: string }).scenario) });
      case 'sse.open':
        return this.sse.open(vu, id, args as SseOpenArgs);
      default:
        this.host.log('error', `k6 double: unknown call ${method}`);
    }
  }
}
