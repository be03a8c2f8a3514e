// Metric sinks with k6's aggregation rules (metrics/sink.go), quirks included: a gauge's max
// starts at 0 (so an all-negative gauge reports max 0), and trend percentiles interpolate
// linearly between the two nearest ranks: i = p * (n - 1).

import type { MetricType } from '../shared/protocol';

export class CounterSink {
  readonly type = 'counter';
  value = 0;
  private seen = false;
  add(v: number): void {
    this.value += v;
    this.seen = true;
  }
  isEmpty(): boolean {
    return !this.seen;
  }
  /** Per second over the test run duration; 0 when the duration is 0, as k6. */
  rate(durationMs: number): number {
    return durationMs === 0 ? 0 : this.value / (durationMs / 1000);
  }
}

export class GaugeSink {
  readonly type = 'gauge';
  value = 0;
  min = 0;
  max = 0;
  private minSet = false;
  add(v: number): void {
    this.value = v;
    if (v > this.max) this.max = v;
    if (v < this.min || !this.minSet) {
      this.min = v;
      this.minSet = true;
    }
  }
  isEmpty(): boolean {
    return !this.minSet;
  }
}

export class RateSink {
  readonly type = 'rate';
  trues = 0;
  total = 0;
  add(v: number): void {
    this.total++;
    if (v !== 0) this.trues++;
  }
  isEmpty(): boolean {
    return this.total === 0;
  }
  rate(): number {
    return this.total > 0 ? this.trues / this.total : 0;
  }
}

export class TrendSink {
  readonly type = 'trend';
  private readonly values: number[] = [];
  private sorted = true;
  count = 0;
  min = 0;
  max = 0;
  sum = 0;
  add(v: number): void {
    if (this.count === 0) {
      this.min = v;
      this.max = v;
    } else {
      if (v > this.max) this.max = v;
      if (v < this.min) this.min = v;
    }
    this.values.push(v);
    this.sorted = false;
    this.count++;
    this.sum += v;
  }
  isEmpty(): boolean {
    return this.count === 0;
  }
  avg(): number {
    return this.count > 0 ? this.sum / this.count : 0;
  }
  /** `pct` in 0..1. */
  p(pct: number): number {
    if (this.count === 0) return 0;
    if (this.count === 1) return this.values[0]!;
    if (!this.sorted) {
      this.values.sort((a, b) => a - b);
      this.sorted = true;
    }
    const i = pct * (this.count - 1);
    const j = this.values[Math.floor(i)]!;
    const k = this.values[Math.ceil(i)]!;
    return j + (k - j) * (i - Math.floor(i));
  }
}

export type Sink = CounterSink | GaugeSink | RateSink | TrendSink;

export function newSink(type: MetricType): Sink {
  switch (type) {
    case 'counter':
      return new CounterSink();
    case 'gauge':
      return new GaugeSink();
    case 'rate':
      return new RateSink();
    case 'trend':
      return new TrendSink();
  }
}
