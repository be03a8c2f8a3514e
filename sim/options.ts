// One table of options, parsed and validated by one mechanism for the CLI (argv), for startSim()
// (a partial object) and for the runtime fault route (a partial JSON body).
import { IMITATIONS, ENGINE_NAMES, type EngineName } from './imitations';
import { FAULT_SPECS, type Faults } from './faults';
import { type OptionSpec, OptionError, validateValue, fromArgText, describeAllowed } from './option-spec';
import { parseAcceptByDomain } from './scheduler/speculative';
import { loraNames } from './lora';

export { OptionError } from './option-spec';

export type { EngineName } from './imitations';
export type SpecMode = 'none' | 'mtp' | 'dflash' | 'ddtree';

export interface SimOptions {
  /** Which server to imitate (its profile in IMITATIONS). */
  engine: EngineName;
  host: string;
  /** 0 = an ephemeral port; the CLI uses the engine's own default (30000 / 8000). */
  port: number;
  model: string;
  maxModelLen: number;
  vocabSize: number;
  seed: number;
  timeScale: number;
  // Latency model (model milliseconds; divided by timeScale to get wall time).
  stepBaseMs: number;
  prefillTokenMs: number;
  decodeSeqMs: number;
  ctxMsPer1k: number;
  // Scheduler.
  maxBatchedTokens: number;
  maxRunning: number;
  kvCapacity: number;
  maxQueue: number;
  prefixCaching: boolean;
  devMode: boolean;
  blockSize: number;
  // Serving settings a real server shows (SGLang's /get_server_info, vLLM's cache_config_info) that
  // do not change the simulated timing: an A/B's fairness check reads them (lib/engines/serving-config.ts).
  cudaGraph: boolean;
  tpSize: number;
  dtype: string;
  quantization: string;
  kvCacheDtype: string;
  memFraction: number;
  // Simulated GPUs (sim/gpu.ts): how many, and one GPU's power idle and at full load.
  gpus: number;
  gpuIdleWatts: number;
  gpuMaxWatts: number;
  streamInterval: number;
  incrementalStreamingOutput: boolean;
  // Generation.
  eosRate: number;
  eosDespiteIgnore: boolean;
  reasoningFraction: number;
  reasoningField: 'reasoning_content' | 'reasoning' | 'think';
  // Speculative decoding.
  spec: SpecMode;
  specAcceptLength: number;
  specDraftTokens: number;
  specVerifyTokens: number;
  specDraftMs: number;
  specVerifyTokenMs: number;
  /** `code=6,chat=2`: mean acceptance length per prompt domain (the `[domain: NAME]` marker); '' = none. */
  specAcceptByDomain: string;
  /** LoRA adapters served beside the base model, by name (`a,b`); '' = none (sim/lora.ts). */
  loraAdapters: string;
  /** Most distinct adapters in one batch (vLLM's --max-loras, SGLang's --max-loras-per-batch); also how many stay loaded. */
  maxLoras: number;
  /** Model ms a step takes longer when it loads a cold adapter. */
  loraLoadMs: number;
  /** vLLM's --per-request-spec-decode-metrics: 'summary' or 'detailed' puts `metrics.speculative_decoding` in each OpenAI reply; 'off' leaves it out. */
  perRequestSpecDecodeMetrics: 'off' | 'summary' | 'detailed';
  // Server behaviour.
  apiKey: string;
  healthGenerateTimeoutMs: number;
  startupDelayMs: number;
  timerSpinMs: number;
  /** Wall ms of the simulator's own lag beyond which the ground truth marks a request or step as behind. */
  lagThresholdMs: number;
  recordLimit: number;
  faults: Faults;
}

/** Speculative-mode defaults; 0 in specAcceptLength/specDraftTokens/specVerifyTokens/specDraftMs means "the mode's default". */
export const SPEC_DEFAULTS: Record<Exclude<SpecMode, 'none'>, { al: number; draft: number; verify: number; draftMs: number }> = {
  // MTP head: 3 chained draft tokens, verified as a 4-token chain.
  mtp: { al: 2.5, draft: 3, verify: 4, draftMs: 2.4 },
  // DFlash block diffusion, block size 16: 15 drafted tokens + the anchor, verified in one pass.
  dflash: { al: 6, draft: 15, verify: 16, draftMs: 5 },
  // DDTree: best-first tree over DFlash's per-position distributions; depth 15, 32 tree nodes verified.
  ddtree: { al: 8, draft: 15, verify: 32, draftMs: 6 },
};

