// Ollama's OpenAI-compatible routes (/v1): models owned_by "library" (or the namespace they were
// pulled from); GET /api/version names the release. No /metrics, no tokenize route.
import { answered, ownedBy, text, type EngineProfile } from './profile';

export const ollama: EngineProfile = {
  id: 'ollama',
  label: 'Ollama',
  probes: [{ route: '/api/version', when: (s) => s.ownedBy.includes('library') }],
  recognise(s) {
    const v = answered(s, '/api/version');
    if (!ownedBy(s, 'library', 'ollama') && (v === null || s.models.length === 0)) return null;
    const version = v ? text(v.version) : null;
    return {
      version,
      maxModelLen: null,
      evidence: [s.ownedBy.length ? `owned_by ${s.ownedBy[0]}` : null, version ? `GET /api/version → ${version}` : null].filter(Boolean).join(', '),
    };
  },
  dialect: 'openai',
  offered: ['openai', 'openai-chat'],
  metrics: null,
  tokenize: null,
  checked: 'corpus replies quoted from its issues and built from its source',
};
