// The metrics engine (internal/metrics/engine): aggregates samples into sinks, feeds
// sub-metrics ("name{tag:value,...}" as written in thresholds), tracks which metrics were
// observed (only those appear in the summary) and evaluates thresholds.

import type { Sample, TagSet } from '../shared/protocol';
import type { MetricDef, MetricRegistry } from './registry';
import { newSink, type Sink } from './sinks';
import { parseThresholds, runThresholds, validateThresholds, type Threshold } from './thresholds';

export interface MetricEntry {
  /** The key under which k6 reports it: "http_req_duration" or "http_req_duration{status:200}". */
  name: string;
  def: MetricDef;
  sink: Sink;
  /** Tags a sample must carry (all of them, same values) to feed this sub-metric. */
  subTags?: TagSet;
  thresholds: Threshold[];
  abort: boolean;
  observed: boolean;
}

export class ConfigError extends Error {}

export class MetricsEngine {
  private readonly entries = new Map<string, MetricEntry>();
  private readonly subs = new Map<string, MetricEntry[]>();
  private readonly withThresholds: MetricEntry[] = [];

  constructor(private readonly registry: MetricRegistry) {}

  /**
   * Parses and validates options.thresholds (InvalidConfig errors, exit code 104) and creates the
   * sub-metrics they name, marking them observed so they show in the summary even without samples.
   */
  initThresholds(thresholds: Record<string, unknown>): void {
    const parsed = new Map<string, Threshold[]>();
    for (const [name, raw] of Object.entries(thresholds)) {
      try {
        const list = parseThresholds(raw);
        const base = parseMetricName(name);
        const def = this.registry.get(base);
        if (!def) throw new Error(`invalid threshold defined on ${name}; reason: no metric name ${JSON.stringify(name)} found`);
        validateThresholds(name, def.type, list);
        parsed.set(name, list);
      } catch (e) {
        throw new ConfigError((e as Error).message);
      }
    }
    for (const [name, list] of parsed) {
      const entry = this.entryFor(name);
      entry.thresholds = list;
      this.withThresholds.push(entry);
      entry.observed = true;
      if (entry.subTags) this.entry(parseMetricName(name)).observed = true;
    }
    // k6 always tracks this one (the expected_response system tag is on by default).
    this.entryFor('http_req_duration{expected_response:true}');
  }

  ingest(sample: Sample): void {
    const main = this.entries.get(sample.metric) ?? this.entry(sample.metric);
    main.sink.add(sample.value);
    main.observed = true;
    for (const sub of this.subs.get(sample.metric) ?? []) {
      if (!matches(sample.tags, sub.subTags!)) continue;
      sub.sink.add(sample.value);
      sub.observed = true;
    }
  }

  /**
   * k6's evaluateThresholds: `ignoreEmpty` skips metrics without samples (periodic runs);
   * the final run evaluates them too. Returns the breached metric names, sorted.
   */
  evaluate(ignoreEmpty: boolean, durationMs: number): { breached: string[]; abort: boolean } {
    const breached: string[] = [];
    let abort = false;
    for (const entry of this.withThresholds) {
      if (ignoreEmpty && entry.sink.isEmpty()) continue;
      const result = runThresholds(entry.thresholds, entry.sink, durationMs);
      entry.abort ||= result.abort;
      if (result.passed) continue;
      breached.push(entry.name);
      if (entry.abort) abort = true;
    }
    return { breached: breached.sort(), abort };
  }

  get hasThresholds(): boolean {
    return this.withThresholds.length > 0;
  }

  observed(): MetricEntry[] {
    return [...this.entries.values()].filter((e) => e.observed);
  }

  private entry(name: string): MetricEntry {
    let entry = this.entries.get(name);
    if (!entry) {
      const def = this.registry.get(name);
      if (!def) throw new Error(`k6 double: sample for unregistered metric ${name}`);
      entry = { name, def, sink: newSink(def.type), thresholds: [], abort: false, observed: false };
      this.entries.set(name, entry);
    }
    return entry;
  }

  /** A metric or a sub-metric entry for a threshold key (k6's getThresholdMetricOrSubmetric). */
  private entryFor(key: string): MetricEntry {
    const brace = key.indexOf('{');
    if (brace < 0) return this.entry(key);
    const parent = this.entry(key.slice(0, brace));
    const suffix = key.slice(brace + 1, -1).trim();
    const tags = parseSubmetricTags(suffix);
    const siblings = this.subs.get(parent.name) ?? [];
    const same = siblings.find((s) => sameTags(s.subTags!, tags));
    if (same) return same;
    const name = `${parent.name}{${suffix}}`;
    const entry: MetricEntry = { name, def: parent.def, sink: newSink(parent.def.type), subTags: tags, thresholds: [], abort: false, observed: false };
    this.entries.set(name, entry);
    this.subs.set(parent.name, [...siblings, entry]);
    return entry;
  }
}

/** k6's ParseMetricName validation; returns the metric part of "name{tags}". */
export function parseMetricName(name: string): string {
  const open = name.indexOf('{');
  const close = name.lastIndexOf('}');
  if (open < 0 && close < 0) return name;
  const prefix = 'parsing metric name failed';
  if (open < 0 || close < 0) throw new Error(`${prefix}, metric ${JSON.stringify(name)} has unmatched opening/close curly brace`);
  if (close < open) throw new Error(`${prefix}, metric ${JSON.stringify(name)} closing curly brace appears before opening one`);
  if (close !== name.length - 1) {
    throw new Error(`${prefix}, metric ${JSON.stringify(name)} lacks a closing curly brace in its last position`);
  }
  for (const t of name.slice(open + 1, close).split(',')) {
    const colon = t.indexOf(':');
    if (colon < 0 || t.slice(colon + 1) === '') throw new Error(`${prefix}, metric ${JSON.stringify(t)} tag expression is malformed`);
  }
  return name.slice(0, open);
}

/** Metric.AddSubmetric: "k:v,k2:'v2'" with quotes and spaces trimmed. */
function parseSubmetricTags(suffix: string): TagSet {
  const tags: TagSet = {};
  for (const kv of suffix.split(',')) {
    if (kv === '') continue;
    const colon = kv.indexOf(':');
    const k = colon < 0 ? kv : kv.slice(0, colon);
    const v = colon < 0 ? '' : kv.slice(colon + 1);
    tags[trimQuotes(k.trim())] = trimQuotes(v.trim());
  }
  return tags;
}

function trimQuotes(s: string): string {
  return s.replace(/^["']+|["']+$/g, '');
}

function matches(tags: TagSet, want: TagSet): boolean {
  return Object.entries(want).every(([k, v]) => tags[k] === v);
}

function sameTags(a: TagSet, b: TagSet): boolean {
  const ka = Object.keys(a);
  return ka.length === Object.keys(b).length && ka.every((k) => a[k] === b[k]);
}