type Scalar = string | number | boolean;

const SIM_SPECS: OptionSpec<keyof Omit<SimOptions, 'faults'>>[] = [
  { key: 'engine', flag: 'engine', kind: 'enum', values: ENGINE_NAMES, def: 'sglang', help: 'which server to imitate' },
  { key: 'host', flag: 'host', kind: 'string', def: '127.0.0.1', help: 'listen address (loopback by default)' },
  {
    key: 'port',
    flag: 'port',
    kind: 'int',
    min: 0,
    max: 65535,
    def: 0,
    help: 'listen port; CLI default 30000 (sglang) / 8000 (vllm), startSim default 0 = ephemeral',
  },
  { key: 'model', flag: 'model', kind: 'string', def: 'qwen3-32b-sim', help: 'served model name' },
  { key: 'maxModelLen', flag: 'max-model-len', kind: 'int', min: 16, max: 10_000_000, def: 32768, help: 'context length (prompt + output tokens)' },
  { key: 'vocabSize', flag: 'vocab-size', kind: 'int', min: 1024, max: 10_000_000, def: 151936, help: 'token ids are < this' },
  { key: 'seed', flag: 'seed', kind: 'int', min: 0, max: 2 ** 31 - 1, def: 1234, help: 'seed for text, lengths, acceptance draws and fault draws' },
  {
    key: 'timeScale',
    flag: 'time-scale',
    kind: 'number',
    min: 0.01,
    max: 1000,
    def: 1,
    help: 'run N times faster than the model time (every duration is divided by it)',
  },
  { key: 'stepBaseMs', flag: 'step-base-ms', kind: 'number', min: 0.01, max: 10_000, def: 26.6, help: 'fixed cost of one scheduler step, model ms' },
  {
    key: 'prefillTokenMs',
    flag: 'prefill-token-ms',
    kind: 'number',
    min: 0,
    max: 100,
    def: 0.096,
    help: 'cost per uncached prefill token in a step, model ms',
  },
  { key: 'decodeSeqMs', flag: 'decode-seq-ms', kind: 'number', min: 0, max: 100, def: 0.057, help: 'cost per decoding sequence in a step, model ms' },
  {
    key: 'ctxMsPer1k',
    flag: 'ctx-ms-per-1k',
    kind: 'number',
    min: 0,
    max: 100,
    def: 0.08,
    help: 'KV-read cost per 1,000 context tokens of the decoding sequences, model ms',
  },
  {
    key: 'maxBatchedTokens',
    flag: 'max-batched-tokens',
    kind: 'int',
    min: 16,
    max: 1_000_000,
    def: 8192,
    help: 'token budget of one step (chunked prefill + decode tokens)',
  },
  { key: 'maxRunning', flag: 'max-running', kind: 'int', min: 1, max: 100_000, def: 256, help: 'most sequences in the running batch' },
  {
    key: 'kvCapacity',
    flag: 'kv-capacity',
    kind: 'int',
    min: 16,
    max: 1_000_000_000,
    def: 400_000,
    help: 'KV-cache tokens; a request reserves prompt + max output tokens',
  },
  {
    key: 'maxQueue',
    flag: 'max-queue',
    kind: 'int',
    min: 0,
    max: 10_000_000,
    def: 0,
    help: 'waiting requests beyond which new ones are rejected; 0 = unbounded',
  },
  { key: 'prefixCaching', flag: 'prefix-caching', kind: 'bool', def: true, help: 'reuse cached prompt blocks (cached_tokens, cheaper prefill)' },
  {
    key: 'devMode',
    flag: 'dev-mode',
    kind: 'bool',
    def: false,
    help: "vLLM's VLLM_SERVER_DEV_MODE=1: registers POST /reset_prefix_cache (404 without it)",
  },
  { key: 'blockSize', flag: 'block-size', kind: 'int', min: 1, max: 4096, def: 16, help: 'prefix-cache block size, tokens' },
  { key: 'cudaGraph', flag: 'cuda-graph', kind: 'bool', def: true, help: "shown as SGLang's disable_cuda_graph (inverted); timing unchanged" },
  { key: 'tpSize', flag: 'tp-size', kind: 'int', min: 1, max: 64, def: 1, help: "shown as SGLang's tp_size; timing unchanged" },
  { key: 'dtype', flag: 'dtype', kind: 'string', def: 'bfloat16', help: "shown as SGLang's dtype; timing unchanged" },
  { key: 'quantization', flag: 'quantization', kind: 'string', def: '', help: "shown as SGLang's quantization ('' = none, null); timing unchanged" },
  {
    key: 'kvCacheDtype',
    flag: 'kv-cache-dtype',
    kind: 'string',
    def: 'auto',
    help: "shown as SGLang's kv_cache_dtype and vLLM's cache_config_info cache_dtype; timing unchanged",
  },
  {
    key: 'memFraction',
    flag: 'mem-fraction',
    kind: 'number',
    min: 0.01,
    max: 1,
    def: 0.9,
    help: "shown as SGLang's mem_fraction_static and vLLM's gpu_memory_utilization; timing unchanged",
  },
  {
    key: 'gpus',
    flag: 'gpus',
    kind: 'int',
    min: 1,
    max: 64,
    def: 1,
    help: 'simulated GPUs of the deployment: one series each on the GPU exporter pages (/sim/dcgm/metrics, /sim/nvidia-smi/metrics)',
  },
  { key: 'gpuIdleWatts', flag: 'gpu-idle-watts', kind: 'number', min: 0, max: 10_000, def: 70, help: "one GPU's power with no step running, W" },
  {
    key: 'gpuMaxWatts',
    flag: 'gpu-max-watts',
    kind: 'number',
    min: 1,
    max: 10_000,
    def: 700,
    help: "one GPU's power at full load (a prefill of 2048 tokens or more), W; steps draw between idle and this by what they do",
  },
  { key: 'streamInterval', flag: 'stream-interval', kind: 'int', min: 1, max: 10_000, def: 1, help: 'steps per streamed event' },
  {
    key: 'incrementalStreamingOutput',
    flag: 'incremental-streaming-output',
    kind: 'bool',
    def: false,
    help: 'sglang /generate: stream text deltas instead of cumulative text',
  },
  {
    key: 'eosRate',
    flag: 'eos-rate',
    kind: 'number',
    min: 0,
    max: 1,
    def: 0,
    help: 'per-token chance of EOS when ignore_eos is false; 0 = always run to the token limit',
  },
  {
    key: 'eosDespiteIgnore',
    flag: 'eos-despite-ignore',
    kind: 'bool',
    def: false,
    help: 'stop at EOS (--eos-rate) even when ignore_eos asks not to, as a server that ignores it does',
  },
  {
    key: 'reasoningFraction',
    flag: 'reasoning-fraction',
    kind: 'number',
    min: 0,
    max: 1,
    def: 0,
    help: 'chat: this fraction of the token limit streams as reasoning before content',
  },
  {
    key: 'reasoningField',
    flag: 'reasoning-field',
    kind: 'enum',
    values: ['reasoning_content', 'reasoning', 'think'],
    def: 'reasoning_content',
    help:
      'chat delta field that carries reasoning; think: none, <think>…</think> in the content (a server ' +
      'without a reasoning parser), and no reasoning_tokens in usage',
  },
  { key: 'spec', flag: 'spec', kind: 'enum', values: ['none', 'mtp', 'dflash', 'ddtree'], def: 'none', help: 'speculative decoding mode' },
  {
    key: 'specAcceptLength',
    flag: 'spec-accept-length',
    kind: 'number',
    min: 0,
    max: 1000,
    def: 0,
    help: 'mean tokens committed per verify step (bonus included); 0 = mode default (2.5 / 6 / 8)',
  },
  {
    key: 'specDraftTokens',
    flag: 'spec-draft-tokens',
    kind: 'int',
    min: 0,
    max: 1000,
    def: 0,
    help: 'draft depth; a step commits 1..depth+1 tokens; 0 = mode default (3 / 15 / 15)',
  },
  {
    key: 'specVerifyTokens',
    flag: 'spec-verify-tokens',
    kind: 'int',
    min: 0,
    max: 10_000,
    def: 0,
    help: 'tokens verified per sequence per step; 0 = mode default (4 / 16 / 32)',
  },
  {
    key: 'specDraftMs',
    flag: 'spec-draft-ms',
    kind: 'number',
    min: 0,
    max: 10_000,
    def: 0,
    help: 'drafter cost per step, model ms; 0 = mode default (2.4 / 5 / 6)',
  },
  {
    key: 'specVerifyTokenMs',
    flag: 'spec-verify-token-ms',
    kind: 'number',
    min: 0,
    max: 100,
    def: 0.096,
    help: 'cost per verified token per sequence, model ms',
  },
  {
    key: 'specAcceptByDomain',
    flag: 'spec-accept-by-domain',
    kind: 'string',
    def: '',
    help:
      "mean acceptance length per prompt domain, e.g. code=6,math=5,chat=2 (a prompt's domain is its first " +
      "'[domain: NAME]' marker); other prompts use --spec-accept-length",
  },
  {
    key: 'loraAdapters',
    flag: 'lora-adapters',
    kind: 'string',
    def: '',
    help:
      'LoRA adapters served beside the base model, e.g. sql,chat: listed in /v1/models (vLLM, SGLang) and ' +
      '/lora-adapters, named by `model` on the OpenAI routes and `lora_path` on /generate; an unknown one ' +
      "gets the engine's error",
  },
  {
    key: 'maxLoras',
    flag: 'max-loras',
    kind: 'int',
    min: 1,
    max: 256,
    def: 8,
    help: 'most distinct adapters in one batch, and how many stay loaded (the least recently used is evicted)',
  },
  {
    key: 'loraLoadMs',
    flag: 'lora-load-ms',
    kind: 'number',
    min: 0,
    max: 60_000,
    def: 30,
    help: 'a step that loads a cold adapter takes this much longer, model ms',
  },
  {
    key: 'perRequestSpecDecodeMetrics',
    flag: 'per-request-spec-decode-metrics',
    kind: 'enum',
    values: ['off', 'summary', 'detailed'],
    def: 'off',
    help:
      "as vLLM's flag: each OpenAI reply (streamed: its final usage chunk) carries " +
      "metrics.speculative_decoding with this request's verify steps, accepted and drafted tokens and " +
      'acceptance_histogram (detailed adds per_step_accepted); off by default, as in vLLM',
  },
  {
    key: 'apiKey',
    flag: 'api-key',
    kind: 'string',
    def: '',
    help: 'require Authorization: Bearer KEY (or x-api-key: KEY on /v1/messages; health stays open); empty = no key',
  },
  {
    key: 'healthGenerateTimeoutMs',
    flag: 'health-generate-timeout-ms',
    kind: 'number',
    min: 1,
    max: 3_600_000,
    def: 20_000,
    help: 'sglang /health_generate deadline, model ms',
  },
  { key: 'startupDelayMs', flag: 'startup-delay-ms', kind: 'number', min: 0, max: 3_600_000, def: 0, help: 'not ready for this long after start, model ms' },
  {
    key: 'recordLimit',
    flag: 'record-limit',
    kind: 'int',
    min: 1,
    max: 100_000_000,
    def: 100_000,
    help: 'ground truth keeps the newest N request records (and 10·N step records)',
  },
  {
    key: 'lagThresholdMs',
    flag: 'lag-threshold-ms',
    kind: 'number',
    min: 0,
    max: 60_000,
    def: 5,
    help: 'ground truth: a request or step whose records lag the schedule (late intake, late writes) by more than this many wall ms is marked behind',
  },
  {
    key: 'timerSpinMs',
    flag: 'timer-spin-ms',
    kind: 'number',
    min: 0,
    max: 20,
    def: 1,
    help: 'poll the last N wall ms before a step instead of trusting setTimeout (precision vs CPU)',
  },
];

