// How a request names its LoRA adapter, said once per route as data (the dialect table's `adapter`,
// an engine profile's `adapters.naming` where a server departs from its routes' usual way):
//  - `model`: OpenAI-style servers (vLLM, SGLang's OpenAI routes) serve each adapter as a model name;
//  - `lora_path`: SGLang's /generate takes the adapter's name beside the prompt;
//  - `lora-list`: llama.cpp takes `lora: [{id, scale}]` on every route, the ids from GET /lora-adapters;
//    an adapter it loaded but the list leaves out runs at scale 0, so `[]` is the base model.

export type AdapterNaming = 'model' | 'lora_path' | 'lora-list';

/** One request's adapter: null name for the base model. */
export interface AdapterChoice {
  name: string | null;
  /** llama.cpp: the adapter's id in GET /lora-adapters (the preflight resolves it); null elsewhere. */
  id: number | null;
}

/** What the preflight found of a variant's adapters (lib/preflight/adapters-loaded.ts), kept in its VariantInfo. */
export interface AdapterBinding {
  /** How this server's requests name an adapter; absent: as the dialect does. */
  naming?: AdapterNaming;
  /** llama.cpp: each ADAPTERS name's id in GET /lora-adapters. */
  ids: Record<string, number>;
}

/** docs/dialects.md's words for each naming. */
export const ADAPTER_NAMING_DOCS: Readonly<Record<AdapterNaming, string>> = {
  model: "`model`: the adapter's served name (the base model's name for the base)",
  lora_path: "`lora_path`: the adapter's name (absent for the base)",
  'lora-list': '`lora: [{id, scale: 1}]`, ids from `GET /lora-adapters` (`lora: []` for the base)',
};

/** How each naming writes an adapter into a request's fields. */
const WRITE: Readonly<Record<AdapterNaming, (a: AdapterChoice, fields: Record<string, unknown>) => void>> = {
  model: (a, f) => {
    if (a.name !== null) f.model = a.name;
  },
  lora_path: (a, f) => {
    if (a.name !== null) f.lora_path = a.name;
  },
  'lora-list': (a, f) => {
    if (a.name !== null && a.id === null) throw new Error(`k6-llm-bench: adapter '${a.name}' has no id from GET /lora-adapters.`);
    f.lora = a.name === null ? [] : [{ id: a.id, scale: 1 }];
  },
};

/**
 * Puts the request's adapter into a body's fields the way `naming` says; nothing without one. Called
 * after the dialect set `model`, which the `model` naming replaces with the adapter's name.
 */
export function adapterFields(naming: AdapterNaming, req: { adapter?: AdapterChoice }, fields: Record<string, unknown>): void {
  if (req.adapter !== undefined) WRITE[naming](req.adapter, fields);
}
