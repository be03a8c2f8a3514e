// A server's serving configuration in one vocabulary: the settings that decide how fast it serves
// (scheduling, model, numerics, parallelism, context) and its speculative method, each read from
// where its engine says it (a JSON route's field, or a label of a /metrics info gauge). An A/B is
// fair only when its variants agree on everything but the speculative method (lib/report/figures/confounding.ts).
// What an engine does not expose is absent, never assumed.

/** Setting → what it is; `speculative` ones are the intended difference of an A/B, never a confounder. */
export const SERVING_SETTINGS = {
  engine: { group: 'engine', help: 'the server software' },
  engine_version: { group: 'engine', help: 'its release or build' },
  model: { group: 'model', help: 'the weights served (path or hub id)' },
  revision: { group: 'model', help: "the weights' revision (commit)" },
  quantization: { group: 'numerics', help: 'weight quantization (or the file type of GGUF weights)' },
  dtype: { group: 'numerics', help: 'compute dtype' },
  kv_cache_dtype: { group: 'numerics', help: 'KV cache dtype' },
  tensor_parallel: { group: 'parallelism', help: 'tensor-parallel size' },
  pipeline_parallel: { group: 'parallelism', help: 'pipeline-parallel size' },
  data_parallel: { group: 'parallelism', help: 'data-parallel size' },
  max_running_requests: { group: 'scheduling', help: 'requests batched at once (slots)' },
  max_batch_tokens: { group: 'scheduling', help: 'tokens one batch may hold' },
  chunked_prefill: { group: 'scheduling', help: 'chunked prefill (its chunk size, or off)' },
  cuda_graphs: { group: 'scheduling', help: 'CUDA graphs (false: eager)' },
  prefix_caching: { group: 'scheduling', help: 'prefix (radix) cache' },
  memory_fraction: { group: 'scheduling', help: 'GPU memory fraction for weights and KV cache' },
  block_size: { group: 'scheduling', help: 'KV cache block (page) size' },
  attention_backend: { group: 'scheduling', help: 'attention kernels' },
  context_length: { group: 'context', help: 'context length of a request' },
  speculative_method: { group: 'speculative', help: 'the speculative decoding method' },
  speculative_draft_model: { group: 'speculative', help: 'draft model' },
  speculative_steps: { group: 'speculative', help: 'draft steps' },
  speculative_draft_tokens: { group: 'speculative', help: 'draft tokens verified per step' },
} as const;

export type ServingSetting = keyof typeof SERVING_SETTINGS;
export const SERVING_SETTING_NAMES = Object.keys(SERVING_SETTINGS) as ServingSetting[];
export type SettingValue = string | number | boolean;

/** How a raw value becomes the setting: as it is, inverted (disable_cuda_graph → cuda_graphs), or "off" when not positive. */
export type SettingMap = 'as-is' | 'invert' | 'off-unless-positive';

/** Where one setting is read. */
export type SettingSource =
  | {
      /**
       * A GET route answering a JSON object; `field` a dotted path in it ("default_generation_settings.n_ctx",
       * "data.0.root"), or its keys when one holds a dot.
       */
      route: string;
      field: string | readonly string[];
      /** What a JSON null there means (SGLang's quantization null: none); absent: null is not exposed. */
      nullAs?: SettingValue;
      map?: SettingMap;
      /** The command-line flag that sets it, named beside a difference. */
      flag?: string;
    }
  | {
      /** A /metrics info gauge (value 1, the settings in its labels), e.g. vllm:cache_config_info. */
      gauge: string;
      label: string;
      /** Label text meaning "unset" (vLLM writes Python's None). */
      unset?: string;
      map?: SettingMap;
      flag?: string;
    };

/** Where an engine exposes its serving configuration: the routes to GET and where each setting is in them. */
export interface ServingProfile {
  /** GET routes answering JSON objects; '/metrics' is read when a source names a gauge. */
  routes: readonly string[];
  /** Each setting's sources, the first that answers wins. */
  settings: Partial<Record<ServingSetting, SettingSource | readonly SettingSource[]>>;
}

