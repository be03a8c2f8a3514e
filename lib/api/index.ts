// k6-llm-bench as a library for your own k6 scripts:
//
//   import { LlmClient, llmOptions, llmSummary, preflight } from 'k6-llm-bench';
//   const llm = new LlmClient({ url: __ENV.LLM_URL, dialect: 'openai-chat', transport: 'sse' });
//   export const options = llmOptions({ vus: 2, duration: '30s', thresholds: { llm_ttft: ['p(95)<800'] } });
//   export const setup = () => ({ llm: preflight(llm) });
//   export default function () { llm.chat('Hello!', { maxTokens: 64 }); }
//   export const handleSummary = (data) => llmSummary(data);
//
// Every call records the benchmarks' metrics (llm_e2e, llm_ttft, llm_itl, llm_output_tokens,
// llm_success, llm_errors{error_class} …: docs/metrics.md) tagged variant (the client's name) and
// dialect. Nothing runs that the script does not call: no matrix, no scenarios, no thresholds that
// can fail. docs/library.md is the manual.
export { LlmClient } from './client';
export type { CallOptions, GenerateRequest, LlmClientOptions, Message, PreflightOptions, PreflightOutcome, Transport } from './client';
export type { LlmError, LlmResult } from './result';
export { preflight, type PreflightAllOptions } from './preflight';
export type { LlmSetup } from './report';
export { llmOptions, type ReportSettings } from './options';
export { llmReport, llmSummary, type SummaryData, type SummaryOptions } from './summary';
export {
  builtinPrompts,
  loadPrompts,
  messagesOf,
  parsePrompts,
  randomText,
  randomTokenIds,
  textOf,
  turnsOf,
  BUILTIN_DOMAINS,
  type BuiltinDomain,
  type DatasetItem,
  type Turn,
} from './prompts';
export { METRICS, TAGS } from '../metrics/catalog';
export { ERROR_CLASSES, type ErrorClass } from '../dialects/types';
export type { DialectName, DialectSetting } from '../dialects/index';
import type { VariantInfo } from '../variants';
export type { VariantInfo };
/** @deprecated VariantInfo's old name, exported until the next release. */
export type TargetInfo = VariantInfo;
export type { Report } from '../report/build-report';