export const OPTION_SPECS: readonly OptionSpec<string>[] = [...SIM_SPECS, ...FAULT_SPECS];

/** Old flag names still accepted on the command line, with a one-line notice on stderr. */
export const DEPRECATED_FLAGS: Readonly<Record<string, string>> = {
  // "dialect" means the wire API everywhere else in the project; the server type is the engine.
  dialect: 'engine',
};

function defaults(): SimOptions {
  const o: Record<string, Scalar | Faults> = {};
  for (const s of SIM_SPECS) o[s.key] = s.def;
  const f: Record<string, Scalar> = {};
  for (const s of FAULT_SPECS) f[s.key] = s.def;
  o.faults = f as unknown as Faults;
  return o as unknown as SimOptions;
}

/** What startSim() accepts: any subset of the options, and any subset of the faults. */
export type SimOptionsInput = Partial<Omit<SimOptions, 'faults'>> & { faults?: Partial<Faults> };

/** Validates a partial object (startSim). Unknown keys and bad values throw OptionError. */
export function resolveOptions(partial: SimOptionsInput = {}): SimOptions {
  const out = defaults();
  const fields = out as unknown as Record<string, unknown>;
  for (const [key, value] of Object.entries(partial)) {
    if (value === undefined) continue;
    if (key === 'faults') {
      out.faults = applyFaults(out.faults, value as unknown as Record<string, unknown>);
      continue;
    }
    const spec = SIM_SPECS.find((s) => s.key === key) ?? FAULT_SPECS.find((s) => s.key === key);
    if (!spec && key === 'dialect') throw new OptionError(`option dialect: renamed to engine (engine: 'sglang' | 'vllm')`);
    if (!spec) throw new OptionError(`option ${key}: unknown option; known options: ${SIM_SPECS.map((s) => s.key).join(', ')}, faults`);
    const v = validateValue(spec, value, `option ${key}`);
    if (FAULT_SPECS.includes(spec as (typeof FAULT_SPECS)[number])) (out.faults as unknown as Record<string, unknown>)[key] = v;
    else fields[key] = v;
  }
  return finish(out);
}

