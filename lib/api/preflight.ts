// preflight() for setup(): every client's preflight, gathered into what setup returns (LlmSetup),
// which the report reads back (the diagnosis of a failure, the server and model found) and VUs
// may adopt (client.adopt) instead of looking the dialect and model up themselves.
import { abortTest } from '../k6/library';
import type { LlmClient, PreflightOptions } from './client';
import type { LlmSetup } from './report';

export interface PreflightAllOptions extends PreflightOptions {
  /** Stop the test (exit 108) with the diagnoses when a client fails. Default true. */
  abortOnFailure?: boolean;
}

export function preflight(clients: LlmClient | readonly LlmClient[], o: PreflightAllOptions = {}): LlmSetup {
  const list = Array.isArray(clients) ? (clients as readonly LlmClient[]) : [clients as LlmClient];
  const variants: LlmSetup['variants'] = [];
  // `targets`, the old name, one release more (the same list).
  const out: LlmSetup = { ok: true, variants, targets: variants, warnings: [], failures: [] };
  for (const c of list) {
    const r = c.preflight(o);
    out.warnings.push(...r.warnings);
    if (r.ok && r.info) {
      out.variants.push(r.info);
      console.log(`${c.name}: ${r.info.engineLabel} at ${c.url}, dialect ${r.info.dialect}${r.info.model ? `, model ${r.info.model}` : ''}`);
    } else {
      out.ok = false;
      out.failures.push({ variant: c.name, reason: r.reason ?? 'generation_failed', message: r.message ?? '' });
    }
  }
  for (const w of out.warnings) console.warn(`warning: ${w}`);
  if (!out.ok && o.abortOnFailure !== false) abortTest(`preflight failed, no load was sent:\n  ${out.failures.map((f) => f.message).join('\n  ')}`);
  return out;
}
