// The shape of one option and its validation, shared by the simulator options and the faults so that
// argv, startSim() and the admin route reject bad values with the same message.

export type OptionKind = 'int' | 'number' | 'bool' | 'enum' | 'string';

export interface OptionSpec<K extends string> {
  key: K;
  flag: string;
  kind: OptionKind;
  def: string | number | boolean;
  help: string;
  min?: number;
  max?: number;
  values?: readonly string[];
}

export class OptionError extends Error {
  override name = 'OptionError';
}

export function describeAllowed(spec: OptionSpec<string>): string {
  switch (spec.kind) {
    case 'enum':
      return `one of ${(spec.values ?? []).join(', ')}`;
    case 'bool':
      return 'true or false';
    case 'string':
      return 'a string';
    case 'int':
      return `an integer from ${spec.min} to ${spec.max}`;
    case 'number':
      return `a number from ${spec.min} to ${spec.max}`;
  }
}

function fail(spec: OptionSpec<string>, label: string, value: unknown): never {
  const shown = typeof value === 'string' ? `'${value}'` : JSON.stringify(value);
  throw new OptionError(`${label}: invalid value ${shown}; allowed: ${describeAllowed(spec)}`);
}

/** Checks a typed value (from JSON or a startSim() object). */
export function validateValue(spec: OptionSpec<string>, value: unknown, label: string): string | number | boolean {
  switch (spec.kind) {
    case 'bool':
      if (typeof value !== 'boolean') fail(spec, label, value);
      return value;
    case 'string':
      if (typeof value !== 'string') fail(spec, label, value);
      return value;
    case 'enum':
      if (typeof value !== 'string' || !(spec.values ?? []).includes(value)) fail(spec, label, value);
      return value;
    case 'int':
    case 'number': {
      if (typeof value !== 'number' || !Number.isFinite(value)) fail(spec, label, value);
      if (spec.kind === 'int' && !Number.isInteger(value)) fail(spec, label, value);
      if ((spec.min !== undefined && value < spec.min) || (spec.max !== undefined && value > spec.max)) fail(spec, label, value);
      return value;
    }
  }
}

/** Converts command-line text to a typed value, then validates it. */
export function fromArgText(spec: OptionSpec<string>, text: string, label: string): string | number | boolean {
  if (spec.kind === 'bool') {
    if (text === 'true' || text === '1') return true;
    if (text === 'false' || text === '0') return false;
    fail(spec, label, text);
  }
  if (spec.kind === 'int' || spec.kind === 'number') {
    // Number('') is 0 and Number('0x10') is 16: accept only plain decimal notation.
    if (!/^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i.test(text.trim())) fail(spec, label, text);
    return validateValue(spec, Number(text), label);
  }
  return validateValue(spec, text, label);
}
