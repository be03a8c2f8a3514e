// Request bodies are built by JSON.stringify of the small fields plus the prompt's token array
// spliced in as pre-serialised JSON: the array is serialised once per prompt, not per request.

export function jsonWithRaw(fields: Record<string, unknown>, rawKey: string, rawJson: string): string {
  const head = JSON.stringify(fields);
  const sep = head === '{}' ? '' : ',';
  return `${head.slice(0, -1)}${sep}${JSON.stringify(rawKey)}:${rawJson}}`;
}