/** Validates a partial fault update (admin route, setFaults) against the same specs. */
export function applyFaults(current: Faults, update: Record<string, unknown>): Faults {
  const next = { ...current } as unknown as Record<string, unknown>;
  for (const [key, value] of Object.entries(update)) {
    const spec = FAULT_SPECS.find((s) => s.key === key);
    if (!spec) throw new OptionError(`fault ${key}: unknown fault; known faults: ${FAULT_SPECS.map((s) => s.key).join(', ')}`);
    next[key] = validateValue(spec, value, `fault ${key}`);
  }
  return next as unknown as Faults;
}

/**
 * Parses argv (after the script name). `--help` returns 'help'. A deprecated flag name (see
 * DEPRECATED_FLAGS) works as its new name and calls `notice` once with a one-line message.
 */
export function parseArgs(argv: readonly string[], notice: (message: string) => void = () => undefined): SimOptions | 'help' {
  const out = defaults() as unknown as Record<string, unknown>;
  const faults = out.faults as Record<string, unknown>;
  let portGiven = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === '--help' || arg === '-h') return 'help';
    if (!arg.startsWith('--')) throw new OptionError(`unexpected argument '${arg}': options look like --name value (see --help)`);
    let name = arg.slice(2);
    let text: string | undefined;
    const eq = name.indexOf('=');
    if (eq >= 0) {
      text = name.slice(eq + 1);
      name = name.slice(0, eq);
    }
    const label = `--${name}`;
    const renamed = DEPRECATED_FLAGS[name];
    if (renamed !== undefined) {
      notice(`--${name} is deprecated; use --${renamed} (same values)`);
      name = renamed;
    }
    let negated = false;
    let spec = OPTION_SPECS.find((s) => s.flag === name);
    if (!spec && name.startsWith('no-')) {
      spec = OPTION_SPECS.find((s) => s.flag === name.slice(3) && s.kind === 'bool');
      negated = spec !== undefined;
    }
    if (!spec) throw new OptionError(`--${name}: unknown option (see --help for the list)`);
    if (spec.kind === 'bool') {
      // A bare boolean flag means true; --flag=false and --no-flag mean false.
      text ??= negated ? 'false' : 'true';
    } else if (text === undefined) {
      const next = argv[i + 1];
      if (next === undefined) throw new OptionError(`${label}: missing value; expected ${describeAllowed(spec)}`);
      text = next;
      i++;
    }
    const value = fromArgText(spec, text, negated ? `--${spec.flag}` : label);
    if (FAULT_SPECS.includes(spec as (typeof FAULT_SPECS)[number])) faults[spec.key] = value;
    else out[spec.key] = value;
    if (spec.key === 'port') portGiven = true;
  }
  const opts = out as unknown as SimOptions;
  if (!portGiven) opts.port = IMITATIONS[opts.engine].defaultPort;
  return finish(opts);
}

