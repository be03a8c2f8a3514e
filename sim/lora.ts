// LoRA adapters (--lora-adapters a,b): which adapter a request names, the engines' errors for one
// that is not loaded, the model cards that list them, and the engine's adapter slots. A batch holds
// at most --max-loras distinct adapters (the head of the queue waits for a slot, so mixing adapters
// shrinks the batch), and as many stay loaded; a step that loads a cold one takes --lora-load-ms
// longer (model ms). vLLM names an adapter by `model` (an unknown one: 404, as any unknown model);
// SGLang by `lora_path` on /generate (an unknown one: 400, its tokenizer manager's ValueError) and
// by `model` on its OpenAI routes, where another name is the base model, as SGLang serves any name.
import { HttpError } from './api/common';
import type { SimContext } from './context';
import { OptionError } from './option-spec';

const NAME_RE = /^[A-Za-z0-9][A-Za-z0-9._/-]{0,127}$/;

/** The adapters --lora-adapters names; a bad list throws OptionError. */
export function loraNames(o: { loraAdapters: string }): string[] {
  if (o.loraAdapters.trim() === '') return [];
  const names = o.loraAdapters.split(',').map((s) => s.trim());
  for (const n of names) if (!NAME_RE.test(n)) throw new OptionError(`--lora-adapters: invalid adapter name '${n}'`);
  if (new Set(names).size !== names.length) throw new OptionError(`--lora-adapters: an adapter named twice in '${o.loraAdapters}'`);
  return names;
}

/** The adapter an OpenAI-route request names in `model`; null: the base model. */
export function adapterOfModel(ctx: SimContext, model: string | undefined): string | null {
  return model !== undefined && loraNames(ctx.o).includes(model) ? model : null;
}

/** SGLang's /generate: the adapter in `lora_path`; null: none (the base model). */
export function adapterOfLoraPath(ctx: SimContext, value: unknown): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string') throw new HttpError(400, 'lora_path must be a string (the simulator takes one prompt per request).', 'lora_path');
  const names = loraNames(ctx.o);
  if (!names.includes(value)) {
    throw new HttpError(
      400,
      `The following requested LoRA adapters are not loaded: ${value}\nLoaded adapters: dict_keys([${names.map((n) => `'${n}'`).join(', ')}]).`,
      'lora_path',
    );
  }
  return value;
}

/** The adapters' cards in GET /v1/models, as vLLM lists --lora-modules (root: the path, parent: the base model). */
export function loraModelCards(ctx: SimContext, created: number, owner: string): Array<Record<string, unknown>> {
  return loraNames(ctx.o).map((name) => ({ id: name, object: 'model', created, owned_by: owner, root: `/adapters/${name}`, parent: ctx.o.model }));
}

/**
 * The engine's adapter slots: at most `max` distinct adapters in a batch and as many loaded,
 * the least recently used evicted when a cold one comes in.
 */
export class LoraSlots {
  /** Loaded adapters, least recently used first. */
  private readonly loaded: string[] = [];
  /** Model ms the next step takes longer for the adapters loaded since it was planned. */
  pendingLoadMs = 0;
  loads = 0;

  constructor(
    private readonly max: number,
    private readonly loadMs: number,
  ) {}

  /** Whether a sequence of `adapter` may join a batch whose sequences use `inBatch`; if so it is loaded (charging the load when cold). */
  admit(adapter: string | null | undefined, inBatch: ReadonlySet<string>): boolean {
    if (adapter === null || adapter === undefined) return true;
    if (!inBatch.has(adapter) && inBatch.size >= this.max) return false;
    const at = this.loaded.indexOf(adapter);
    if (at >= 0) this.loaded.splice(at, 1);
    else {
      this.pendingLoadMs += this.loadMs;
      this.loads++;
      // Evict the least recently used adapter that no running sequence uses.
      if (this.loaded.length >= this.max) {
        const victim = this.loaded.findIndex((a) => !inBatch.has(a));
        this.loaded.splice(victim === -1 ? 0 : victim, 1);
      }
    }
    this.loaded.push(adapter);
    return true;
  }

  /** The load time the step being planned takes on, model ms (then none until the next cold adapter). */
  takeLoadMs(): number {
    const ms = this.pendingLoadMs;
    this.pendingLoadMs = 0;
    return ms;
  }
}
