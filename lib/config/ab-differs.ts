// AB_DIFFERS: the serving settings the variants are meant to differ in besides the speculative
// method, named in the vocabulary of lib/engines/serving-config.ts; the report then does not call them confounders.
import { SERVING_SETTINGS, SERVING_SETTING_NAMES, type ServingSetting } from '../engines/serving-config';
import { ConfigError } from './parse';

export function parseAbDiffers(raw: string): ServingSetting[] {
  const names = raw
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  const out: ServingSetting[] = [];
  for (const n of names) {
    if (!(n in SERVING_SETTINGS)) throw new ConfigError(`AB_DIFFERS: unknown setting '${n}'; known settings: ${SERVING_SETTING_NAMES.join(', ')}.`);
    if (SERVING_SETTINGS[n as ServingSetting].group === 'speculative')
      throw new ConfigError(
        `AB_DIFFERS: '${n}' is part of the speculative method, the difference an A/B is about; it is never a confounder, so there is nothing to declare.`,
      );
    if (!out.includes(n as ServingSetting)) out.push(n as ServingSetting);
  }
  return out;
}
