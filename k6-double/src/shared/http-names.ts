// Go's net/textproto.CanonicalMIMEHeaderKey: k6 scripts read `res.headers['Content-Type']`, and
// Go hands k6 header names in that form whatever case the server used. Keys with characters
// that are not valid in a header token are returned unchanged, like Go.

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

export function canonicalHeaderKey(key: string): string {
  if (!TOKEN.test(key)) return key;
  let upper = true;
  let out = '';
  for (const ch of key) {
    out += upper ? ch.toUpperCase() : ch.toLowerCase();
    upper = ch === '-';
  }
  return out;
}

/** Go's net/http urlErrorOp: the method as it appears in url.Error messages ("Get", "Post"). */
export function urlErrorOp(method: string): string {
  return method.slice(0, 1) + method.slice(1).toLowerCase();
}

/** Response headers the way k6 exposes them: canonical keys, repeated values joined with ", ". */
export function goHeaders(rawHeaders: string[]): Record<string, string> {
  const headers: Record<string, string> = {};
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    const key = canonicalHeaderKey(rawHeaders[i]!);
    headers[key] = key in headers ? `${headers[key]}, ${rawHeaders[i + 1]}` : rawHeaders[i + 1]!;
  }
  return headers;
}