/** Cross-option checks and the speculative defaults. */
function finish(o: SimOptions): SimOptions {
  if (o.spec !== 'none') {
    const d = SPEC_DEFAULTS[o.spec];
    if (o.specAcceptLength === 0) o.specAcceptLength = d.al;
    if (o.specDraftTokens === 0) o.specDraftTokens = d.draft;
    if (o.specVerifyTokens === 0) o.specVerifyTokens = Math.max(d.verify, o.specDraftTokens + 1);
    if (o.specDraftMs === 0) o.specDraftMs = d.draftMs;
    if (o.specAcceptLength < 1 || o.specAcceptLength > o.specDraftTokens + 1) {
      throw new OptionError(
        `--spec-accept-length: value ${o.specAcceptLength} is out of range for --spec ${o.spec} with ${o.specDraftTokens} ` +
          `draft tokens; allowed: 1 to ${o.specDraftTokens + 1}`,
      );
    }
  }
  loraNames(o);
  if (o.specAcceptByDomain.trim() !== '') {
    let perDomain: Map<string, number>;
    try {
      perDomain = parseAcceptByDomain(o.specAcceptByDomain);
    } catch (e) {
      throw new OptionError(`--spec-accept-by-domain: invalid value '${o.specAcceptByDomain}': ${(e as Error).message}`);
    }
    if (o.spec === 'none') throw new OptionError('--spec-accept-by-domain: needs speculative decoding (--spec mtp, dflash or ddtree)');
    for (const [d, al] of perDomain) {
      if (al < 1 || al > o.specDraftTokens + 1) {
        throw new OptionError(
          `--spec-accept-by-domain: ${d}=${al} is out of range for --spec ${o.spec} with ${o.specDraftTokens} draft ` +
            `tokens; allowed: 1 to ${o.specDraftTokens + 1}`,
        );
      }
    }
  }
  if (o.gpuMaxWatts <= o.gpuIdleWatts) throw new OptionError(`--gpu-max-watts: value ${o.gpuMaxWatts} must be above --gpu-idle-watts ${o.gpuIdleWatts}`);
  if (o.maxModelLen > o.kvCapacity) {
    throw new OptionError(`--max-model-len: value ${o.maxModelLen} exceeds --kv-capacity ${o.kvCapacity}; a full-length request must fit in the KV cache`);
  }
  return o;
}

export function helpText(): string {
  const lines = ['Simulated SGLang / vLLM inference server.', '', 'Usage: npm run sim -- [--name value | --name=value | --flag | --no-flag] ...', ''];
  for (const s of OPTION_SPECS) {
    const def = s.key === 'port' ? ENGINE_NAMES.map((e) => `${IMITATIONS[e].defaultPort} (${e})`).join(' / ') : JSON.stringify(s.def);
    lines.push(`  --${s.flag.padEnd(30)} ${s.help}`);
    lines.push(`  ${''.padEnd(32)} (${describeAllowed(s)}; default ${def})`);
  }
  for (const [old, now] of Object.entries(DEPRECATED_FLAGS)) lines.push(`  --${old.padEnd(30)} deprecated name of --${now}`);
  return lines.join('\n');
}
