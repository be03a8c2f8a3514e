// Which dialects the simulator serves and which of its engines serves each natively, read from the
// dialect table and the engine profiles of the engines it imitates instead of named here.
import { DIALECT_NAMES, type DialectName } from '../lib/dialects/index';
import { engineById } from '../lib/engines/index';
import { ENGINE_NAMES, type EngineName } from '../sim/index';

/** The dialects the simulator serves: those the profiles of the engines it imitates offer, in the table's order. */
export const SIMULATED_DIALECTS: readonly DialectName[] = DIALECT_NAMES.filter((d) => ENGINE_NAMES.some((e) => engineById(e)?.offered.includes(d)));

/** The simulated engine whose native dialect this is (SGLang for its /generate); vLLM for the OpenAI-compatible ones. */
export function simulatedEngine(dialect: string): EngineName {
  return ENGINE_NAMES.find((e) => engineById(e)?.dialect === dialect) ?? 'vllm';
}
