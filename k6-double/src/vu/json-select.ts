// The subset of GJSON paths that res.json(selector) needs in practice: dot-separated keys
// ("choices.0.message.content"), numeric array indices, "#" for an array's length, and "\."
// to escape a dot inside a key. Queries and modifiers ("friends.#(age>40)", "@reverse") are not
// supported and select nothing.

export function selectJSON(root: unknown, path: string): { found: boolean; value?: unknown } {
  let current: unknown = root;
  for (const part of splitPath(path)) {
    if (Array.isArray(current)) {
      if (part === '#') {
        current = current.length;
        continue;
      }
      if (!/^\d+$/.test(part) || Number(part) >= current.length) return { found: false };
      current = current[Number(part)];
    } else if (current !== null && typeof current === 'object') {
      if (!Object.prototype.hasOwnProperty.call(current, part)) return { found: false };
      current = (current as Record<string, unknown>)[part];
    } else {
      return { found: false };
    }
  }
  return { found: true, value: current };
}

function splitPath(path: string): string[] {
  const parts: string[] = [];
  let cur = '';
  for (let i = 0; i < path.length; i++) {
    const ch = path[i]!;
    if (ch === '\\' && i + 1 < path.length) {
      cur += path[++i];
    } else if (ch === '.') {
      parts.push(cur);
      cur = '';
    } else {
      cur += ch;
    }
  }
  parts.push(cur);
  return parts;
}
