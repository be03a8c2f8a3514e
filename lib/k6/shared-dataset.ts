// DATASET in k6: the file is read and parsed once per test inside SharedArray callbacks (k6 runs
// init once per VU; only the first VU runs the callbacks, the others get the shared copy), setup
// counts the prompts' tokens and fills the ISL buckets, and each VU keeps only the items it sends.
import exec from 'k6/execution';
import { SharedArray } from 'k6/data';
import { nativeBase64 } from './shared-images';
import { readRowImages } from '../dataset/row-images';
import type { BenchConfig } from '../config/config-types';
import { ConfigError } from '../config/parse';
import type { HttpPort } from '../http-port';
import { requestHeaders, type ResolvedVariant, type VariantInfo } from '../variants';
import { DIALECT_TRAITS, imagesRefusal } from '../dialects/index';
import { structuredRefusal } from '../dialects/structured';
import type { DatasetItem } from '../dataset/format';
import { MAX_TOKENIZE_CALLS, TOKENIZE_BUDGET_MS, estimateCounter, planDataset, serverCounter, tokenizeEngine, type DatasetPlan } from '../dataset/bucket-plan';
import { DatasetPlayer, firstRequest, turnTag, turnTags, type NextRequest } from '../dataset/player';
import { buildStore, readDataset, storedItem, type DatasetMeta, type DatasetStore, type StoredItem } from '../dataset/store';
import type { DatasetShape } from '../plan/dataset-keys';
import { describeLengths } from '../dataset/lengths';

/** The dataset as every VU sees it: the header, and items read on demand from the shared copy. */
export interface SharedDataset {
  meta: DatasetMeta;
  count: number;
  item(index: number): DatasetItem;
  estimate(index: number): number;
  shape: DatasetShape;
}

/** What setup's token counting may take (lifecycle/vu0-config.ts adds it to setupTimeout). */
export { TOKENIZE_BUDGET_MS };

// The first VU builds the store once and hands it to the three SharedArray callbacks.
let built: DatasetStore | { error: string } | null = null;

/** Reads DATASET at init; null when unset. Throws ConfigError (one line naming file, line and field). */
export function openDataset(cfg: BenchConfig, read: (path: string) => string): SharedDataset | null {
  const d = cfg.dataset;
  if (d === null) return null;
  const key = `dataset:${d.spec}:${d.domains?.join(',') ?? '*'}:${cfg.seed}:${d.domainMarker}`;
  const build = (): DatasetStore | { error: string } => {
    if (built === null) {
      try {
        const ds = readDataset(d, read);
        // Rows' image files: binary, so read here in init (open(path, 'b')), base64 by k6's encoder.
        readRowImages(ds, d.spec, (path) => new Uint8Array(open(path, 'b')), nativeBase64);
        built = buildStore(ds, cfg.seed, d.domainMarker);
      } catch (e) {
        // Returned, not thrown, through k6's SharedArray: the error surfaces below as the one-line ConfigError.
        if (!(e instanceof ConfigError)) throw e;
        built = { error: e.message };
      }
    }
    return built;
  };
  const head = new SharedArray(`${key}:meta`, () => {
    const b = build();
    return ['error' in b ? { error: b.error } : b.meta];
  }) as unknown as ArrayLike<DatasetMeta & { error?: string }>;
  const meta = head[0];
  if (meta.error !== undefined) throw new ConfigError(meta.error);
  const items = new SharedArray(`${key}:items`, () => {
    const b = build();
    return 'error' in b ? [] : b.items;
  }) as unknown as ArrayLike<StoredItem>;
  const estimates = new SharedArray(`${key}:estimates`, () => {
    const b = build();
    built = null; // the last callback: the parsed copy can go
    return 'error' in b ? [] : b.estimates;
  }) as unknown as ArrayLike<number>;
  // Each VU parses only the items it reads, and keeps them.
  const cache = new Map<number, DatasetItem>();
  return {
    meta,
    count: items.length,
    item(index) {
      let it = cache.get(index);
      if (it === undefined) {
        it = storedItem(items[index], meta);
        cache.set(index, it);
      }
      return it;
    },
    estimate: (index) => estimates[index],
    shape: { domains: meta.domains, turns: d.multiTurn && meta.maxTurns >= 2 ? turnTags(meta.maxTurns) : [] },
  };
}

/** Rows that bring tools or a response_format, sent to a variant whose dialect cannot carry them: one sentence, before any load. */
function refuseRowStructured(meta: SharedDataset['meta'], cfg: BenchConfig, infos: readonly VariantInfo[]): void {
  const asks = {
    ...((meta.withTools ?? 0) > 0 ? { tools: [{ name: 'row', description: '', parameters: {} }] } : {}),
    ...((meta.withFormat ?? 0) > 0 ? { responseFormat: { type: 'json_object' as const } } : {}),
  };
  for (const info of infos) {
    const vars = cfg.variants.find((v) => v.variant === info.variant)?.vars.dialect ?? 'DIALECT';
    const why = structuredRefusal(asks, DIALECT_TRAITS, info.dialect, vars);
    if (why !== null) throw new ConfigError(`${meta.source}: ${meta.withTools ?? 0} row(s) bring tools and ${meta.withFormat ?? 0} a response_format; ${why}`);
  }
}

/** Rows that bring images, sent to a variant whose dialect cannot carry them (DIALECT=auto resolved by now): one sentence, before any load. */
function refuseRowImages(meta: SharedDataset['meta'], cfg: BenchConfig, infos: readonly VariantInfo[]): void {
  if ((meta.withImages ?? 0) === 0) return;
  for (const info of infos) {
    const v = cfg.variants.find((x) => x.variant === info.variant);
    const why = imagesRefusal(info.dialect, v?.dialect === 'auto' ? `${v.vars.dialect}=auto chose ` : `${v?.vars.dialect ?? 'DIALECT'}=`);
    if (why !== null) throw new ConfigError(`${meta.source}: ${meta.withImages} row(s) bring images; ${why}`);
  }
}

