// ADAPTERS before any load: each adapter named must be loaded on the server, listed where its
// profile says (GET /v1/models for vLLM and SGLang, GET /lora-adapters for llama.cpp). A missing
// one stops the run with one message naming it and what the server has. llama.cpp's adapters are
// named by their ids in requests: the ids are read here, once.
import type { AdapterWeight } from '../config/config-types';
import type { AdapterBinding } from '../dialects/index';
import type { AdapterProfile, EngineProfile } from '../engines/profile';
import { BASE_ADAPTER } from '../workload/adapter-draw';

/** One loaded adapter as the server lists it: the names it answers to, and its id where requests use one. */
interface Listed {
  names: string[];
  id: number | null;
  /** How people read it in the message. */
  label: string;
}

const DEFAULT: AdapterProfile = { list: 'models' };

const ROUTES: Readonly<Record<AdapterProfile['list'], string>> = { models: '/v1/models', 'lora-adapters': '/lora-adapters' };

/** How each listing is read: the adapters it holds, or null when it is not that shape. */
const READ: Readonly<Record<AdapterProfile['list'], (v: unknown) => Listed[] | null>> = {
  models: (v) => {
    const data = v !== null && typeof v === 'object' ? (v as { data?: unknown }).data : undefined;
    if (!Array.isArray(data)) return null;
    return data.flatMap((m) => {
      const id = (m as { id?: unknown })?.id;
      return typeof id === 'string' ? [{ names: [id], id: null, label: id }] : [];
    });
  },
  // [{id, path, scale}]: named by the id, the file's path, its base name, or that without .gguf.
  'lora-adapters': (v) => {
    if (!Array.isArray(v)) return null;
    return v.flatMap((a) => {
      const o = a as { id?: unknown; path?: unknown };
      if (typeof o?.id !== 'number') return [];
      const path = typeof o.path === 'string' ? o.path : '';
      const file = path.split('/').pop() ?? '';
      const names = [String(o.id), path, file, file.replace(/\.gguf$/i, '')].filter((n) => n !== '');
      return [{ names, id: o.id, label: `${o.id} (${file || 'no path'})` }];
    });
  },
};

/**
 * Checks ADAPTERS against what the server lists; the binding on success, else the one message that
 * stops the run. `fetch` GETs a route of the variant.
 */
export function checkAdapters(
  variant: string,
  adapters: readonly AdapterWeight[],
  profile: EngineProfile | null,
  fetch: (path: string) => { status: number; body: string },
): { binding: AdapterBinding } | { error: string } {
  const ap = profile?.adapters ?? DEFAULT;
  const route = ROUTES[ap.list];
  const res = fetch(route);
  let listed: Listed[] | null = null;
  try {
    listed = res.status === 200 ? READ[ap.list](JSON.parse(res.body)) : null;
  } catch {
    listed = null;
  }
  const wanted = adapters.filter((a) => a.name !== BASE_ADAPTER);
  if (listed === null) {
    return {
      error:
        `${variant}: ADAPTERS needs the server's list of loaded adapters, but GET ${route} → ${res.status || 'no answer'}` +
        `${res.status === 200 ? ' (not its shape)' : ''}.`,
    };
  }
  const ids: Record<string, number> = {};
  const missing: string[] = [];
  for (const a of wanted) {
    const hit = listed.find((l) => l.names.includes(a.name));
    if (!hit) missing.push(a.name);
    else if (hit.id !== null) ids[a.name] = hit.id;
  }
  if (missing.length > 0) {
    const has = listed.length ? listed.map((l) => l.label).join(', ') : 'none';
    return {
      error:
        `${variant}: ADAPTERS names ${missing.join(', ')}, which the server has not loaded (GET ${route} lists: ${has}); ` +
        (`load ${missing.length > 1 ? 'them' : 'it'} on the server or remove ${missing.length > 1 ? 'them' : 'it'} ` +
          `from ADAPTERS (\`${BASE_ADAPTER}\` is the base model).`),
    };
  }
  return { binding: ap.naming ? { naming: ap.naming, ids } : { ids } };
}