/** One setting as read: its value and where it came from ("GET /props total_slots"). */
export interface ReadSetting {
  value: SettingValue;
  source: string;
  flag?: string;
}

/** A variant's serving configuration, as setup records it. */
export interface ServingConfig {
  settings: Partial<Record<ServingSetting, ReadSetting>>;
  /** Each route asked and its outcome ("GET /props → 200", "GET /metrics: not read (SERVER_METRICS=off)"). */
  read: string[];
}

/** What the reader is given: each JSON route's parsed answer (null: no 200 JSON object) and each info gauge's labels. */
export interface ServingInputs {
  json: Record<string, Record<string, unknown> | null>;
  gauges: Record<string, Record<string, string>>;
}

/** The routes and gauges a profile reads. */
export function gaugesOf(p: ServingProfile): string[] {
  return [...new Set(Object.values(p.settings).flatMap((s) => sourcesOf(s).flatMap((x) => ('gauge' in x ? [x.gauge] : []))))];
}

function sourcesOf(s: SettingSource | readonly SettingSource[] | undefined): readonly SettingSource[] {
  return s === undefined ? [] : Array.isArray(s) ? s : [s as SettingSource];
}

function at(obj: Record<string, unknown>, keys: readonly string[]): { found: boolean; value: unknown } {
  let cur: unknown = obj;
  for (const key of keys) {
    if (cur === null || typeof cur !== 'object') return { found: false, value: undefined };
    const o = cur as Record<string, unknown>;
    if (!(key in o)) return { found: false, value: undefined };
    cur = o[key];
  }
  return { found: true, value: cur };
}

/** A label's text as a value: "True" → true, "0.9" → 0.9, else the text. */
function fromLabel(text: string): SettingValue {
  if (/^(true|false)$/i.test(text)) return text.toLowerCase() === 'true';
  if (/^[+-]?\d+(\.\d+)?$/.test(text)) return Number(text);
  return text;
}

function mapped(v: SettingValue, map: SettingMap | undefined): SettingValue {
  if (map === 'invert') return typeof v === 'boolean' ? !v : v;
  if (map === 'off-unless-positive') return typeof v === 'number' && v <= 0 ? 'off' : v;
  return v;
}

function readOne(src: SettingSource, inputs: ServingInputs): ReadSetting | null {
  const flag = src.flag ? { flag: src.flag } : {};
  if ('gauge' in src) {
    const labels = inputs.gauges[src.gauge];
    const text = labels?.[src.label];
    if (text === undefined || text === '' || text === src.unset) return null;
    return { value: mapped(fromLabel(text), src.map), source: `${src.gauge}{${src.label}}`, ...flag };
  }
  const obj = inputs.json[src.route];
  if (!obj) return null;
  const keys = typeof src.field === 'string' ? src.field.split('.') : src.field;
  const { found, value } = at(obj, keys);
  if (!found) return null;
  const raw = value === null ? (src.nullAs ?? null) : value;
  if (typeof raw !== 'string' && typeof raw !== 'number' && typeof raw !== 'boolean') return null;
  if (typeof raw === 'number' && !Number.isFinite(raw)) return null;
  return { value: mapped(raw, src.map), source: `GET ${src.route} ${keys.join('.')}`, ...flag };
}

/** The settings a profile finds in what the server answered; a setting it cannot find is left out. */
export function readServing(p: ServingProfile, inputs: ServingInputs): Partial<Record<ServingSetting, ReadSetting>> {
  const out: Partial<Record<ServingSetting, ReadSetting>> = {};
  for (const name of SERVING_SETTING_NAMES) {
    for (const src of sourcesOf(p.settings[name])) {
      const got = readOne(src, inputs);
      if (got) {
        out[name] = got;
        break;
      }
    }
  }
  return out;
}

/** A value as the report shows it. */
export function showSetting(v: SettingValue): string {
  return typeof v === 'string' ? v : String(v);
}