/** Setup's part: count the prompts' tokens (a variant's tokenize route, else the estimate) and fill the buckets. */
export function planInSetup(io: HttpPort, cfg: BenchConfig, ds: SharedDataset, infos: readonly VariantInfo[]): DatasetPlan {
  refuseRowStructured(ds.meta, cfg, infos);
  refuseRowImages(ds.meta, cfg, infos);
  const d = cfg.dataset as NonNullable<BenchConfig['dataset']>;
  const counting = cfg.variants.flatMap((tc) => {
    const info = infos.find((x) => x.variant === tc.variant);
    if (!info) return [];
    return [
      {
        variant: tc.variant,
        url: tc.url,
        engine: tokenizeEngine(info.metrics, info.engine),
        model: info.model,
        headers: requestHeaders(tc),
        chat: DIALECT_TRAITS[info.dialect].chat,
      },
    ];
  });
  const first = (index: number, chat: boolean) => firstRequest(ds.item(index), chat, d.domainMarker);
  const counter = serverCounter(io, counting, first) ?? estimateCounter((i) => ds.estimate(i));
  const started = io.now();
  const plan = planDataset({
    source: ds.meta.source,
    total: ds.count,
    shape: ds.shape,
    format: ds.meta.format,
    withOutputTokens: ds.meta.withOutputTokens,
    skipped: ds.meta.skipped.count,
    isl: cfg.isl,
    pool: cfg.promptPool,
    filter: { minTokens: d.minTokens, maxTokens: d.maxTokens },
    counter,
    maxCalls: MAX_TOKENIZE_CALLS,
    expired: () => io.now() - started > TOKENIZE_BUDGET_MS,
  });
  return plan;
}

/**
 * A VU's dataset requests: one player per prompt form (chat messages or text), the run's bucket,
 * and the domain and turn tags set on the VU only when they change (each set is a call into k6).
 */
export class DatasetVu {
  private readonly players = new Map<boolean, DatasetPlayer>();
  private player: DatasetPlayer | null = null;
  private domain: string | null = null;
  private turn: string | null = null;

  constructor(
    private readonly cfg: BenchConfig,
    private readonly ds: SharedDataset,
  ) {}

  /** On a new run: the variant's prompt form, the cell's ISL and this VU's slot. */
  start(plan: DatasetPlan, variant: ResolvedVariant, isl: number, slot: number, vus: number): void {
    const chat = DIALECT_TRAITS[variant.dialect.name].chat;
    let p = this.players.get(chat);
    if (!p) {
      const d = this.cfg.dataset as NonNullable<BenchConfig['dataset']>;
      p = new DatasetPlayer({ plan, item: (i) => this.ds.item(i), chat, marker: d.domainMarker, multiTurn: d.multiTurn, history: d.history });
      this.players.set(chat, p);
    }
    p.start(isl, slot, vus);
    this.player = p;
  }

  next(osl: number): NextRequest {
    const r = (this.player as DatasetPlayer).next(osl);
    const tags = exec.vu.metrics.tags as Record<string, string>;
    if (this.ds.shape.domains.length > 0 && r.domain !== null && r.domain !== this.domain) tags.domain = this.domain = r.domain;
    if (this.ds.shape.turns.length > 0) {
      const tt = turnTag(r.turn);
      if (tt !== this.turn) tags.turn = this.turn = tt;
    }
    return r;
  }

  done(result: Parameters<DatasetPlayer['done']>[0]): void {
    this.player?.done(result);
  }

  /** Before work that is not a dataset request (the server-metrics probe): no stale domain or turn tag. */
  clearTags(): void {
    const tags = exec.vu.metrics.tags as Record<string, string>;
    if (this.domain !== null) delete tags.domain;
    if (this.turn !== null) delete tags.turn;
    this.domain = this.turn = null;
  }
}

/**
 * Setup's dataset step, after preflight: the plan every VU and the report read, with one log line
 * per fact. A dataset that cannot fill the ISL axis stops the run here with one line, as a
 * configuration error does (exit 108, see config-error.ts).
 */
export function setupDataset(io: HttpPort, cfg: BenchConfig, ds: SharedDataset, infos: readonly VariantInfo[], benchmark: string): DatasetPlan {
  let plan: DatasetPlan;
  try {
    plan = planInSetup(io, cfg, ds, infos);
  } catch (e) {
    if (e instanceof ConfigError) exec.test.abort(`k6-llm-bench ${benchmark}: ${e.message}`);
    throw e;
  }
  for (const line of datasetLogLines(plan)) console.log(line);
  return plan;
}

export function datasetLogLines(plan: DatasetPlan): string[] {
  const doms = plan.shape.domains.length ? `, domains ${plan.shape.domains.join(', ')}` : '';
  const lines = [
    `${plan.source}: ${plan.total} prompts (${plan.format})${doms}; lengths ${describeLengths(plan.lengths)}; ` +
      plan.buckets.map((b) => `ISL ${b.isl}: ${b.items.length} prompts of ${b.lo}–${b.hi - 1} tokens (mean ${mean(b.tokens).toFixed(0)})`).join(', ') +
      `; ${plan.examined} examined, ${plan.outside} outside the ISL buckets${plan.filtered ? `, ${plan.filtered} filtered out` : ''}.`,
  ];
  for (const n of plan.notes) lines.push(`${plan.source}: ${n}`);
  return lines;
}

function mean(xs: readonly number[]): number {
  let s = 0;
  for (const x of xs) s += x;
  return xs.length ? s / xs.length : 0;
}
