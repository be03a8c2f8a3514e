// What a VU sends in a dataset run. Single-turn: the items of the cell's ISL bucket, each VU
// cycling through its own block of them (promptIndex), so both variants get the same prompts in the
// same order. Multi-turn: one conversation at a time per VU, one request per user turn; each
// request carries the conversation so far, the earlier replies being the dataset's assistant turns
// or the server's own replies. Pure: items come through `item(index)`.
import type { HistorySource } from '../config/dataset-config';
import type { GenerationResult, Prompt } from '../dialects/types';
import type { Structured } from '../dialects/structured';
import type { ImageInput } from '../dialects/types';
import { markTurns, requestTurns, turnsText, userTurns, type DatasetItem, type Turn } from './format';
import type { DatasetBucket, DatasetPlan } from './bucket-plan';
import { NO_DOMAIN } from './store';
import { promptIndex } from '../workload/seeded-prompts';

/** Turns from this one on share one `turn` tag value ("8+"), so the tag's values stay few. */
export const MAX_TURN_TAG = 8;

/** The `turn` tag of the k-th user turn (1-based). */
export function turnTag(k: number): string {
  return k >= MAX_TURN_TAG ? `${MAX_TURN_TAG}+` : String(k);
}

/** The turn tag values a dataset whose longest conversation has `maxTurns` user turns can produce. */
export function turnTags(maxTurns: number): string[] {
  const out: string[] = [];
  for (let k = 1; k <= Math.min(maxTurns, MAX_TURN_TAG); k++) out.push(turnTag(k));
  return out;
}

export interface PlayerOptions {
  plan: DatasetPlan;
  /** The i-th item of the store (the k6 layer reads the SharedArray and keeps what it reads). */
  item: (index: number) => DatasetItem;
  /** Chat variants get the messages; the others the turns as one text. */
  chat: boolean;
  marker: boolean;
  multiTurn: boolean;
  history: HistorySource;
}

export interface NextRequest {
  prompt: Prompt;
  /** The item's output_tokens, else the cell's OSL. */
  maxTokens: number;
  /** The domain tag, null when the dataset has no domains. */
  domain: string | null;
  /** 1-based user turn; 1 for single-turn prompts. */
  turn: number;
  /** Tokens the benchmark meant to send (setup's count); null when unknown (later turns). */
  intended: number | null;
  /** The item's own tools and response_format; absent: none. */
  structured?: Structured;
  /** The row's own images; absent: none. */
  images?: ImageInput[];
}

interface Conversation {
  index: number;
  item: DatasetItem;
  intended: number;
  /** Next user turn to send (1-based) and how many there are. */
  next: number;
  turns: number;
  /** The messages sent so far with the server's replies (history=server). */
  history: Turn[] | null;
  /** Position in item.turns after the last user turn sent. */
  at: number;
}

export class DatasetPlayer {
  private bucket: DatasetBucket | null = null;
  private slot = 0;
  private vus = 1;
  private sent = 0;
  private conv: Conversation | null = null;
  private readonly cache = new Map<string, Prompt>();

  constructor(private readonly o: PlayerOptions) {}

  /** A new run (k6 scenario): its ISL bucket and this VU's slot among its VUs. Counters restart, so every variant sees the same order. */
  start(isl: number, slot: number, vus: number): void {
    const b = this.o.plan.buckets.find((x) => x.isl === isl);
    if (!b) throw new Error(`the dataset plan has no bucket for ISL ${isl}`);
    this.bucket = b;
    this.slot = slot;
    this.vus = vus;
    this.sent = 0;
    this.conv = null;
  }

  next(osl: number): NextRequest {
    const b = this.bucket;
    if (b === null) throw new Error('DatasetPlayer.next before start');
    if (!this.o.multiTurn) {
      const k = promptIndex(this.slot, this.sent++, this.vus, b.items.length);
      const index = b.items[k];
      const item = this.o.item(index);
      return {
        prompt: this.prompt(`${index}`, () => this.marked(item, requestTurns(item, 1))),
        maxTokens: item.outputTokens ?? osl,
        domain: item.domain,
        turn: 1,
        intended: b.tokens[k],
        structured: item.structured,
        images: item.images,
      };
    }
    let c = this.conv;
    if (c === null || c.next > c.turns) {
      const k = promptIndex(this.slot, this.sent++, this.vus, b.items.length);
      const index = b.items[k];
      const item = this.o.item(index);
      c = this.conv = { index, item, intended: b.tokens[k], next: 1, turns: userTurns(item), history: this.o.history === 'server' ? [] : null, at: 0 };
    }
    const turn = c.next;
    let prompt: Prompt;
    if (c.history === null) {
      const item = c.item;
      prompt = this.prompt(`${c.index}#${turn}`, () => this.marked(item, requestTurns(item, turn)));
    } else {
      // The turns since the last user turn sent, the dataset's assistant replies left out (the server's are in the history).
      const t = c.item.turns;
      let i = c.at;
      let user: Turn | null = null;
      for (; i < t.length; i++) {
        if (t[i].role === 'assistant') continue;
        const x = turn === 1 && t[i].role === 'user' && this.o.marker ? markTurns([t[i]], markDomain(c.item.domain))[0] : t[i];
        c.history.push(x);
        if (t[i].role === 'user') {
          user = x;
          i++;
          break;
        }
      }
      c.at = i;
      if (user === null) throw new Error(`conversation ${c.item.id} has no user turn ${turn}`);
      prompt = this.build(c.history.slice());
    }
    return {
      prompt,
      maxTokens: c.item.outputTokens ?? osl,
      domain: c.item.domain,
      turn,
      intended: turn === 1 ? c.intended : null,
      structured: c.item.structured,
      // The row's images go with its first request; later turns resend the history as text.
      images: turn === 1 ? c.item.images : undefined,
    };
  }

  /** After each request: the conversation moves on (history=server keeps the reply; a failed reply ends it). */
  done(result: GenerationResult): void {
    const c = this.conv;
    if (!this.o.multiTurn || c === null) return;
    c.next++;
    if (c.history !== null) {
      if (result.ok) c.history.push({ role: 'assistant', content: result.text });
      else c.next = c.turns + 1;
    }
  }

  private marked(item: DatasetItem, turns: Turn[]): Prompt {
    return this.build(this.o.marker ? markTurns(turns, markDomain(item.domain)) : turns);
  }

  private build(turns: Turn[]): Prompt {
    return this.o.chat ? { kind: 'text', text: turnsText(turns), messages: turns } : { kind: 'text', text: turnsText(turns) };
  }

  /** Prompts are built once per VU; the VU touches only its block of the bucket, so this stays small. */
  private prompt(key: string, make: () => Prompt): Prompt {
    let p = this.cache.get(key);
    if (p === undefined) {
      p = make();
      this.cache.set(key, p);
    }
    return p;
  }
}

/** Items without a domain of their own carry the tag `none` but no marker. */
function markDomain(domain: string | null): string | null {
  return domain === NO_DOMAIN ? null : domain;
}

/** The first request of an item, as sent (for setup's token counts): the messages, or their text. */
export function firstRequest(item: DatasetItem, chat: boolean, marker: boolean): string | Turn[] {
  const turns = requestTurns(item, 1);
  const sent = marker ? markTurns(turns, markDomain(item.domain)) : turns;
  return chat ? sent : turnsText(sent);
}
