// What the library remembers in a VU between its calls: the clients created (in the init context,
// which k6 runs in every VU and in the one that runs handleSummary) and the settings llmOptions
// was given. Nothing here is shared between VUs.
import type { ClientSpec } from './config';
import { DEFAULT_SLICES, type OptionsLike } from './plan';

export const state: { clients: ClientSpec[]; slices: number; options: OptionsLike | null } = {
  clients: [],
  slices: DEFAULT_SLICES,
  options: null,
};

/** Registers a client; two clients of one name must be the same variant. */
export function register(spec: ClientSpec): void {
  const same = state.clients.find((c) => c.name === spec.name);
  if (same && (same.url !== spec.url || same.model !== spec.model || same.transport !== spec.transport)) {
    throw new Error(
      `k6-llm-bench: two clients are named '${spec.name}' (${same.url} and ${spec.url}): give each its own ` +
        `\`name\` option; it is the \`variant\` tag of its metrics and its label in the report.`,
    );
  }
  if (!same) state.clients.push(spec);
}
