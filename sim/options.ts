// One table of options, parsed and validated by one mechanism for the CLI (argv), for startSim()
// (a partial object) and for the runtime fault route (a partial JSON body).
import { IMITATIONS, ENGINE_NAMES, type EngineName } from './imitations';
import { SIM_SPECS } from './option-table';
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
